package store_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	_ "gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/zircote/lro-go/internal/testing/s3test"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

const testBucket = "lro-test"

func TestMain(m *testing.M) {
	s3test.Setenv()
	code := m.Run()
	s3test.Stop()
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
			s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "out"), opts)
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
			return openURL(t, s3test.URL(fakeS3(t), testBucket), opts)
		}},
		{"versitygw", func(t *testing.T, opts *store.Options) *store.Store {
			return openURL(t, s3test.Bucket(t), opts)
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
