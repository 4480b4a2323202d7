package main

import (
	"os"
	"testing"

	"github.com/zircote/lro-go/lro/extract"
)

// TestMain lets the test binary serve as the extraction tools' worker, as
// main does for the program.
func TestMain(m *testing.M) {
	extract.RunWorker()
	os.Exit(m.Run())
}
