package lrotest_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro/lrotest"
)

// statuses returns the IDs of the results with each status.
func statuses(rep *lrotest.Report) map[lrotest.Status][]string {
	m := map[lrotest.Status][]string{}
	for _, r := range rep.Results {
		m[r.Status] = append(m[r.Status], r.ID)
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
				cfg.InProcess = inProcess
				rep, err := lrotest.Check(context.Background(), srv.cs, cfg)
				if err != nil {
					t.Fatal(err)
				}
				got := statuses(rep)
				if len(got[lrotest.Fail])+len(got[lrotest.Warn]) > 0 || !slices.Equal(got[lrotest.Skip], st.skips) {
					var b strings.Builder
					rep.WriteTable(&b)
					t.Errorf("failed %q, warned %q, skipped %q; want only %q skipped\n%s", got[lrotest.Fail], got[lrotest.Warn], got[lrotest.Skip], st.skips, b.String())
				}
				if !strings.Contains(rep.Files, st.files) {
					t.Errorf("Files = %q, want it to say %q", rep.Files, st.files)
				}
				if st.kind == bucketStore {
					checkFetched(t, rep, tmp, paths)
				}
				checkLevel3Report(t, rep, inProcess)
			})
		}
	}
}

// TestSweeperAlonePassesCleanup checks a server that starts no janitor, as
// one written from the README's Quick start: the sweeper that its first
// offload starts deletes the expired file the kit plants.
func TestSweeperAlonePassesCleanup(t *testing.T) {
	srv := startServer(t, serverOptions{sweeperOnly: true})
	cfg := config(srv, nil)
	cfg.InProcess = true
	cfg.Level = lrotest.Level2
	rep, err := lrotest.Check(context.Background(), srv.cs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := rep.Result("L2.cleanup"); r.Status != lrotest.Pass {
		var b strings.Builder
		rep.WriteTable(&b)
		t.Errorf("L2.cleanup %v %q, want pass\n%s", r.Status, r.Reasons, b.String())
	}
}

// checkFetched checks what the kit did with results it fetched: cleanup is
// skipped saying why, and the kit wrote nothing at the descriptors'
// file_path and left nothing in its temporary folder.
func checkFetched(t *testing.T, rep *lrotest.Report, tmp string, paths []string) {
	t.Helper()
	if r, _ := rep.Result("L2.cleanup"); !strings.Contains(strings.Join(r.Reasons, " "), "fetched with resources/read") {
		t.Errorf("L2.cleanup skipped for %q, want it to say the files were fetched", r.Reasons)
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
func checkLevel3Report(t *testing.T, rep *lrotest.Report, inProcess bool) {
	t.Helper()
	if len(rep.Results) != len(lrotest.Requirements()) {
		t.Errorf("%d results, want one per requirement (%d)", len(rep.Results), len(lrotest.Requirements()))
	}
	if !rep.OK() {
		t.Error("OK() = false")
	}
	if wantJQ := !inProcess; strings.Contains(rep.Recipes, "gojq") == wantJQ {
		t.Errorf("Recipes = %q, want it to say which runner ran them", rep.Recipes)
	}
}

// TestRun uses Run as a test would: a conforming server reports nothing.
func TestRun(t *testing.T) {
	srv := startServer(t, serverOptions{})
	cfg := config(srv, startServer(t, serverOptions{unwritable: true}))
	cfg.InProcess = true
	lrotest.Run(t, srv.cs, cfg)
}

func TestLevels(t *testing.T) {
	srv := startServer(t, serverOptions{noJanitor: true}) // L2.cleanup would fail
	tests := []struct {
		level    lrotest.Level
		maxLevel lrotest.Level
		ok       bool
	}{
		{lrotest.Level1, lrotest.Level1, true},
		{lrotest.Level2, lrotest.Level2, false},
		{0, lrotest.Level3, false}, // zero means Level 3
	}
	for _, tt := range tests {
		cfg := config(srv, nil)
		cfg.InProcess = true
		cfg.Cleanup.Within = 200 * time.Millisecond // the planted file stays
		cfg.Level = tt.level
		rep, err := lrotest.Check(context.Background(), srv.cs, cfg)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, r := range lrotest.Requirements() {
			if r.Level <= tt.maxLevel {
				want = append(want, r.ID)
			}
		}
		var got []string
		for _, r := range rep.Results {
			got = append(got, r.ID)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("level %d: requirements (-want +got):\n%s", tt.level, diff)
		}
		if rep.Level != tt.maxLevel || rep.OK() != tt.ok {
			t.Errorf("level %d: report level %v, OK %v; want %v, %v", tt.level, rep.Level, rep.OK(), tt.maxLevel, tt.ok)
		}
		if tt.maxLevel == lrotest.Level1 && !strings.Contains(rep.Recipes, "not") {
			t.Errorf("level 1: Recipes = %q, want it to say recipes did not run", rep.Recipes)
		}
	}
}

// TestSkipsSayWhy checks that without the optional parts of the Config the
// requirements they enable are skipped with a reason naming the field.
func TestSkipsSayWhy(t *testing.T) {
	srv := startServer(t, serverOptions{})
	cfg := &lrotest.Config{Tool: "recall", Large: map[string]any{"query": "cache", "n": 60}, InProcess: true}
	rep, err := lrotest.Check(context.Background(), srv.cs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		var b strings.Builder
		rep.WriteTable(&b)
		t.Fatalf("a conforming server failed:\n%s", b.String())
	}
	for id, field := range map[string]string{
		"L1.inline.small":       "Config.Small",
		"L2.cleanup":            "Config.Cleanup",
		"L3.fallback.succeeds":  "Config.FallbackSession",
		"L3.fallback.warning":   "Config.FallbackSession",
		"L3.fallback.truncated": "Config.FallbackSession",
	} {
		r, _ := rep.Result(id)
		if r.Status != lrotest.Skip || !strings.Contains(strings.Join(r.Reasons, " "), field) {
			t.Errorf("%s: %s %q, want skip naming %s", id, r.Status, r.Reasons, field)
		}
	}
}

func TestCheckRefusesBadConfig(t *testing.T) {
	srv := startServer(t, serverOptions{})
	large := map[string]any{"n": 60}
	tests := []struct {
		name string
		cs   *mcp.ClientSession
		cfg  *lrotest.Config
		want string
	}{
		{"nil session", nil, &lrotest.Config{Tool: "recall", Large: large}, "nil session"},
		{"nil config", srv.cs, nil, "nil Config"},
		{"no tool", srv.cs, &lrotest.Config{Large: large}, "Config.Tool"},
		{"no large arguments", srv.cs, &lrotest.Config{Tool: "recall"}, "Config.Large"},
		{"level 4", srv.cs, &lrotest.Config{Tool: "recall", Large: large, Level: 4}, "Config.Level"},
		{"negative threshold", srv.cs, &lrotest.Config{Tool: "recall", Large: large, ThresholdTokens: -1}, "ThresholdTokens"},
		{"negative cleanup wait", srv.cs, &lrotest.Config{Tool: "recall", Large: large, Cleanup: &lrotest.Cleanup{Within: -1}}, "Config.Cleanup"},
		{"empty detail", srv.cs, &lrotest.Config{Tool: "recall", Large: large, Details: []string{"light", ""}}, "Config.Details"},
		{"unknown tool", srv.cs, &lrotest.Config{Tool: "recal", Large: large}, `no tool "recal" (it lists recall)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := lrotest.Check(context.Background(), tt.cs, tt.cfg)
			if !errors.Is(err, lrotest.ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, %v; want an ErrInvalidConfig naming %q", rep, err, tt.want)
			}
		})
	}
}

// TestConfigIsCopied checks that Check does not change the caller's Config.
func TestConfigIsCopied(t *testing.T) {
	srv := startServer(t, serverOptions{})
	cfg := config(srv, nil)
	cfg.InProcess = true
	cfg.Cleanup = nil
	large := cfg.Large
	if _, err := lrotest.Check(context.Background(), srv.cs, cfg); err != nil {
		t.Fatal(err)
	}
	if _, ok := large["detail"]; ok || cfg.Level != 0 || cfg.ThresholdTokens != 0 {
		t.Errorf("Check changed the Config: Large %v, Level %d, ThresholdTokens %d", large, cfg.Level, cfg.ThresholdTokens)
	}
}

func TestRequirementsCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range lrotest.Requirements() {
		if seen[r.ID] {
			t.Errorf("duplicate %s", r.ID)
		}
		seen[r.ID] = true
		if !strings.HasPrefix(r.ID, "L"+string(rune('0'+int(r.Level)))+".") {
			t.Errorf("%s: ID does not start with its level %d", r.ID, r.Level)
		}
		if r.Spec == "" || r.How == "" {
			t.Errorf("%s: no Spec or How", r.ID)
		}
	}
	// The report order is the catalogue's: by level.
	rs := lrotest.Requirements()
	if !slices.IsSortedFunc(rs, func(a, b lrotest.Requirement) int { return int(a.Level) - int(b.Level) }) {
		t.Error("requirements are not ordered by level")
	}
	rs[0].ID = "changed"
	if lrotest.Requirements()[0].ID == "changed" {
		t.Error("Requirements returns the catalogue itself, not a copy")
	}
}

func TestWriteTable(t *testing.T) {
	rep := &lrotest.Report{Tool: "recall", Level: lrotest.Level2, Recipes: "by hand", Results: []lrotest.Result{
		{Requirement: lrotest.Requirement{ID: "L1.a", Level: 1, Spec: "A MUST."}, Status: lrotest.Pass},
		{Requirement: lrotest.Requirement{ID: "L2.b", Level: 2, Spec: "B MUST."}, Status: lrotest.Fail, Reasons: []string{"large: first\nline", "large (detail=full): second"}},
		{Requirement: lrotest.Requirement{ID: "L2.c", Level: 2, Strength: lrotest.Should, Spec: "C SHOULD."}, Status: lrotest.Warn, Reasons: []string{"why"}},
	}}
	var b strings.Builder
	if err := rep.WriteTable(&b); err != nil {
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

// TestDocListsEveryRequirement keeps the package documentation in step with
// the catalogue.
func TestDocListsEveryRequirement(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range lrotest.Requirements() {
		if !strings.Contains(string(doc), r.ID+",") && !strings.Contains(string(doc), r.ID+".") && !strings.Contains(string(doc), r.ID+" ") {
			t.Errorf("doc.go does not list %s", r.ID)
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
	cfg.InProcess = true
	cfg.Details = nil
	rep, err := lrotest.Check(context.Background(), srv.cs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := rep.Result("L3.fallback.succeeds")
	if r.Status != lrotest.Fail || !strings.Contains(strings.Join(r.Reasons, " "), "it keeps them in a store (it gave a handle)") {
		t.Errorf("L3.fallback.succeeds: %s %q, want a failure saying the server keeps its results in a store", r.Status, r.Reasons)
	}
}
