package lrotest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
)

// result returns the result of the requirement id.
func (r *report) result(id string) (result, bool) {
	i := slices.IndexFunc(r.results, func(res result) bool { return res.id == id })
	if i < 0 {
		return result{}, false
	}
	return r.results[i], true
}

// statuses returns the IDs of the results with each status.
func statuses(rep *report) map[status][]string {
	m := map[status][]string{}
	for _, r := range rep.results {
		m[r.status] = append(m[r.status], r.id)
	}
	return m
}

// TestConformingServerPassesLevel3 checks a server built with lro, with a
// janitor and a fallback instance, under both recipe runners, with its
// results in a folder, in a folder store and in a bucket store: every
// requirement passes except the events, which the protocol cannot observe,
// the handle when there is none, and cleanup, which the kit cannot watch
// in a bucket.
func TestConformingServerPassesLevel3(t *testing.T) {
	stores := []struct {
		name  string
		kind  storeKind
		skips []string
		files string // what Report.Files says
	}{
		{"folder", inFolder, []string{"L1.descriptor.handle", "L3.events"}, "read from file_path on this machine"},
		{"folder store", folderStore, []string{"L3.events"}, "read from file_path on this machine"},
		{"bucket store", bucketStore, []string{"L2.cleanup", "L3.events"}, "fetched with resources/read"},
	}
	for _, st := range stores {
		for _, inProcess := range []bool{false, true} {
			name := st.name + "/jq"
			if inProcess {
				name = st.name + "/gojq"
			}
			t.Run(name, func(t *testing.T) {
				if !inProcess {
					jqInstalled(t)
				}
				tmp := t.TempDir()
				t.Setenv("TMPDIR", tmp) // where the kit keeps fetched copies
				var paths []string
				srv := startServer(t, serverOptions{store: st.kind, desc: func(t *testing.T, d map[string]any) { paths = append(paths, filePath(d)) }})
				fb := startServer(t, serverOptions{store: st.kind, unwritable: true})
				cfg := config(srv, fb)
				rep, err := check(context.Background(), srv.cs, cfg, inProcess)
				if err != nil {
					t.Fatal(err)
				}
				got := statuses(rep)
				if len(got[fail])+len(got[warn]) > 0 || !slices.Equal(got[skip], st.skips) {
					var b strings.Builder
					rep.writeTable(&b)
					t.Errorf("failed %q, warned %q, skipped %q; want only %q skipped\n%s", got[fail], got[warn], got[skip], st.skips, b.String())
				}
				if !strings.Contains(rep.files, st.files) {
					t.Errorf("Files = %q, want it to say %q", rep.files, st.files)
				}
				if st.kind == bucketStore {
					checkFetched(t, rep, tmp, paths)
				}
				checkLevel3Report(t, rep, inProcess)
			})
		}
	}
}

// TestAutomaticJanitorAlonePassesCleanup checks a server that starts no
// janitor itself, as one written from the README's Quick start: the automatic
// janitor that its first offload starts deletes the expired file the kit
// plants.
func TestAutomaticJanitorAlonePassesCleanup(t *testing.T) {
	srv := startServer(t, serverOptions{autoOnly: true})
	cfg := config(srv, nil)
	cfg.Level = 2
	rep, err := check(context.Background(), srv.cs, cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := rep.result("L2.cleanup"); r.status != pass {
		var b strings.Builder
		rep.writeTable(&b)
		t.Errorf("L2.cleanup %v %q, want pass\n%s", r.status, r.reasons, b.String())
	}
}

// checkFetched checks what the kit did with results it fetched: cleanup is
// skipped saying why, and the kit wrote nothing at the descriptors'
// file_path and left nothing in its temporary folder.
func checkFetched(t *testing.T, rep *report, tmp string, paths []string) {
	t.Helper()
	if r, _ := rep.result("L2.cleanup"); !strings.Contains(strings.Join(r.reasons, " "), "fetched with resources/read") {
		t.Errorf("L2.cleanup skipped for %q, want it to say the files were fetched", r.reasons)
	}
	if len(paths) == 0 {
		t.Error("no descriptor seen")
	}
	for _, p := range paths {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("file_path %s: %v; the kit must not write there", p, err)
		}
	}
	if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
		t.Errorf("the temporary folder holds %v (%v) after Check, want nothing", left, err)
	}
}

// checkLevel3Report checks the parts of a report of a conforming server
// that do not depend on where its results are.
func checkLevel3Report(t *testing.T, rep *report, inProcess bool) {
	t.Helper()
	if len(rep.results) != len(catalogue) {
		t.Errorf("%d results, want one per requirement (%d)", len(rep.results), len(catalogue))
	}
	if !rep.ok() {
		t.Error("OK() = false")
	}
	if wantJQ := !inProcess; strings.Contains(rep.recipes, "gojq") == wantJQ {
		t.Errorf("Recipes = %q, want it to say which runner ran them", rep.recipes)
	}
}

// TestRun uses Run as a test would: a conforming server reports nothing.
func TestRun(t *testing.T) {
	srv := startServer(t, serverOptions{})
	cfg := config(srv, startServer(t, serverOptions{unwritable: true}))
	Run(t, srv.cs, cfg)
}

func TestLevels(t *testing.T) {
	srv := startServer(t, serverOptions{noJanitor: true}) // L2.cleanup would fail
	tests := []struct {
		level    int
		maxLevel int
		ok       bool
	}{
		{1, 1, true},
		{2, 2, false},
		{0, 3, false}, // zero means Level 3
	}
	for _, tt := range tests {
		cfg := config(srv, nil)
		cfg.Server.CleanupInterval = 200 * time.Millisecond // the planted file stays
		cfg.Level = tt.level
		rep, err := check(context.Background(), srv.cs, cfg, true)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range catalogue {
			if r.level <= tt.maxLevel {
				want = append(want, r.id)
			}
		}
		var got []string
		for _, r := range rep.results {
			got = append(got, r.id)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("level %d: requirements (-want +got):\n%s", tt.level, diff)
		}
		if rep.level != tt.maxLevel || rep.ok() != tt.ok {
			t.Errorf("level %d: report level %v, OK %v; want %v, %v", tt.level, rep.level, rep.ok(), tt.maxLevel, tt.ok)
		}
		if tt.maxLevel == 1 && !strings.Contains(rep.recipes, "not") {
			t.Errorf("level 1: Recipes = %q, want it to say recipes did not run", rep.recipes)
		}
	}
}

// TestSkipsSayWhy checks that without the optional parts of the Config the
// requirements they enable are skipped with a reason naming the field.
func TestSkipsSayWhy(t *testing.T) {
	srv := startServer(t, serverOptions{})
	cfg := &Config{Tool: "recall", Large: map[string]any{"query": "cache", "n": 60}}
	rep, err := check(context.Background(), srv.cs, cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.ok() {
		var b strings.Builder
		rep.writeTable(&b)
		t.Fatalf("a conforming server failed:\n%s", b.String())
	}
	for id, field := range map[string]string{
		"L1.inline.small":       "Config.Small",
		"L2.cleanup":            "Config.Server.CleanupInterval",
		"L3.fallback.succeeds":  "Config.Fallback",
		"L3.fallback.warning":   "Config.Fallback",
		"L3.fallback.truncated": "Config.Fallback",
	} {
		r, _ := rep.result(id)
		if r.status != skip || !strings.Contains(strings.Join(r.reasons, " "), field) {
			t.Errorf("%s: %s %q, want skip naming %s", id, r.status, r.reasons, field)
		}
	}
}

func TestCheckRefusesBadConfig(t *testing.T) {
	srv := startServer(t, serverOptions{})
	large := map[string]any{"n": 60}
	tests := []struct {
		name string
		cs   *mcp.ClientSession
		cfg  *Config
		want string
	}{
		{"nil session", nil, &Config{Tool: "recall", Large: large}, "nil session"},
		{"nil config", srv.cs, nil, "nil Config"},
		{"no tool", srv.cs, &Config{Large: large}, "Config.Tool"},
		{"no large arguments", srv.cs, &Config{Tool: "recall"}, "Config.Large"},
		{"level 4", srv.cs, &Config{Tool: "recall", Large: large, Level: 4}, "Config.Level"},
		{"negative threshold", srv.cs, &Config{Tool: "recall", Large: large, Server: &lro.Options{ThresholdTokens: -1}}, "ThresholdTokens"},
		{"negative cleanup wait", srv.cs, &Config{Tool: "recall", Large: large, Server: &lro.Options{CleanupInterval: -1}}, "Config.Server"},
		{"empty detail", srv.cs, &Config{Tool: "recall", Large: large, Details: []string{"light", ""}}, "Config.Details"},
		{"unknown tool", srv.cs, &Config{Tool: "recal", Large: large}, `no tool "recal" (it lists recall)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := check(context.Background(), tt.cs, tt.cfg, false)
			if !errors.Is(err, errInvalidConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, %v; want an ErrInvalidConfig naming %q", rep, err, tt.want)
			}
		})
	}
}

// TestConfigIsCopied checks that Check does not change the caller's Config.
func TestConfigIsCopied(t *testing.T) {
	srv := startServer(t, serverOptions{})
	cfg := config(srv, nil)
	cfg.Server.CleanupInterval = 0
	large, server := cfg.Large, *cfg.Server
	if _, err := check(context.Background(), srv.cs, cfg, true); err != nil {
		t.Fatal(err)
	}
	if _, ok := large["detail"]; ok || cfg.Level != 0 || cfg.Server.ThresholdTokens != 0 || cfg.Server.Prefix != "" || !reflect.DeepEqual(*cfg.Server, server) {
		t.Errorf("Check changed the Config: Large %v, Level %d, Server %+v", large, cfg.Level, *cfg.Server)
	}
}

func TestRequirementsCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range catalogue {
		if seen[r.id] {
			t.Errorf("duplicate %s", r.id)
		}
		seen[r.id] = true
		if !strings.HasPrefix(r.id, "L"+string(rune('0'+int(r.level)))+".") {
			t.Errorf("%s: ID does not start with its level %d", r.id, r.level)
		}
		if r.spec == "" {
			t.Errorf("%s: no Spec", r.id)
		}
	}
	// The report order is the catalogue's: by level.
	if !slices.IsSortedFunc(catalogue, func(a, b requirement) int { return a.level - b.level }) {
		t.Error("requirements are not ordered by level")
	}
}

func TestWriteTable(t *testing.T) {
	rep := &report{tool: "recall", level: 2, recipes: "by hand", results: []result{
		{requirement: requirement{id: "L1.a", level: 1, spec: "A MUST."}, status: pass},
		{requirement: requirement{id: "L2.b", level: 2, spec: "B MUST."}, status: fail, reasons: []string{"large: first\nline", "large (detail=full): second"}},
		{requirement: requirement{id: "L2.c", level: 2, strength: should, spec: "C SHOULD."}, status: warn, reasons: []string{"why"}},
	}}
	var b strings.Builder
	if err := rep.writeTable(&b); err != nil {
		t.Fatal(err)
	}
	want := `REQUIREMENT  LEVEL  KIND    RESULT  DETAIL
L1.a         1      MUST    pass    
L2.b         2      MUST    FAIL    large: first line (+1 more)
L2.c         2      SHOULD  warn    why

FAIL: tool recall, level 2 (standard): 1 pass, 1 fail, 1 warn, 0 skip. Recipes ran by hand.

FAIL L2.b (MUST): B MUST.
  - large: first
line
  - large (detail=full): second

warn L2.c (SHOULD): C SHOULD.
  - why
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("table (-want +got):\n%s", diff)
	}
}

// TestDocListsEveryRequirement keeps docs/conformance.md in step with the
// catalogue: a row per requirement, with its level, its kind and how the
// kit checks it.
func TestDocListsEveryRequirement(t *testing.T) {
	doc, err := os.ReadFile("../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range catalogue {
		row := fmt.Sprintf("| `%s` | %d | %s | ", r.id, r.level, r.strength)
		_, how, _ := strings.Cut(string(doc), row)
		if how, _, _ = strings.Cut(how, "\n"); len(how) < len(" |")+10 {
			t.Errorf("docs/conformance.md has no row %q with how the kit checks it", row)
		}
	}
}

// TestFallbackSessionWithAStore checks what the kit says when the fallback
// session's server keeps its results in a store it can write: the call is
// offloaded, and the reason says that an output folder does not change a
// store.
func TestFallbackSessionWithAStore(t *testing.T) {
	srv := startServer(t, serverOptions{store: bucketStore})
	cfg := config(srv, startServer(t, serverOptions{store: bucketStore}))
	cfg.Details = nil
	rep, err := check(context.Background(), srv.cs, cfg, true)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := rep.result("L3.fallback.succeeds")
	if r.status != fail || !strings.Contains(strings.Join(r.reasons, " "), "it keeps them in a store (it gave a handle)") {
		t.Errorf("L3.fallback.succeeds: %s %q, want a failure saying the server keeps its results in a store", r.status, r.reasons)
	}
}
