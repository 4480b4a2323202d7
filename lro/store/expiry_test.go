package store_test

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/internal/testing/wire"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/store"
)

// offload offloads a result through lro with the Store s, which runs on
// its own clock, and returns the handle. No automatic janitor runs: the
// tests sweep.
func offload(t *testing.T, s *store.Store) string {
	t.Helper()
	opts := &lro.Options{Store: s, CleanupInterval: -1}
	res, err := lro.Wrap(itemsHandler(200), opts)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := res.StructuredContent.(json.RawMessage)
	var d offloadResponse
	if !ok || json.Unmarshal(raw, &d) != nil || d.Handle == "" {
		t.Fatalf("not offloaded: %v", res.Content)
	}
	return d.Handle
}

// share returns a Store configured by opts over the folder or bucket of s.
func share(t *testing.T, s *store.Store, opts *store.Options) *store.Store {
	t.Helper()
	var other *store.Store
	var err error
	if s.Bucket() != nil {
		other, err = store.NewBucket(s.Bucket(), opts)
	} else {
		other, err = store.Open(context.Background(), s.Dir(), opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return other
}

// putBare writes the object of key in the bucket of s again, without a
// recorded expiry, as a store did before they were recorded.
func putBare(t *testing.T, s *store.Store, key string) string {
	t.Helper()
	data := readAll(t, s, key)
	w, err := s.Bucket().NewWriter(context.Background(), key, spec.ContentType, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return key
}

// sorted returns names sorted, nil if there are none.
func sorted(names ...string) []string {
	if len(names) == 0 {
		return nil
	}
	return slices.Sorted(slices.Values(names))
}

// janitor returns a janitor of TTL ttl over the folder or bucket of s.
func janitor(t *testing.T, s *store.Store, ttl time.Duration) *cleanup.Janitor {
	t.Helper()
	o := &cleanup.Options{Prefix: s.Prefix(), TTL: ttl}
	if s.Bucket() != nil {
		o.Bucket = s.Bucket()
	} else {
		o.Dir = s.Dir()
	}
	j, err := cleanup.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestExpiryTwoTTLs writes results through two stores of different TTLs
// (one hour, three hours) over one folder or bucket, as two replicas or
// servers would, and sweeps it with a janitor of each TTL: each deletes
// only the files whose own recorded expiry has passed (the files of the
// three-hour store stay two hours in, whatever the one-hour janitor's
// TTL), and a file that records none, written before expiries were
// recorded, is swept by the janitor's TTL as before.
func TestExpiryTwoTTLs(t *testing.T) {
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			clk := newClock(t0)
			short := store.WithClock(be.open(t, &store.Options{TTL: time.Hour}), clk.now)
			long := store.WithClock(share(t, short, &store.Options{TTL: 3 * time.Hour}), clk.now)
			a := offload(t, short)
			b := offload(t, long)
			old, _ := write(t, short, 1, 10) // by Create alone: no expiry recorded in a folder
			if short.Bucket() != nil {
				old = putBare(t, short, old)
			}
			j1, j3 := janitor(t, short, time.Hour), janitor(t, short, 3*time.Hour)

			sweep := func(j *cleanup.Janitor, at time.Time) {
				t.Helper()
				if _, err := j.Sweep(context.Background(), at); err != nil {
					t.Fatal(err)
				}
			}
			sweep(j3, t0.Add(2*time.Hour))
			if diff := cmp.Diff(sorted(a, b, old), sorted(keys(t, short)...)); diff != "" {
				t.Errorf("the three-hour janitor two hours in (-want +got):\n%s", diff)
			}
			sweep(j1, t0.Add(2*time.Hour))
			if diff := cmp.Diff(sorted(b), sorted(keys(t, short)...)); diff != "" {
				t.Errorf("the one-hour janitor two hours in (-want +got):\n%s", diff)
			}
			if _, err := long.NewReader(context.Background(), b); err != nil {
				t.Errorf("the three-hour handle two hours in: %v", err)
			}
			sweep(j1, t0.Add(4*time.Hour))
			if diff := cmp.Diff([]string(nil), sorted(keys(t, short)...)); diff != "" {
				t.Errorf("the one-hour janitor four hours in (-want +got):\n%s", diff)
			}
		})
	}
}

// TestExpirySlowWrite offloads a result whose write takes longer than the
// TTL on the stores' clock: its handle is valid when handed out, and a
// janitor of the same TTL keeps the file, since its expiry counts from
// the write's end (for a bucket, its deadline), not from its start.
func TestExpirySlowWrite(t *testing.T) {
	const ttl = 10 * time.Second
	const took = 75 * time.Second // past TTL + disk.SkewMargin
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			clk := newClock(t0)
			slow := func(w io.Writer) io.Writer {
				clk.set(t0.Add(took))
				return w
			}
			s := store.WithWriter(store.WithClock(be.open(t, &store.Options{TTL: ttl, WriteTimeout: 5 * time.Minute}), clk.now), slow)
			h := offload(t, s)
			if r, err := s.NewReader(context.Background(), h); err != nil {
				t.Errorf("the handle of a slow write, handed out: %v", err)
			} else {
				r.Close()
			}
			if _, err := janitor(t, s, ttl).Sweep(context.Background(), clk.now().Add(time.Second)); err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(keys(t, s), h) {
				t.Errorf("a janitor deleted the file of a slow write a second after it was handed out")
			}
		})
	}
}

// offloadResponse is what these tests read of a descriptor.
type offloadResponse = wire.Descriptor
