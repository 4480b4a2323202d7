package store_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	_ "gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// The credentials of the S3 servers of these tests, set in the environment
// for the AWS SDK by TestMain.
const (
	testAccessKey = "lro-test-access"
	testSecretKey = "lro-test-secret-key"
	testBucket    = "lro-test"
)

func TestMain(m *testing.M) {
	// The AWS SDK reads its credentials from the environment; no shared
	// file or instance metadata of the machine may interfere.
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           testAccessKey,
		"AWS_SECRET_ACCESS_KEY":       testSecretKey,
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		os.Setenv(k, v)
	}
	code := m.Run()
	vgw.stop()
	os.Exit(code)
}

// backend is one kind of store that every contract test runs against.
type backend struct {
	name string
	// open returns a new, empty Store configured by opts.
	open func(t *testing.T, opts *store.Options) *store.Store
}

// backends returns the stores to test: a folder, memblob, fileblob, S3
// through gofakes3 (in process) and S3 through versitygw (a real server;
// see startVersitygw).
func backends() []backend {
	return []backend{
		{"folder", func(t *testing.T, opts *store.Options) *store.Store {
			s, err := store.NewFolder(filepath.Join(t.TempDir(), "out"), opts)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
		{"memblob", func(t *testing.T, opts *store.Options) *store.Store {
			b := memblob.OpenBucket(nil)
			t.Cleanup(func() { b.Close() })
			s, err := store.NewBucket(blobstore.New(b), opts)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}},
		{"fileblob", func(t *testing.T, opts *store.Options) *store.Store {
			return openURL(t, "file://"+filepath.ToSlash(t.TempDir()), opts)
		}},
		{"gofakes3", func(t *testing.T, opts *store.Options) *store.Store {
			return openURL(t, s3URL(fakeS3(t), testBucket), opts)
		}},
		{"versitygw", func(t *testing.T, opts *store.Options) *store.Store {
			return openURL(t, s3URL(versitygw(t), newBucketName(t)), opts)
		}},
	}
}

// openURL returns the Store of a bucket URL, closed at the end of the test.
func openURL(t testing.TB, url string, opts *store.Options) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// s3URL returns the bucket URL of bucket on the S3 server at endpoint.
func s3URL(endpoint, bucket string) string {
	return "s3://" + bucket + "?endpoint=" + endpoint + "&region=us-east-1&use_path_style=true"
}

// fakeS3 starts an in-process gofakes3 server with one empty bucket and
// returns its endpoint.
func fakeS3(t *testing.T) string {
	t.Helper()
	be := s3mem.New()
	if err := be.CreateBucket(testBucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(be).Server())
	t.Cleanup(srv.Close)
	return srv.URL
}

// vgw is the versitygw server the tests of one run share.
var vgw server

// server is a versitygw process serving a temporary folder.
type server struct {
	once     sync.Once
	endpoint string
	root     string
	cmd      *exec.Cmd
	err      error
	buckets  sync.Map // bucket names made so far
}

// versitygwVersion is the version .ci/run installs.
const versitygwVersion = "v1.8.0"

// versitygw returns the endpoint of a versitygw S3 server with its POSIX
// backend, started on the first call of the run. Without the versitygw
// binary on the PATH, it skips the test, but fails it when CI is "true":
// .ci/run installs it there.
func versitygw(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("versitygw")
	if err != nil {
		msg := fmt.Sprintf("versitygw not found on the PATH (go install github.com/versity/versitygw/cmd/versitygw@%s): %v", versitygwVersion, err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	vgw.once.Do(func() { vgw.start(bin) })
	if vgw.err != nil {
		t.Fatal(vgw.err)
	}
	return vgw.endpoint
}

// start starts versitygw on a free port with a new root folder and waits
// until it answers, trying another port if the first is taken meanwhile.
func (s *server) start(bin string) {
	s.root, s.err = os.MkdirTemp("", "lro-versitygw-")
	if s.err != nil {
		return
	}
	for attempt := 1; attempt <= 3; attempt++ {
		var l net.Listener
		if l, s.err = net.Listen("tcp", "127.0.0.1:0"); s.err != nil {
			return
		}
		addr := l.Addr().String()
		l.Close()
		var log strings.Builder
		s.cmd = exec.Command(bin, "--port", addr, "--access", testAccessKey, "--secret", testSecretKey, "--quiet", "posix", s.root)
		s.cmd.Stdout, s.cmd.Stderr = &log, &log
		if s.err = s.cmd.Start(); s.err != nil {
			return
		}
		exited := make(chan error, 1)
		go func() { exited <- s.cmd.Wait() }()
		s.endpoint = "http://" + addr
		if s.err = waitReady(s.endpoint, exited); s.err == nil {
			return
		}
		s.err = fmt.Errorf("versitygw at %s: %w; its output:\n%s", addr, s.err, log.String())
		s.cmd.Process.Kill()
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
		resp, err := http.Get(endpoint)
		if err == nil {
			resp.Body.Close()
			return nil // any answer: 403 to an anonymous request
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("not answering after a minute")
}

// stop ends the server and removes its folder.
func (s *server) stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
	if s.root != "" {
		os.RemoveAll(s.root)
	}
}

// newBucketName makes a new empty bucket on the versitygw server (a folder
// of its root) and returns its name.
func newBucketName(t testing.TB) string {
	t.Helper()
	name := strings.ToLower(fmt.Sprintf("t%d", time.Now().UnixNano()))
	if err := os.Mkdir(filepath.Join(vgw.root, name), 0o700); err != nil {
		t.Fatal(err)
	}
	return name
}

// keys returns the keys of every object of the Store's bucket, or the
// names of every entry of its folder (hidden temporary files included).
func keys(t *testing.T, s *store.Store) []string {
	t.Helper()
	var got []string
	if s.Bucket() == nil {
		entries, err := os.ReadDir(s.Dir())
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		for _, e := range entries {
			got = append(got, e.Name())
		}
		return got
	}
	err := s.Bucket().List(context.Background(), "", func(key string) error {
		got = append(got, key)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}
