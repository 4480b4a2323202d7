// Package s3test runs a real S3-compatible server, versitygw with its POSIX
// backend, for the tests of offloaded files kept in a bucket. One server is
// started on the first use in a test binary and serves every test of it;
// TestMain calls [Setenv] first and [Stop] last:
//
//	func TestMain(m *testing.M) {
//		s3test.Setenv()
//		code := m.Run()
//		s3test.Stop()
//		os.Exit(code)
//	}
//
// .ci/run installs versitygw (go install, pinned to [Version]) and puts it
// on the PATH. Without it, a test that asks for the server is skipped, and
// fails when the environment variable CI is "true".
package s3test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The credentials of the server, which [Setenv] gives the AWS SDK.
const (
	accessKey = "lro-test-access"
	secretKey = "lro-test-secret-key"
)

// Version is the version of versitygw that .ci/run installs.
const Version = "v1.8.0"

// Setenv sets the environment of the AWS SDK to the server's credentials,
// so that no shared file or instance metadata of the machine interferes.
// Processes the test starts inherit it.
func Setenv() {
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           accessKey,
		"AWS_SECRET_ACCESS_KEY":       secretKey,
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		os.Setenv(k, v)
	}
}

// URL returns the gocloud.dev bucket URL of bucket on the S3 server at
// endpoint.
func URL(endpoint, bucket string) string {
	return "s3://" + bucket + "?endpoint=" + endpoint + "&region=us-east-1&use_path_style=true"
}

// Server is a versitygw process.
type Server struct {
	Endpoint string      // http://127.0.0.1:port
	Root     string      // its folder: a bucket is a folder of it, an object a file
	Process  *os.Process // for a test that pauses (SIGSTOP) or kills it
	err      error
}

// shared is the server of every test of a test binary.
var shared struct {
	once sync.Once
	Server
}

// Bucket makes a new empty bucket on the shared server, started on the
// first call, and returns its URL.
func Bucket(t testing.TB) string {
	t.Helper()
	bin := lookPath(t)
	shared.once.Do(func() { shared.start(bin) })
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return URL(shared.Endpoint, shared.NewBucket(t))
}

// Stop ends the shared server, if one was started, and removes its folder.
func Stop() { shared.stop() }

// lookPath returns the path of versitygw, and skips (or fails, when CI is
// "true") the test without it.
func lookPath(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("versitygw")
	if err != nil {
		msg := fmt.Sprintf("versitygw not found on the PATH (go install github.com/versity/versitygw/cmd/versitygw@%s): %v", Version, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// Start starts a server of the test's own, which it may pause (a stalled
// store) or kill (a dead one) through its Process without disturbing other
// tests, and which ends with the test.
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	s.start(lookPath(t))
	t.Cleanup(s.stop)
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s
}

// buckets numbers the buckets NewBucket makes.
var buckets atomic.Int64

// NewBucket makes a new empty bucket on s (a folder of its root) and
// returns its name.
func (s *Server) NewBucket(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d-%d", time.Now().UnixNano(), buckets.Add(1))
	if err := os.Mkdir(filepath.Join(s.Root, name), 0o700); err != nil {
		t.Fatal(err)
	}
	return name
}

// start starts versitygw on a free port with a new root folder and waits
// until it answers, trying another port if the first is taken meanwhile.
func (s *Server) start(bin string) {
	if s.Root, s.err = os.MkdirTemp("", "lro-versitygw-"); s.err != nil {
		return
	}
	for range 3 {
		var l net.Listener
		if l, s.err = net.Listen("tcp", "127.0.0.1:0"); s.err != nil {
			return
		}
		addr := l.Addr().String()
		l.Close()
		var log strings.Builder
		cmd := exec.Command(bin, "--port", addr, "--access", accessKey, "--secret", secretKey, "--quiet", "posix", s.Root)
		cmd.Stdout, cmd.Stderr = &log, &log
		if s.err = cmd.Start(); s.err != nil {
			return
		}
		s.Process = cmd.Process
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		s.Endpoint = "http://" + addr
		if s.err = waitReady(s.Endpoint, exited); s.err == nil {
			return
		}
		s.err = fmt.Errorf("versitygw at %s: %w; its output:\n%s", addr, s.err, log.String())
		s.Process.Kill()
	}
}

// waitReady waits until the server at endpoint answers HTTP, for at most a
// minute (a loaded machine), or until it exits.
func waitReady(endpoint string, exited <-chan error) error {
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("exited: %v", err)
		default:
		}
		if resp, err := http.Get(endpoint); err == nil {
			resp.Body.Close()
			return nil // any answer: 403 to an anonymous request
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("not answering after a minute")
}

// stop ends s, paused or not, if it was started, and removes its folder.
func (s *Server) stop() {
	if s.Process != nil {
		s.Process.Kill()
	}
	if s.Root != "" {
		os.RemoveAll(s.Root)
	}
}
