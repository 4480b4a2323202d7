package lro_test

// The specification's conformance levels, each demonstrated by a named test:
//
//	Level 1 (Basic):    threshold detection and JSONL output; the descriptor
//	                    holds the file reference and summary statistics.
//	Level 2 (Standard): Level 1, the line schema, the standard jq recipe
//	                    library, and custodial cleanup.
//	Level 3 (Full):     Level 2, error fallback to inline truncation, and
//	                    observability events.
//
// Each level runs the checks of the levels below it as subtests.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/shell"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/recipes"
)

// confMemory is a memory record as the specification's recipes expect it.
// Confidence is present at medium detail, Provenance at full.
type confMemory struct {
	ID         string          `json:"id"`
	Title      string          `json:"title"`
	Namespace  string          `json:"namespace"`
	MemoryType string          `json:"memory_type"`
	Tags       []string        `json:"tags"`
	Created    string          `json:"created"`
	Content    string          `json:"content,omitempty"`
	Confidence *float64        `json:"confidence,omitempty"`
	Provenance *confProvenance `json:"provenance,omitempty"`
}

type confProvenance struct {
	Confidence float64 `json:"confidence"`
	Agent      string  `json:"agent"`
}

// confMemories returns n memories at the detail level; namespaces are
// unevenly spread so that top_namespaces has an order to get right.
func confMemories(n int, detail recipes.Detail) []confMemory {
	namespaces := []string{"_semantic/decisions", "_semantic/decisions", "_semantic/decisions", "_episodic/sessions",
		"_episodic/sessions", "_procedural/runbooks", "_semantic/architecture", "_semantic/preferences", "_episodic/incidents"}
	types := map[byte]string{'s': "semantic", 'e': "episodic", 'p': "procedural"}
	ms := make([]confMemory, n)
	for i := range ms {
		ns := namespaces[i%len(namespaces)]
		conf := float64((i*37)%100) / 100
		m := confMemory{
			ID:         fmt.Sprintf("mem-%05d", i),
			Title:      fmt.Sprintf("Memory %d about the cache layer", i),
			Namespace:  ns,
			MemoryType: types[ns[1]],
			Tags:       []string{"cache", fmt.Sprintf("team-%d", i%3)},
			Created:    time.Date(2026, 1, 1+i%28, 0, 0, i, 0, time.UTC).Format(time.RFC3339),
		}
		switch detail {
		case recipes.Medium:
			m.Content = "Invalidate on write; stale reads were seen after deploys."
			m.Confidence = &conf
		case recipes.Full:
			m.Content = "Invalidate on write; stale reads were seen after deploys."
			m.Provenance = &confProvenance{Confidence: conf, Agent: "claude"}
		}
		ms[i] = m
	}
	return ms
}

// recallHandler returns n memories at the call's detail level as JSON text,
// as a recall tool does.
func recallHandler(n int) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Detail string `json:"detail"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		detail, err := lro.ParseDetail(args.Detail)
		if err != nil || args.Detail == "" {
			detail = recipes.Light
		}
		data, err := json.Marshal(confMemories(n, detail))
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}
}

func recallRequest(detail recipes.Detail) *mcp.CallToolRequest {
	args, _ := json.Marshal(map[string]string{"query": "cache", "detail": string(detail)})
	return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "recall_memories", Arguments: args}}
}

// idTokenizer counts one token per record, so that the threshold can be
// tested at its exact boundary: a result set of n records is n tokens.
type idTokenizer struct{}

func (idTokenizer) Tokens(b []byte) int { return strings.Count(string(b), `"id":`) }

// offloadedFileName is the specification's {prefix}-{operation}-{ulid}.jsonl.
var offloadedFileName = regexp.MustCompile(`^atlatl-recall-[0-9A-HJKMNP-TV-Z]{26}\.jsonl$`)

func TestConformanceLevel1(t *testing.T) { conformanceLevel1(t) }

func TestConformanceLevel2(t *testing.T) {
	t.Run("Level1", conformanceLevel1)
	conformanceLevel2(t)
}

func TestConformanceLevel3(t *testing.T) {
	t.Run("Level1", conformanceLevel1)
	t.Run("Level2", conformanceLevel2)
	conformanceLevel3(t)
}

func conformanceLevel1(t *testing.T) {
	t.Run("threshold: offload when estimated > threshold, exactly", func(t *testing.T) {
		dir := t.TempDir()
		opts := &lro.Options{OutputDir: dir, ThresholdTokens: 40, Tokenizer: idTokenizer{}, Operation: "recall"}
		for _, tt := range []struct {
			records   int
			offloaded bool
		}{{39, false}, {40, false}, {41, true}} {
			bare, _ := recallHandler(tt.records)(context.Background(), recallRequest(recipes.Light))
			res, err := lro.Wrap(recallHandler(tt.records), opts)(context.Background(), recallRequest(recipes.Light))
			if err != nil {
				t.Fatal(err)
			}
			if tt.offloaded {
				descriptorOf(t, res)
				continue
			}
			if diff := cmp.Diff(bare.Content[0].(*mcp.TextContent).Text, res.Content[0].(*mcp.TextContent).Text); diff != "" {
				t.Errorf("%d records (at the threshold or below) were not returned unchanged (-want +got):\n%s", tt.records, diff)
			}
		}
	})

	t.Run("JSONL output and descriptor", func(t *testing.T) {
		dir := t.TempDir()
		const n = 200
		res, err := lro.Wrap(recallHandler(n), &lro.Options{OutputDir: dir, Operation: "recall"})(context.Background(), recallRequest(recipes.Medium))
		if err != nil {
			t.Fatal(err)
		}
		d := descriptorOf(t, res)
		want := confMemories(n, recipes.Medium)

		// The file: absolute, named by the convention, private.
		if !filepath.IsAbs(d.FilePath) || filepath.Dir(d.FilePath) != dir || !offloadedFileName.MatchString(filepath.Base(d.FilePath)) {
			t.Errorf("file_path %q is not %s/atlatl-recall-{ulid}.jsonl", d.FilePath, dir)
		}
		if fi, err := os.Stat(d.FilePath); err != nil || fi.Mode().Perm() != 0o400 {
			t.Errorf("file mode: %v, %v; want 0400 (private, read-only: its expiry is recorded)", fi.Mode(), err)
		}

		// The header: all eight OffloadHeader fields, in order, then this
		// implementation's: the result around the records, and where they
		// go back in it.
		f, err := os.Open(d.FilePath)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		sc.Scan()
		headerKeys := orderedKeys(t, sc.Bytes())
		if diff := cmp.Diff([]string{"type", "operation", "query", "count", "schema_version", "timestamp", "estimated_tokens", "detail", "result", "records_at"}, headerKeys); diff != "" {
			t.Errorf("header fields (-want +got):\n%s", diff)
		}
		var h struct {
			Type string `json:"type"`
			jsonl.Header
		}
		if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
			t.Fatal(err)
		}
		if h.Type != "lro_header" || h.Operation != "recall" || h.Query == nil || *h.Query != "cache" || h.Count != n ||
			h.SchemaVersion == "" || h.Detail != "medium" || h.EstimatedTokens <= lro.DefaultThresholdTokens {
			t.Errorf("header %+v does not describe the result set", h)
		}
		if _, err := time.Parse(time.RFC3339, h.Timestamp); err != nil {
			t.Errorf("header timestamp %q: %v", h.Timestamp, err)
		}

		// One record per line, exactly the tool's records.
		var got []confMemory
		for sc.Scan() {
			var m confMemory
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Fatalf("line %d: %v", len(got)+2, err)
			}
			got = append(got, m)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("records in the file differ from the tool's (-want +got):\n%s", diff)
		}
		// The estimate is that of the result the tool returned, which the
		// descriptor saved the client; the file puts that result back
		// together.
		bare, err := recallHandler(n)(context.Background(), recallRequest(recipes.Medium))
		if err != nil {
			t.Fatal(err)
		}
		tokens := estimate.Tokens(bare.Content[0].(*mcp.TextContent).Text)
		if h.EstimatedTokens != tokens {
			t.Errorf("header estimated_tokens = %d, want %d (the result's estimate)", h.EstimatedTokens, tokens)
		}
		_, _, rebuilt := readOffloaded(t, d.FilePath)
		checkRebuilt(t, resultJSON(t, bare), rebuilt)

		// The summary.
		s := d.Summary
		if s == nil {
			t.Fatal("no summary")
		}
		if s.Count != n || s.EstimatedTokens != tokens || s.Operation != "recall" || s.Detail != "medium" {
			t.Errorf("summary %+v, want count %d, estimated_tokens %d, operation recall, detail medium", s, n, tokens)
		}
		if diff := cmp.Diff(topNamespaces(want), s.TopNamespaces); diff != "" {
			t.Errorf("top_namespaces (-want +got):\n%s", diff)
		}
		if !d.Offloaded {
			t.Error("offloaded is not true")
		}
		if strings.Contains(res.Content[0].(*mcp.TextContent).Text, "cursor") {
			t.Error("an offloaded descriptor carries a cursor")
		}
	})
}

// topNamespaces is the oracle of summary.top_namespaces: up to five, most
// frequent first, ties by name.
func topNamespaces(ms []confMemory) []string {
	counts := map[string]int{}
	for _, m := range ms {
		counts[m.Namespace]++
	}
	var names []string
	for ns := range counts {
		names = append(names, ns)
	}
	sort.Slice(names, func(i, j int) bool {
		if counts[names[i]] != counts[names[j]] {
			return counts[names[i]] > counts[names[j]]
		}
		return names[i] < names[j]
	})
	return names[:min(5, len(names))]
}

// orderedKeys returns the keys of a JSON object in the order they appear.
func orderedKeys(t *testing.T, obj []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(obj)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", obj)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func conformanceLevel2(t *testing.T) {
	if _, err := exec.LookPath("jq"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("jq is not installed")
		}
		t.Skip("jq is not installed")
	}
	for _, detail := range []recipes.Detail{recipes.Light, recipes.Medium, recipes.Full} {
		t.Run("schema and recipes at "+string(detail), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "it's a folder")
			const n = 150
			res, err := lro.Wrap(recallHandler(n), &lro.Options{OutputDir: dir, Operation: "recall"})(context.Background(), recallRequest(detail))
			if err != nil {
				t.Fatal(err)
			}
			d := descriptorOf(t, res)
			ms := confMemories(n, detail)
			_, lines, err := jsonl.ReadFile(d.FilePath)
			if err != nil {
				t.Fatal(err)
			}
			validateAll(t, d.LineSchema, lines)

			if len(d.JqRecipes) != 10 {
				t.Fatalf("%d recipes, want exactly 10", len(d.JqRecipes))
			}
			outs := make([]string, 10)
			for i, r := range d.JqRecipes {
				if strings.Contains(r.Command, ".score") {
					t.Errorf("recipe %d uses .score: %s", i+1, r.Command)
				}
				if !strings.Contains(r.Command, shell.Quote(d.FilePath)) {
					t.Errorf("recipe %d does not name the file: %s", i+1, r.Command)
				}
				out, err := exec.Command("sh", "-c", r.Command).Output()
				if err != nil {
					t.Fatalf("recipe %d %q: %v", i+1, r.Command, err)
				}
				outs[i] = string(out)
			}
			// Recipe 1 lists every record; recipe 6 counts by namespace.
			if got := strings.Count(outs[0], "\n"); got != n {
				t.Errorf("recipe 1 printed %d lines, want %d", got, n)
			}
			wantCounts := map[string]int{}
			for _, m := range ms {
				wantCounts[m.Namespace]++
			}
			gotCounts := map[string]int{}
			dec := json.NewDecoder(strings.NewReader(outs[5]))
			for dec.More() {
				var c struct {
					Namespace string `json:"namespace"`
					Count     int    `json:"count"`
				}
				if err := dec.Decode(&c); err != nil {
					t.Fatal(err)
				}
				gotCounts[c.Namespace] = c.Count
			}
			if diff := cmp.Diff(wantCounts, gotCounts); diff != "" {
				t.Errorf("recipe 6 counts (-want +got):\n%s", diff)
			}
			// Recipe 9: the detail-dependent confidence path, or the
			// namespaces at light.
			r9 := d.JqRecipes[8].Command
			switch detail {
			case recipes.Light:
				if strings.Contains(r9, "confidence") {
					t.Errorf("light recipe 9 references confidence, which light records lack: %s", r9)
				}
			case recipes.Medium:
				if !strings.Contains(r9, "sort_by(.confidence)") {
					t.Errorf("medium recipe 9 does not sort by .confidence: %s", r9)
				}
			case recipes.Full:
				if !strings.Contains(r9, "sort_by(.provenance.confidence)") {
					t.Errorf("full recipe 9 does not sort by .provenance.confidence: %s", r9)
				}
			}
			if detail != recipes.Light {
				var prev = 2.0
				dec := json.NewDecoder(strings.NewReader(outs[8]))
				count := 0
				for dec.More() {
					var m confMemory
					if err := dec.Decode(&m); err != nil {
						t.Fatal(err)
					}
					c := 0.0
					if m.Confidence != nil {
						c = *m.Confidence
					} else if m.Provenance != nil {
						c = m.Provenance.Confidence
					}
					if c > prev {
						t.Fatalf("recipe 9 is not sorted by confidence, descending: %v after %v", c, prev)
					}
					prev = c
					count++
				}
				if count != n {
					t.Errorf("recipe 9 printed %d records, want %d", count, n)
				}
			}
			if d.Guidance == "" || !strings.Contains(d.Guidance, d.FilePath) {
				t.Errorf("guidance does not name the file: %q", d.Guidance)
			}
		})
	}

	t.Run("custodial cleanup", func(t *testing.T) {
		t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
		now := t0
		opts := hooked(&lro.Options{OutputDir: t.TempDir(), Operation: "recall"}, lro.Hooks{Now: func() time.Time { return now }})
		res, err := wrap(recallHandler(100), opts)(context.Background(), recallRequest(recipes.Light))
		if err != nil {
			t.Fatal(err)
		}
		path := descriptorOf(t, res).FilePath
		sweep := func(at time.Time) {
			now = at
			j, err := lro.JanitorOf(opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := j.Sweep(context.Background(), now); err != nil {
				t.Fatal(err)
			}
		}
		sweep(t0.Add(spec.DefaultTTL - time.Millisecond))
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("file deleted before its TTL: %v", err)
		}
		sweep(t0.Add(spec.DefaultTTL))
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Fatalf("file kept after its TTL: %v", err)
		}
	})
}

func conformanceLevel3(t *testing.T) {
	t.Run("error fallback to inline truncation", func(t *testing.T) {
		rec := &recorder{}
		const n = 200
		// Every write fails as on a full disk.
		opts := hooked(&lro.Options{OutputDir: t.TempDir(), Operation: "recall", Observer: rec},
			lro.Hooks{WrapWriter: func(io.Writer) io.Writer { return failingWriter{} }})
		res, err := wrap(recallHandler(n), opts)(context.Background(), recallRequest(recipes.Light))
		if err != nil {
			t.Fatalf("the call failed: %v", err)
		}
		if res.IsError || len(res.Content) != 2 {
			t.Fatalf("result: IsError %v, %d content items; want a warning and the truncated records", res.IsError, len(res.Content))
		}
		warning := res.Content[0].(*mcp.TextContent).Text
		var kept []confMemory
		if err := json.Unmarshal([]byte(res.Content[1].(*mcp.TextContent).Text), &kept); err != nil {
			t.Fatal(err)
		}
		if len(kept) == 0 || len(kept) >= n {
			t.Fatalf("%d records kept, want some but not all %d", len(kept), n)
		}
		// Everything sent, the warning included, fits within the threshold.
		if used := sentTokens(t, res); used > lro.DefaultThresholdTokens {
			t.Errorf("the fallback sends ~%d tokens, above the threshold", used)
		}
		if diff := cmp.Diff(confMemories(n, recipes.Light)[:len(kept)], kept); diff != "" {
			t.Errorf("kept records are not the first of the result set (-want +got):\n%s", diff)
		}
		if !strings.Contains(warning, "failed") {
			t.Errorf("warning %q does not say that offloading failed", warning)
		}
		bare, _ := recallHandler(n)(context.Background(), recallRequest(recipes.Light))
		evs := rec.all()
		if len(evs) != 1 || !is[event.WriteFailed](evs[0]) {
			t.Fatalf("events %v, want one OffloadWriteFailed", evs)
		}
		checkWarning(t, res, parseWarning(t, warning, evs[0].(event.WriteFailed).Err), len(kept), n,
			estimate.Tokens(bare.Content[0].(*mcp.TextContent).Text))
	})

	t.Run("observability events", func(t *testing.T) {
		rec := &recorder{}
		t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
		now := t0
		dir := t.TempDir()
		clock := func() time.Time { return now }
		opts := hooked(&lro.Options{OutputDir: dir, Operation: "recall", Observer: rec}, lro.Hooks{Now: clock})
		res, err := wrap(recallHandler(100), opts)(context.Background(), recallRequest(recipes.Light))
		if err != nil {
			t.Fatal(err)
		}
		d := descriptorOf(t, res)

		failing := *opts
		hooked(&failing, lro.Hooks{Now: clock, WrapWriter: func(io.Writer) io.Writer { return failingWriter{} }})
		failed, err := wrap(recallHandler(100), &failing)(context.Background(), recallRequest(recipes.Light))
		if err != nil {
			t.Fatal(err)
		}

		now = t0.Add(spec.DefaultTTL)
		j, err := lro.JanitorOf(opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Sweep(context.Background(), now); err != nil {
			t.Fatal(err)
		}

		events := rec.all()
		if len(events) != 3 {
			t.Fatalf("%d events, want 3: %v", len(events), events)
		}
		var names []string
		for _, e := range events {
			names = append(names, eventName(e))
		}
		if diff := cmp.Diff([]string{"OffloadCompleted", "OffloadWriteFailed", "OffloadFileExpired"}, names); diff != "" {
			t.Errorf("event kinds (-want +got):\n%s", diff)
		}
		off := events[0].(event.Offloaded)
		if off.Path != d.FilePath || off.Count != 100 || off.Tool != "recall_memories" || off.Operation != "recall" ||
			off.EstimatedTokens != d.Summary.EstimatedTokens || off.Bytes <= 0 {
			t.Errorf("Offloaded event %+v does not match descriptor %+v", off, d.Summary)
		}
		wf := events[1].(event.WriteFailed)
		if wf.Err == nil || wf.Count != 100 || wf.Operation != "recall" {
			t.Errorf("WriteFailed event %+v", wf)
		}
		if m := regexp.MustCompile(`showing ([0-9]+) of 100 records`).FindStringSubmatch(failed.Content[0].(*mcp.TextContent).Text); m == nil || m[1] == "0" || m[1] == "100" {
			t.Errorf("the fallback's warning %q does not show some but not all of the 100 records", failed.Content[0].(*mcp.TextContent).Text)
		}
		fe := events[2].(event.FileExpired)
		if diff := cmp.Diff(event.FileExpired{Path: d.FilePath, CreatedAt: t0}, fe); diff != "" {
			t.Errorf("FileExpired event (-want +got):\n%s", diff)
		}
	})
}
