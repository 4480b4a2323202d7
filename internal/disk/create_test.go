package disk

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// checkEmpty fails t for every entry of dir.
func checkEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("directory holds %s, want nothing", e.Name())
	}
}

// TestCreateRetriesOnCollision forces Create to draw ULIDs whose temporary or
// final name is taken: it must move on to a free name, and give up with
// fs.ErrExist after createAttempts.
func TestCreateRetriesOnCollision(t *testing.T) {
	taken1 := ulid.MustParseStrict("01M7Z4V5MVAEP07QR38R3NRT01")
	taken2 := ulid.MustParseStrict("01M7Z4V5MVAEP07QR38R3NRT02")
	free := ulid.MustParseStrict("01M7Z4V5MVAEP07QR38R3NRT03")
	dir := t.TempDir()
	// taken1 has a temporary file (a writer in progress), taken2 a
	// committed file: neither may be reused or overwritten.
	tmp1 := filepath.Join(dir, TempName(Name("", "recall", taken1)))
	final2 := filepath.Join(dir, Name("", "recall", taken2))
	for _, p := range []string{tmp1, final2} {
		if err := os.WriteFile(p, []byte("keep"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	defer func(orig func(uint64) (ulid.ULID, error)) { newID = orig }(newID)
	var calls int
	newID = func(uint64) (ulid.ULID, error) {
		calls++
		return []ulid.ULID{taken1, taken2, free}[min(calls-1, 2)], nil
	}
	w, err := Create(dir, "", "recall", time.Now(), false, nil)
	if err != nil {
		t.Fatalf("Create = %v, want success on the third name", err)
	}
	defer w.Abort()
	if want := filepath.Join(dir, Name("", "recall", free)); w.Path() != want || calls != 3 {
		t.Errorf("Path() = %s after %d draws, want %s after 3", w.Path(), calls, want)
	}
	for _, p := range []string{tmp1, final2} {
		if data, err := os.ReadFile(p); err != nil || string(data) != "keep" {
			t.Errorf("%s = %q, %v; want it untouched", p, data, err)
		}
	}

	newID = func(uint64) (ulid.ULID, error) { return taken1, nil }
	if w, err := Create(dir, "", "recall", time.Now(), false, nil); !errors.Is(err, fs.ErrExist) {
		if err == nil {
			w.Abort()
		}
		t.Errorf("Create with every name taken = %v, want fs.ErrExist", err)
	}
}

// randomName is the grammar of a name with a random part.
var randomName = regexp.MustCompile(`^atlatl-recall-[0-9A-HJKMNP-TV-Z]{26}-[0-9a-f]{32}\.jsonl$`)

func TestNewNameRandom(t *testing.T) {
	now := time.Date(2026, 11, 21, 13, 31, 0, 123e6, time.UTC)
	name, err := NewName("", "Recall", now, true)
	if err != nil || !randomName.MatchString(name) {
		t.Fatalf("NewName = %q, %v; want a random name matching %v", name, err, randomName)
	}
	if op, id, ok := ParseName(name, ""); !ok || op != "recall" || id.Time() != uint64(now.UnixMilli()) {
		t.Errorf("ParseName(%q) = %q, %v, %v; want recall at %v", name, op, id, ok, now)
	}
}

func TestCreateRandom(t *testing.T) {
	dir := t.TempDir()
	names := map[string]bool{}
	for range 3 {
		f, err := Create(dir, "", "recall", time.Now(), true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("{\"type\":\"lro_header\",\"count\":0}\n")); err != nil {
			t.Fatal(err)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f.Path())
		if !randomName.MatchString(name) || names[name] {
			t.Errorf("Create with random named %q; want a new name matching %v", name, randomName)
		}
		names[name] = true
		if _, err := os.Stat(f.Path()); err != nil {
			t.Error(err)
		}
	}
}
