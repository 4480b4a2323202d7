package disk_test

import (
	"encoding/hex"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/oklog/ulid/v2"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
)

// testID is a fixed ULID whose time is 2026-11-21T13:31:00.123Z.
var testID = ulid.MustParseStrict("01M7Z4V5MVAEP07QR38R3NRT04")

func TestSanitizeOperation(t *testing.T) {
	tests := []struct {
		in, want string
		reason   string
	}{
		{"recall", "recall", "a spec operation is kept"},
		{"inject_context", "inject_context", "underscores are kept"},
		{"Recall", "recall", "ASCII letters are lower-cased"},
		{"search-memories", "search_memories", "'-' separates name parts, so it becomes '_'"},
		{"search memories", "search_memories", "spaces become '_'"},
		{"a  --  b", "a_b", "runs of separators collapse to one"},
		{"a__b", "a_b", "runs of '_' collapse too"},
		{"__recall__", "recall", "separators at the ends are dropped"},
		{"../../etc/passwd", "etc_passwd", "path traversal is neutralized"},
		{"tools/list", "tools_list", "slashes become '_'"},
		{"v2.recall", "v2_recall", "dots become '_'"},
		{"café", "caf", "a non-ASCII rune at the end is one separator, dropped"},
		{"naïve search", "na_ve_search", "each non-ASCII rune is one separator"},
		{"記憶", "result", "nothing usable left gives the fallback"},
		{"", "result", "empty gives the fallback"},
		{"___", "result", "separators only give the fallback"},
		{"\xff\xfe", "result", "invalid UTF-8 is replaced like any rune"},
		{"K", "k", "KELVIN SIGN is not lower-cased to 'k': only ASCII letters are"},
		{strings.Repeat("a", 60), strings.Repeat("a", 48), "cut to 48 bytes"},
		{strings.Repeat("a", 47) + "-b", strings.Repeat("a", 47), "cut without a trailing '_'"},
		{strings.Repeat("ab_", 20), strings.Repeat("ab_", 16)[:47], "cut inside a run, trailing '_' dropped"},
	}
	for _, tc := range tests {
		got := disk.SanitizeOperation(tc.in)
		if got != tc.want {
			t.Errorf("SanitizeOperation(%q) = %q, want %q: %s", tc.in, got, tc.want, tc.reason)
		}
		checkSanitized(t, tc.in, got)
	}
}

var sanitizedRE = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)

// checkSanitized checks the documented properties of SanitizeOperation.
func checkSanitized(t *testing.T, in, got string) {
	t.Helper()
	if !sanitizedRE.MatchString(got) || len(got) > 48 {
		t.Errorf("SanitizeOperation(%q) = %q, want ^[a-z0-9]+(_[a-z0-9]+)*$ of at most 48 bytes", in, got)
	}
	if again := disk.SanitizeOperation(got); again != got {
		t.Errorf("SanitizeOperation(%q) = %q, not idempotent: again %q", in, got, again)
	}
}

func TestSanitizeOperationNoAllocs(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { disk.SanitizeOperation("inject_context") }); n != 0 {
		t.Errorf("SanitizeOperation of a sanitized name allocates %v times, want 0", n)
	}
}

func TestName(t *testing.T) {
	tests := []struct {
		prefix, op, want string
		reason           string
	}{
		{"atlatl", "recall", "atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl", "the spec's example convention"},
		{"", "recall", "atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl", "empty prefix is DefaultPrefix"},
		{"lro", "Search Memories", "lro-search_memories-01M7Z4V5MVAEP07QR38R3NRT04.jsonl", "the operation is sanitized"},
	}
	for _, tc := range tests {
		if got := disk.Name(tc.prefix, tc.op, testID); got != tc.want {
			t.Errorf("Name(%q, %q, id) = %q, want %q: %s", tc.prefix, tc.op, got, tc.want, tc.reason)
		}
	}
}

type parsed struct {
	Op string
	ID string
	OK bool
}

func TestParseName(t *testing.T) {
	const id = "01M7Z4V5MVAEP07QR38R3NRT04"
	const random = "0123456789abcdef0123456789abcdef"
	tests := []struct {
		base, prefix string
		want         parsed
		reason       string
	}{
		{"atlatl-recall-" + id + ".jsonl", "atlatl", parsed{"recall", id, true}, "a name made by Name"},
		{"atlatl-recall-" + id + ".jsonl", "", parsed{"recall", id, true}, "empty prefix is DefaultPrefix"},
		{"atlatl-inject_context-" + id + ".jsonl", "atlatl", parsed{"inject_context", id, true}, "operations may contain '_'"},
		{"my-app-recall-" + id + ".jsonl", "my-app", parsed{"recall", id, true}, "prefixes may contain '-'"},
		{"lro-recall-" + id + ".jsonl", "atlatl", parsed{}, "another prefix"},
		{"atlatl-x-recall-" + id + ".jsonl", "atlatl", parsed{}, "prefix atlatl-x is not atlatl: operations have no '-'"},
		{"atlatlx-recall-" + id + ".jsonl", "atlatl", parsed{}, "the prefix must be followed by '-'"},
		{".atlatl-recall-" + id + ".jsonl.tmp", "atlatl", parsed{}, "a temporary file is not a committed one"},
		{"atlatl-recall-" + id + ".jsonl.tmp", "atlatl", parsed{}, "wrong extension"},
		{"atlatl-recall-" + id + ".json", "atlatl", parsed{}, "wrong extension"},
		{"atlatl-recall-" + id, "atlatl", parsed{}, "missing extension"},
		{"atlatl-" + id + ".jsonl", "atlatl", parsed{}, "missing operation"},
		{"atlatl--" + id + ".jsonl", "atlatl", parsed{}, "empty operation"},
		{"atlatl-recall.jsonl", "atlatl", parsed{}, "missing ULID"},
		{"atlatl-recall-" + id[1:] + ".jsonl", "atlatl", parsed{}, "ULID one character short"},
		{"atlatl-recall_" + id + ".jsonl", "atlatl", parsed{}, "'-' missing before the ULID"},
		{"atlatl-recall-01M7Z4V5MVAEP07QR38R3NRTIL.jsonl", "atlatl", parsed{}, "I and L are not Crockford base32"},
		{"atlatl-recall-81M7Z4V5MVAEP07QR38R3NRT04.jsonl", "atlatl", parsed{}, "ULID overflows 128 bits"},
		{"atlatl-recall-01m7z4v5mvaep07qr38r3nrt04.jsonl", "atlatl", parsed{}, "lower-case ULID is not canonical"},
		{"atlatl-Recall-" + id + ".jsonl", "atlatl", parsed{}, "upper-case operation was never sanitized"},
		{"atlatl-re call-" + id + ".jsonl", "atlatl", parsed{}, "space in operation"},
		{"atlatl-recall-" + id + "-" + random + ".jsonl", "atlatl", parsed{"recall", id, true}, "a name with a random part"},
		{"atlatl-recall-" + id + "-" + random[1:] + ".jsonl", "atlatl", parsed{}, "random part one digit short"},
		{"atlatl-recall-" + id + "-0" + random + ".jsonl", "atlatl", parsed{}, "random part one digit long"},
		{"atlatl-recall-" + id + "-" + strings.ToUpper(random) + ".jsonl", "atlatl", parsed{}, "upper-case random part"},
		{"atlatl-recall-" + id + random + ".jsonl", "atlatl", parsed{}, "'-' missing before the random part"},
		{"atlatl-recall-" + random + ".jsonl", "atlatl", parsed{}, "random part without ULID"},
		{"atlatl-x-recall-" + id + "-" + random + ".jsonl", "atlatl", parsed{}, "prefix atlatl-x with a random part"},
		{"", "atlatl", parsed{}, "empty name"},
		{"atlatl-", "atlatl", parsed{}, "prefix only"},
	}
	for _, tc := range tests {
		op, gotID, ok := disk.ParseName(tc.base, tc.prefix)
		got := parsed{Op: op, OK: ok}
		if ok {
			got.ID = gotID.String()
		} else if gotID != (ulid.ULID{}) {
			t.Errorf("ParseName(%q, %q) returned id %v with ok=false, want zero", tc.base, tc.prefix, gotID)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseName(%q, %q): %s\n(-want +got):\n%s", tc.base, tc.prefix, tc.reason, diff)
		}
	}
}

func FuzzSanitizeOperation(f *testing.F) {
	for _, s := range []string{"recall", "Search-Memories", "../x", "記憶", "", "a__b_", strings.Repeat("ab-", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, op string) {
		got := disk.SanitizeOperation(op)
		checkSanitized(t, op, got)
		// Every sanitized operation round-trips through a file name.
		base := disk.Name("", op, testID)
		gotOp, gotID, ok := disk.ParseName(base, spec.DefaultPrefix)
		if !ok || gotOp != got || gotID != testID {
			t.Errorf("ParseName(Name(%q)) = %q, %v, %v; want %q, %v, true", op, gotOp, gotID, ok, got, testID)
		}
		if name, ok := disk.TempBase(disk.TempName(base)); !ok || name != base {
			t.Errorf("the temporary name of %q does not give it back: %q, %v", base, name, ok)
		}
	})
}

func FuzzParseName(f *testing.F) {
	f.Add("atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl", "atlatl")
	f.Add("my-app-a_b-01M7Z4V5MVAEP07QR38R3NRT04.jsonl", "my-app")
	f.Add(".atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl.tmp", "")
	f.Add("atlatl--.jsonl", "")
	f.Add("atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04-0123456789abcdef0123456789abcdef.jsonl", "atlatl")
	f.Fuzz(func(t *testing.T, base, prefix string) {
		if len(base) > 1024 || !utf8.ValidString(prefix) {
			return
		}
		op, id, ok := disk.ParseName(base, prefix)
		if !ok {
			return
		}
		// Whatever parses is exactly what Name makes, with or without
		// a random part.
		if got := disk.Name(prefix, op, id); got != base && !hasRandomPart(base, got) {
			t.Errorf("ParseName(%q, %q) = %q, %v; Name gives back %q", base, prefix, op, id, got)
		}
		if strings.Contains(op, "-") || op == "" {
			t.Errorf("ParseName(%q) operation %q: want non-empty, no '-'", base, op)
		}
	})
}

// hasRandomPart reports whether base is name with a random part of 32
// lower-case hex digits before its extension.
func hasRandomPart(base, name string) bool {
	stem, ok := strings.CutSuffix(name, ".jsonl")
	rest, ok2 := strings.CutPrefix(base, stem+"-")
	random, ok3 := strings.CutSuffix(rest, ".jsonl")
	if !ok || !ok2 || !ok3 || len(random) != 32 {
		return false
	}
	_, err := hex.DecodeString(random)
	return err == nil && strings.ToLower(random) == random
}

func BenchmarkParseName(b *testing.B) {
	base := disk.Name("", "inject_context", testID)
	b.ReportAllocs()
	for b.Loop() {
		disk.ParseName(base, "")
	}
}

func BenchmarkSanitizeOperation(b *testing.B) {
	for _, op := range []string{"inject_context", "Search Memories / v2"} {
		b.Run(op, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				disk.SanitizeOperation(op)
			}
		})
	}
}
