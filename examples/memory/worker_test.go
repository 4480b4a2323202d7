package main

import (
	"os"
	"testing"

	"github.com/zircote/lro-go/internal/testing/s3test"
	"github.com/zircote/lro-go/lro/extract"
)

// TestMain lets the test binary serve as the extraction tools' worker, as
// main does for the program.
// The replicas of TestReplicas get the credentials of the test's S3 server
// from the environment. The example the tests build (buildBinary) is
// removed after them.
func TestMain(m *testing.M) {
	extract.RunWorker()
	s3test.Setenv()
	code := m.Run()
	s3test.Stop()
	built.Remove()
	os.Exit(code)
}
