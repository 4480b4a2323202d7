package cleanup_test

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/testing/sidebyside"
)

// benchFiles is the number of offload files in the folder of the benchmarks.
const benchFiles = 10_000

// benchNames returns benchFiles offload file names created one millisecond
// apart, the newest at t0.
func benchNames() []string {
	names := make([]string, benchFiles)
	for i := range names {
		at := t0.Add(-time.Duration(i) * time.Millisecond)
		names[i] = disk.Name("", "recall", ulid.MustNew(ulid.Timestamp(at), rand.Reader))
	}
	return names
}

// fill creates an empty file for each name in dir. The janitor reads names
// only, never content, so empty files are swept exactly as real ones are,
// and are much faster to make between timed runs than with jsonl.
func fill(b *testing.B, dir string, names []string) {
	b.Helper()
	for _, name := range names {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkSweepNoneExpired sweeps a folder of 10,000 offload files, none
// expired (so every iteration does the same work), side by side with listing
// the folder with os.ReadDir. The ratio is what a sweep costs over the
// listing it cannot avoid.
func BenchmarkSweepNoneExpired(b *testing.B) {
	dir := b.TempDir()
	fill(b, dir, benchNames())
	j, err := cleanup.New(&cleanup.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	sweep := func() {
		res, err := j.Sweep(ctx, t0)
		if err != nil || res.Kept != benchFiles || res.Expired != 0 {
			b.Fatalf("Sweep = %+v, %v; want %d files kept", res, err, benchFiles)
		}
	}
	readDir := func() {
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) != benchFiles {
			b.Fatalf("ReadDir = %d entries, %v", len(entries), err)
		}
	}
	sidebyside.Run(b, sidebyside.Arm{Name: "sweep", Run: sweep}, sidebyside.Arm{Name: "readdir", Run: readDir})
}

// BenchmarkSweepAllExpired sweeps a folder of 10,000 offload files that have
// all expired, so the sweep removes every one (OnExpired is nil), side by side with os.ReadDir of the same full folder. The
// files are re-created before each timed call, outside the timed section;
// the ns/op that the testing package prints includes that re-creation, the
// medians do not.
func BenchmarkSweepAllExpired(b *testing.B) {
	dir := b.TempDir()
	names := benchNames()
	j, err := cleanup.New(&cleanup.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	full := false
	ensureFull := func() {
		if !full {
			fill(b, dir, names)
			full = true
		}
	}
	sweep := func() {
		res, err := j.Sweep(ctx, t0.Add(2*time.Hour))
		if err != nil || res.Expired != benchFiles {
			b.Fatalf("Sweep = %+v, %v; want %d files expired", res, err, benchFiles)
		}
		full = false
	}
	readDir := func() {
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) != benchFiles {
			b.Fatalf("ReadDir = %d entries, %v", len(entries), err)
		}
	}
	sidebyside.Run(b, sidebyside.Arm{Name: "sweep", Prep: ensureFull, Run: sweep}, sidebyside.Arm{Name: "readdir", Prep: ensureFull, Run: readDir})
}
