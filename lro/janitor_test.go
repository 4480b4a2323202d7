package lro_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
)

// TestStartJanitor offloads two results at different times with the same
// options, then starts the janitor of those options: its first sweep deletes
// the file whose TTL has passed, with an event, and keeps the other.
func TestStartJanitor(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	now := t0
	rec := &recorder{}
	opts := &lro.Options{
		OutputDir: t.TempDir(),
		TTL:       10 * time.Minute,
		Observer:  rec,
		Now:       func() time.Time { return now },
	}
	offload := func() string {
		res, err := lro.Wrap(textHandler(200), opts)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
		if err != nil {
			t.Fatal(err)
		}
		return descriptorOf(t, res).FilePath
	}
	old := offload()
	now = t0.Add(5 * time.Minute)
	fresh := offload()
	now = t0.Add(10 * time.Minute) // old's TTL has just passed; fresh's has not

	synctest.Test(t, func(t *testing.T) {
		j, err := lro.StartJanitor(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the first sweep is done; the janitor waits for the next
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("expired file %s: stat error %v, want it deleted", old, err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh file %s: %v, want it kept", fresh, err)
	}
	var expired []event.FileExpired
	for _, e := range rec.all() {
		if fe, ok := e.(event.FileExpired); ok {
			expired = append(expired, fe)
		}
	}
	want := []event.FileExpired{{Path: old, CreatedAt: t0, TTL: 10 * time.Minute}}
	if diff := cmp.Diff(want, expired); diff != "" {
		t.Errorf("FileExpired events (-want +got):\n%s", diff)
	}
}

func TestCleanupOptions(t *testing.T) {
	if _, err := (&lro.Options{CleanupInterval: -time.Second}).CleanupOptions(); err == nil {
		t.Error("a negative CleanupInterval was accepted")
	}
	co, err := (&lro.Options{OutputDir: "rel", Prefix: "p"}).CleanupOptions()
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(co.Dir) || co.Prefix != "p" || co.TTL != lro.DefaultTTL || co.Interval != time.Hour {
		t.Errorf("CleanupOptions = %+v, want an absolute dir, prefix p, the default TTL and interval", co)
	}
}
