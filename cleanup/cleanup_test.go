package cleanup_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/jsonl"
)

// t0 is the "now" of the sweeps of these tests.
var t0 = time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)

// offload writes a complete offload file into dir with jsonl, as of time at,
// and returns its path.
func offload(t testing.TB, dir, prefix string, at time.Time) string {
	t.Helper()
	w, err := createAt(dir, prefix, "recall", at, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Count: 1, SchemaVersion: "1.0", Detail: "full"}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{"id":"m1"}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return w.Path()
}

// leftover makes in dir the temporary file of an offload started with
// prefix at time at by a process that died while writing it: a part of its
// header, and no lock, since the system released the dead process's. It
// returns the temporary file's path.
func leftover(t testing.TB, dir, prefix string, at time.Time) string {
	t.Helper()
	id := ulid.MustNew(ulid.Timestamp(at), rand.Reader)
	tmp := filepath.Join(dir, disk.TempName(disk.Name(prefix, "recall", id)))
	return writeFile(t, tmp, `{"type":"lro_header","operation":"rec`)
}

// nameAt returns a fresh offload file name of the default prefix with the
// creation time at.
func nameAt(at time.Time) string {
	return disk.Name("", "recall", ulid.MustNew(ulid.Timestamp(at), rand.Reader))
}

// expired is one call of OnExpired.
type expired struct {
	Path      string
	CreatedAt time.Time
	Temporary bool
}

// recorder keeps every call of its OnExpired.
type recorder struct {
	mu     sync.Mutex
	events []expired
}

func (r *recorder) OnExpired(_ context.Context, path string, created time.Time, temporary bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, expired{path, created, temporary})
}

func (r *recorder) got() []expired {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func writeFile(t testing.TB, path, data string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func symlink(t testing.TB, target, link string) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	return link
}

func mkdir(t testing.TB, path string) string {
	t.Helper()
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

func exists(t testing.TB, path string) bool {
	t.Helper()
	_, err := os.Lstat(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return err == nil
}

// TestSweep sweeps one folder holding every kind of entry the janitor must
// delete or leave alone, and checks each entry, the events and the Result.
func TestSweep(t *testing.T) {
	const ttl = time.Hour
	dir := t.TempDir()     // the swept folder
	outside := t.TempDir() // another folder
	outsideTarget := offload(t, outside, "", t0.Add(-2*time.Hour))
	notes := writeFile(t, filepath.Join(dir, "notes.txt"), "mine")
	sub := mkdir(t, filepath.Join(dir, "sub"))

	type entry struct {
		name    string
		path    string    // made by the case
		removed bool      // want the path gone after the sweep
		created time.Time // want created_at of the event, when removed
		temp    bool      // want Temporary of the event, when removed
		target  string    // a file that must survive, for symlinks
		reason  string
	}
	expiredDir := mkdir(t, filepath.Join(dir, nameAt(t0.Add(-2*time.Hour))))
	entries := []entry{
		{name: "expired", path: offload(t, dir, "", t0.Add(-2*time.Hour)), removed: true, created: t0.Add(-2 * time.Hour),
			reason: "created 2h before now with a 1h TTL"},
		{name: "expires exactly now", path: offload(t, dir, "", t0.Add(-ttl)), removed: true, created: t0.Add(-ttl),
			reason: "created_at + TTL == now counts as elapsed"},
		{name: "content not read", path: writeFile(t, filepath.Join(dir, nameAt(t0.Add(-90*time.Minute))), "not JSONL at all"),
			removed: true, created: t0.Add(-90 * time.Minute),
			reason: "the name alone decides; the janitor never opens a file"},
		{name: "fresh by 1ms", path: offload(t, dir, "", t0.Add(-ttl+time.Millisecond)),
			reason: "created_at + TTL is 1ms after now"},
		{name: "fresh", path: offload(t, dir, "", t0.Add(-10*time.Minute)), reason: "created 10 minutes ago"},
		{name: "future dated", path: offload(t, dir, "", t0.Add(time.Hour)),
			reason: "a clock ahead of ours made it; it expires 1h after its own time"},
		{name: "expired temp", path: leftover(t, dir, "", t0.Add(-48*time.Hour)), removed: true, created: t0.Add(-48 * time.Hour), temp: true,
			reason: "a write interrupted two days ago left it: older than TTL plus the grace of systems without locks, and unlocked"},
		{name: "fresh temp", path: leftover(t, dir, "", t0.Add(-5*time.Minute)),
			reason: "younger than the TTL: kept by age alone, without a look at its lock"},
		{name: "other name", path: notes, reason: "not an offload file name"},
		{name: "no ULID", path: writeFile(t, filepath.Join(dir, "atlatl-recall.jsonl"), ""), reason: "no ULID, no created_at"},
		{name: "lower-case ULID", path: writeFile(t, filepath.Join(dir, strings.ToLower(nameAt(t0.Add(-2*time.Hour)))), ""),
			reason: "disk.Name writes ULIDs in upper case; so lower case is not ours"},
		{name: "other extension", path: writeFile(t, filepath.Join(dir, nameAt(t0.Add(-2*time.Hour))+".bak"), ""),
			reason: "a copy someone made is not an offload file"},
		{name: "other prefix", path: offload(t, dir, "other", t0.Add(-2*time.Hour)), reason: "another prefix's files belong to another janitor"},
		{name: "prefix extending ours", path: offload(t, dir, "atlatl-x", t0.Add(-2*time.Hour)),
			reason: "atlatl-x-recall-… has prefix atlatl-x, not atlatl with operation x-recall"},
		{name: "temp of other prefix", path: leftover(t, dir, "other", t0.Add(-48*time.Hour)), reason: "another prefix's temporary file"},
		{name: "subfolder named like expired file", path: expiredDir, reason: "folders are never removed"},
		{name: "file in that subfolder", path: writeFile(t, filepath.Join(expiredDir, "data"), "x"), reason: "the janitor does not recurse"},
		{name: "expired file in a subfolder", path: offload(t, sub, "", t0.Add(-2*time.Hour)), reason: "the janitor does not recurse"},
		{name: "file in another folder", path: outsideTarget, reason: "only Dir is swept"},
		{name: "symlink to a file outside", path: symlink(t, outsideTarget, filepath.Join(dir, nameAt(t0.Add(-2*time.Hour)))),
			target: outsideTarget, reason: "a symlink is neither followed nor removed, even named like an expired file"},
		{name: "relative symlink to a file inside", path: symlink(t, "notes.txt", filepath.Join(dir, nameAt(t0.Add(-2*time.Hour)))),
			target: notes, reason: "a symlink is neither followed nor removed"},
		{name: "symlink named like an expired temp", path: symlink(t, outsideTarget, filepath.Join(dir, "."+nameAt(t0.Add(-48*time.Hour))+".tmp")),
			target: outsideTarget, reason: "a symlink is neither followed nor removed"},
		{name: "dangling symlink", path: symlink(t, filepath.Join(outside, "missing"), filepath.Join(dir, nameAt(t0.Add(-2*time.Hour)))),
			reason: "a symlink is neither followed nor removed"},
	}
	listed, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}

	rec := &recorder{}
	j, err := cleanup.New(&cleanup.Options{Dir: dir, TTL: ttl, OnExpired: rec.OnExpired})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Sweep(context.Background(), t0)
	if err != nil {
		t.Fatalf("Sweep: %v", err)
	}

	var wantEvents []expired
	for _, e := range entries {
		if got := !exists(t, e.path); got != e.removed {
			t.Errorf("%s (%s): removed = %v, want %v: %s", e.name, filepath.Base(e.path), got, e.removed, e.reason)
		}
		if e.target != "" && !exists(t, e.target) {
			t.Errorf("%s: target %s was removed: %s", e.name, e.target, e.reason)
		}
		if e.removed {
			wantEvents = append(wantEvents, expired{Path: e.path, CreatedAt: e.created, Temporary: e.temp})
		}
	}
	if data, err := os.ReadFile(outsideTarget); err != nil || !strings.HasPrefix(string(data), `{"type":"lro_header"`) {
		t.Errorf("symlink target outside the folder: %q, %v; want it intact", data, err)
	}
	// Events come oldest first.
	slices.SortFunc(wantEvents, func(a, b expired) int {
		return a.CreatedAt.Compare(b.CreatedAt)
	})
	if diff := cmp.Diff(wantEvents, rec.got()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	want := cleanup.Counts{
		Scanned:     len(listed),
		Expired:     4, // expired, expires exactly now, content not read, expired temp
		TempRemoved: 1, // expired temp
		Kept:        4, // fresh by 1ms, fresh, future dated, fresh temp
		Skipped:     5, // the expired-named subfolder and four symlinks
		NextExpiry:  t0.Add(time.Millisecond),
	}
	if diff := cmp.Diff(want, cleanup.CountsOf(res)); diff != "" {
		t.Errorf("Result (-want +got):\n%s", diff)
	}

	// A second sweep at the same time finds nothing more to do.
	res, err = j.Sweep(context.Background(), t0)
	want.Scanned -= want.Expired
	want.Expired, want.TempRemoved = 0, 0
	if diff := cmp.Diff(want, cleanup.CountsOf(res)); err != nil || diff != "" {
		t.Errorf("second Sweep = %v, Result (-want +got):\n%s", err, diff)
	}
	if n := len(rec.got()); n != len(wantEvents) {
		t.Errorf("second Sweep emitted %d events", n-len(wantEvents))
	}
}

// TestSweepDuringRemoval changes the folder between the janitor's lstat of an
// expired file and its removal.
func TestSweepDuringRemoval(t *testing.T) {
	tests := []struct {
		name string
		// change changes the first file and returns a path that must
		// survive the sweep, if any.
		change     func(t *testing.T, path string) (survivor string)
		wantResult cleanup.Counts
		wantFirst  bool // want an event for the first file
		wantErr    bool
		reason     string
	}{
		{
			name: "vanished",
			change: func(t *testing.T, path string) string {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				return ""
			},
			wantResult: cleanup.Counts{Scanned: 2, Expired: 1, Vanished: 1},
			reason:     "a file another janitor removed first is not an error and has no event",
		},
		{
			name: "replaced by a symlink to a file outside",
			change: func(t *testing.T, path string) string {
				target := writeFile(t, filepath.Join(t.TempDir(), "target"), "outside")
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				symlink(t, target, path)
				return target
			},
			wantResult: cleanup.Counts{Scanned: 2, Expired: 2},
			wantFirst:  true,
			reason:     "the documented race: the link itself is removed, never its target",
		},
		{
			name: "replaced by a folder with content",
			change: func(t *testing.T, path string) string {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				mkdir(t, path)
				return writeFile(t, filepath.Join(path, "keep"), "x")
			},
			wantResult: cleanup.Counts{Scanned: 2, Expired: 1},
			wantErr:    true,
			reason:     "a folder that is not empty cannot be removed: an error naming it, and the sweep goes on",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			first := offload(t, dir, "", t0.Add(-3*time.Hour))
			second := offload(t, dir, "", t0.Add(-2*time.Hour))
			rec := &recorder{}
			j, err := cleanup.New(&cleanup.Options{Dir: dir, OnExpired: rec.OnExpired})
			if err != nil {
				t.Fatal(err)
			}
			survivor := ""
			cleanup.SetBeforeRemove(j, func(name string) {
				if name == filepath.Base(first) {
					survivor = tt.change(t, first)
				}
			})
			res, err := j.Sweep(context.Background(), t0)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Sweep error = %v, want error %v: %s", err, tt.wantErr, tt.reason)
			}
			if err != nil && (!strings.Contains(err.Error(), first) || !strings.HasPrefix(err.Error(), "cleanup: ")) {
				t.Errorf("Sweep error %q does not name %s", err, first)
			}
			if diff := cmp.Diff(tt.wantResult, cleanup.CountsOf(res)); diff != "" {
				t.Errorf("Result (-want +got): %s\n%s", tt.reason, diff)
			}
			want := []expired{{Path: second, CreatedAt: t0.Add(-2 * time.Hour)}}
			if tt.wantFirst {
				want = slices.Insert(want, 0, expired{Path: first, CreatedAt: t0.Add(-3 * time.Hour)})
			}
			if diff := cmp.Diff(want, rec.got()); diff != "" {
				t.Errorf("events (-want +got): %s\n%s", tt.reason, diff)
			}
			if exists(t, second) {
				t.Errorf("%s survived; the sweep must go on past the first file", second)
			}
			if survivor != "" && !exists(t, survivor) {
				t.Errorf("%s was removed: %s", survivor, tt.reason)
			}
		})
	}
}

func TestSweepCanceled(t *testing.T) {
	t.Run("before", func(t *testing.T) {
		dir := t.TempDir()
		path := offload(t, dir, "", t0.Add(-2*time.Hour))
		j, err := cleanup.New(&cleanup.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := j.Sweep(ctx, t0)
		if !errors.Is(err, context.Canceled) || res != (cleanup.Result{}) || !exists(t, path) {
			t.Errorf("Sweep with a canceled context = %+v, %v and file kept %v; want nothing done and context.Canceled", res, err, exists(t, path))
		}
	})
	t.Run("between removals", func(t *testing.T) {
		dir := t.TempDir()
		first := offload(t, dir, "", t0.Add(-3*time.Hour))
		second := offload(t, dir, "", t0.Add(-2*time.Hour))
		rec := &recorder{}
		j, err := cleanup.New(&cleanup.Options{Dir: dir, OnExpired: rec.OnExpired})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cleanup.SetBeforeRemove(j, func(string) { cancel() }) // the removal under way completes
		res, err := j.Sweep(ctx, t0)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Sweep error = %v, want context.Canceled", err)
		}
		if diff := cmp.Diff(cleanup.Counts{Scanned: 2, Expired: 1}, cleanup.CountsOf(res)); diff != "" {
			t.Errorf("Result (-want +got):\n%s", diff)
		}
		if exists(t, first) || !exists(t, second) || len(rec.got()) != 1 {
			t.Errorf("after cancel: first exists %v, second exists %v, %d events; want the oldest removed with its event, the other kept",
				exists(t, first), exists(t, second), len(rec.got()))
		}
	})
}

func TestSweepFolder(t *testing.T) {
	t.Run("missing", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "not-yet")
		j, err := cleanup.New(&cleanup.Options{Dir: dir})
		if err != nil {
			t.Fatalf("New with a missing folder: %v", err)
		}
		res, err := j.Sweep(context.Background(), t0)
		if err != nil || res != (cleanup.Result{}) {
			t.Errorf("Sweep of a missing folder = %+v, %v; want nothing to do and no error", res, err)
		}
		if exists(t, dir) {
			t.Errorf("Sweep created %s", dir)
		}
	})
	t.Run("became a file", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "dir")
		j, err := cleanup.New(&cleanup.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, "")
		_, err = j.Sweep(context.Background(), t0)
		// os.OpenRoot says "not a directory" with an error of its own, not
		// syscall.ENOTDIR.
		if err == nil || !strings.HasPrefix(err.Error(), "cleanup: ") || !strings.Contains(err.Error(), dir) {
			t.Errorf("Sweep of a file = %v, want a cleanup error naming %s", err, dir)
		}
	})
	t.Run("below a file", func(t *testing.T) {
		dir := filepath.Join(writeFile(t, filepath.Join(t.TempDir(), "file"), ""), "dir")
		j, err := cleanup.New(&cleanup.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		_, err = j.Sweep(context.Background(), t0)
		var pe *os.PathError
		if !errors.As(err, &pe) || pe.Path != dir {
			t.Errorf("Sweep of a folder below a file = %v, want an error about %s", err, dir)
		}
	})
	t.Run("relative", func(t *testing.T) {
		dir := t.TempDir()
		path := offload(t, dir, "", t0.Add(-2*time.Hour))
		t.Chdir(dir)
		rec := &recorder{}
		j, err := cleanup.New(&cleanup.Options{Dir: ".", OnExpired: rec.OnExpired})
		if err != nil {
			t.Fatal(err)
		}
		t.Chdir(t.TempDir()) // the folder was made absolute in New
		res, err := j.Sweep(context.Background(), t0)
		if err != nil || res.Expired != 1 {
			t.Fatalf("Sweep = %+v, %v; want one file expired", res, err)
		}
		if got := rec.got()[0].Path; got != path {
			t.Errorf("event path = %s, want the absolute %s", got, path)
		}
	})
}

// TestSweepSchedule sweeps as a server that schedules Sweep every hour
// would: at start, an hour later and two hours later, with a file offloaded
// in between. Each sweep deletes the files due by its time (a file due
// exactly then included) and no other.
func TestSweepSchedule(t *testing.T) {
	dir := t.TempDir()
	a := offload(t, dir, "", t0.Add(-time.Hour)) // due at t0
	b := offload(t, dir, "", t0)                 // due at t0 + 1h
	rec := &recorder{}
	j, err := cleanup.New(&cleanup.Options{Dir: dir, OnExpired: rec.OnExpired})
	if err != nil {
		t.Fatal(err)
	}
	var want []expired
	sweep := func(at time.Duration, due expired) {
		t.Helper()
		if _, err := j.Sweep(context.Background(), t0.Add(at)); err != nil {
			t.Fatalf("Sweep at t0 + %v: %v", at, err)
		}
		want = append(want, due)
		if diff := cmp.Diff(want, rec.got()); diff != "" {
			t.Errorf("events after the sweep at t0 + %v (-want +got):\n%s", at, diff)
		}
	}
	sweep(0, expired{Path: a, CreatedAt: t0.Add(-time.Hour)})
	c := offload(t, dir, "", t0.Add(30*time.Minute)) // due at t0 + 1h30m
	sweep(time.Hour, expired{Path: b, CreatedAt: t0})
	sweep(2*time.Hour, expired{Path: c, CreatedAt: t0.Add(30 * time.Minute)})
}

// TestSweepTTL sweeps with a TTL of a day and ten minutes: a file is kept a
// day after it was made and deleted a quarter of an hour later.
func TestSweepTTL(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "", t0)
	rec := &recorder{}
	j, err := cleanup.New(&cleanup.Options{Dir: dir, OnExpired: rec.OnExpired, TTL: 24*time.Hour + 10*time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Duration{24 * time.Hour, 24*time.Hour + 15*time.Minute} {
		if _, err := j.Sweep(context.Background(), t0.Add(at)); err != nil {
			t.Fatalf("Sweep at t0 + %v: %v", at, err)
		}
		var want []expired
		if at > 24*time.Hour+10*time.Minute {
			want = []expired{{Path: path, CreatedAt: t0}}
		}
		if diff := cmp.Diff(want, rec.got()); diff != "" {
			t.Errorf("events after the sweep at t0 + %v (-want +got):\n%s", at, diff)
		}
	}
}

// TestDefaults sweeps os.TempDir, the default folder, with a prefix of this
// test alone, and checks the default TTL of one hour.
func TestDefaults(t *testing.T) {
	prefix := fmt.Sprintf("lrocleanuptest%d", time.Now().UnixNano())
	expiredPath := offload(t, "", prefix, t0.Add(-time.Hour))
	fresh := offload(t, "", prefix, t0.Add(-time.Hour+time.Millisecond))
	t.Cleanup(func() { os.Remove(expiredPath); os.Remove(fresh) })
	rec := &recorder{}
	j, err := cleanup.New(&cleanup.Options{Prefix: prefix, OnExpired: rec.OnExpired})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Sweep(context.Background(), t0)
	if err != nil {
		t.Logf("Sweep of %s: %v (errors about other files are not this test's)", os.TempDir(), err)
	}
	if res.Expired != 1 || res.Kept != 1 || exists(t, expiredPath) || !exists(t, fresh) {
		t.Errorf("Sweep = %+v; want the file of exactly one hour ago removed and the younger kept", res)
	}
	want := []expired{{Path: expiredPath, CreatedAt: t0.Add(-time.Hour)}}
	if diff := cmp.Diff(want, rec.got()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if cleanup.DefaultTTL != 3600*time.Second {
		t.Errorf("DefaultTTL = %v; the specification says 3600 s", cleanup.DefaultTTL)
	}
}

func TestNewInvalid(t *testing.T) {
	file := writeFile(t, filepath.Join(t.TempDir(), "file"), "")
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    cleanup.Options
		field   string
		wrapped error // also wrapped
		reason  string
	}{
		{name: "negative TTL", opts: cleanup.Options{TTL: -time.Second}, field: "Options.TTL", reason: "a file cannot expire before it is made"},
		{name: "prefix with a slash", opts: cleanup.Options{Prefix: "a/b"}, field: "Options.Prefix", wrapped: disk.ErrInvalidPrefix,
			reason: "jsonl.Create would reject it, so no such files exist"},
		{name: "hidden prefix", opts: cleanup.Options{Prefix: ".atlatl"}, field: "Options.Prefix", wrapped: disk.ErrInvalidPrefix,
			reason: "a prefix starting with a dot would match hidden files"},
		{name: "Dir is a file", opts: cleanup.Options{Dir: file}, field: "Options.Dir", reason: "a file cannot hold offload files"},
		{name: "Dir writable by others", opts: cleanup.Options{Dir: open}, field: "Options.Dir", wrapped: disk.ErrUnsafeDir,
			reason: "no offload file is written there, and another user could swap the folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := cleanup.New(&tt.opts)
			if j != nil || err == nil || !strings.HasPrefix(err.Error(), "cleanup: invalid "+tt.field) {
				t.Errorf("New = %v, %v; want an error naming %s as invalid: %s", j, err, tt.field, tt.reason)
			}
			if tt.wrapped != nil && !errors.Is(err, tt.wrapped) {
				t.Errorf("New = %v, want it to wrap %v too", err, tt.wrapped)
			}
		})
	}
}

// TestNewCopiesOptions changes the Options after New.
func TestNewCopiesOptions(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "", t0.Add(-2*time.Hour))
	opts := &cleanup.Options{Dir: dir}
	j, err := cleanup.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Dir, opts.TTL = t.TempDir(), 10*time.Hour
	if res, err := j.Sweep(context.Background(), t0); err != nil || res.Expired != 1 || exists(t, path) {
		t.Errorf("Sweep = %+v, %v; want the Options as they were at New", res, err)
	}
}

// TestConcurrentSweeps runs sweeps of one folder from several goroutines and
// Janitors at once: each file is removed once and reported once.
func TestConcurrentSweeps(t *testing.T) {
	const files, janitors = 200, 4
	dir := t.TempDir()
	var want []string
	for i := range files {
		want = append(want, filepath.Join(dir, nameAt(t0.Add(-2*time.Hour-time.Duration(i)*time.Millisecond))))
		writeFile(t, want[i], "")
	}
	rec := &recorder{}
	shared, err := cleanup.New(&cleanup.Options{Dir: dir, OnExpired: rec.OnExpired})
	if err != nil {
		t.Fatal(err)
	}
	other, err := cleanup.New(&cleanup.Options{Dir: dir, OnExpired: rec.OnExpired})
	if err != nil {
		t.Fatal(err)
	}
	results := make([]cleanup.Result, janitors)
	var wg sync.WaitGroup
	for i := range janitors {
		j := shared
		if i == 0 {
			j = other
		}
		wg.Go(func() {
			var err error
			results[i], err = j.Sweep(context.Background(), t0)
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	removed := 0
	for _, r := range results {
		removed += r.Expired
	}
	var got []string
	for _, e := range rec.got() {
		got = append(got, e.Path)
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" || removed != files {
		t.Errorf("%d removals counted, events (-want +got):\n%s", removed, diff)
	}
}

// createAt starts the file of operation in dir, as jsonl.Create does, under
// a name of time at, writing through wrap if not nil.
func createAt(dir, prefix, operation string, at time.Time, wrap func(io.Writer) io.Writer) (*jsonl.Writer, error) {
	f, err := disk.Create(dir, prefix, operation, at, false, nil)
	if err != nil {
		return nil, err
	}
	return jsonl.NewWriter(disk.Wrap(f, wrap), f.Path(), operation), nil
}
