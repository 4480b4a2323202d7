package extract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/internal/testing/gobuild"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
)

// memories returns n memory records at the given detail level, with the
// fields the specification lists for it.
func memories(n int, detail string) []any {
	namespaces := []string{"_semantic/decisions", "_semantic/architecture", "_episodic/sessions", "_procedural/runbooks", "_semantic"}
	types := []string{"semantic", "episodic", "procedural"}
	words := []string{"cache", "deploy", "latency", "schema", "rollback", "index", "queue"}
	out := make([]any, n)
	for i := range out {
		rec := map[string]any{
			"id":          fmt.Sprintf("01J%023d", i),
			"memory_type": types[i%len(types)],
			"title":       fmt.Sprintf("Decision %d: %s strategy for the %s path", i, words[i%len(words)], words[(i/3)%len(words)]),
			"namespace":   namespaces[i%len(namespaces)],
			"tags":        []string{words[i%len(words)], fmt.Sprintf("team-%d", i%4)},
			"status":      "active",
			"created":     time.Date(2026, 1, 1+i%28, i%24, 0, 0, 0, time.UTC).Format(time.RFC3339),
		}
		if i%11 == 5 {
			delete(rec, "tags") // a missing field must not break any recipe
		}
		switch detail {
		case "medium":
			rec["content"] = fmt.Sprintf("We chose %s over %s because of %s; see run %d.", words[i%len(words)], words[(i+2)%len(words)], words[(i+4)%len(words)], i)
			rec["confidence"] = float64(50+(i*7)%50) / 100
		case "full":
			rec["content"] = fmt.Sprintf("We chose %s over %s because of %s; see run %d.", words[i%len(words)], words[(i+2)%len(words)], words[(i+4)%len(words)], i)
			rec["modified"] = time.Date(2026, 2, 1+i%28, 0, 0, 0, 0, time.UTC).Format(time.RFC3339)
			rec["summary"] = "summary " + words[i%len(words)]
			rec["provenance"] = map[string]any{"confidence": float64(50+(i*7)%50) / 100, "trust_level": "verified", "source_type": "agent"}
			rec["entities"] = []any{map[string]any{"name": words[(i+1)%len(words)], "kind": "topic"}}
		}
		out[i] = rec
	}
	return out
}

// generic returns n records of a tool that is not a memory tool.
func generic(n int) []any {
	kinds := []string{"file", "dir", "link"}
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{
			"name":     fmt.Sprintf("src/pkg%d/file_%d.go", i%7, i),
			"kind":     kinds[i%len(kinds)],
			"size":     (i * 997) % 10007,
			"modified": time.Date(2026, 3, 1+i%28, 0, 0, 0, 0, time.UTC).Format(time.RFC3339),
			"labels":   []string{kinds[(i+1)%len(kinds)], fmt.Sprintf("owner-%d", i%3)},
		}
	}
	return out
}

// offload writes records as an offloaded file in dir, as the offloader
// does, and returns its path.
func offload(t testing.TB, dir, detail string, records []any) string {
	t.Helper()
	w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Operation: "recall", Count: len(records), SchemaVersion: "1.0", EstimatedTokens: 99999, Detail: detail}); err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := w.WriteRecord(valueLine(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return w.Path()
}

// builtServer is the example memory server (without -race: it is the
// program under test, not the test), built once for all the tests of the
// package that run it (TestMain removes its folder).
var builtServer = gobuild.Binary{Pkg: "../../examples/memory"}

// buildServer returns the example memory server, built on the first call.
func buildServer(t testing.TB) string { return builtServer.Path(t) }

// loadedTimeout is the time limit of a call in tests that do not check
// the limit.
const loadedTimeout = 10 * time.Minute

// session connects a client to a server with the extraction tools over an
// in-memory transport. Options without a Timeout get a generous one: a
// test that does not set the time limit checks something else, and on a
// loaded machine (three busy loops, or more) a call of a few hundred
// milliseconds can take longer than the 10-second default. The tests of
// the limit itself set their own.
func session(t testing.TB, opts *extract.Options) *mcp.ClientSession {
	t.Helper()
	if opts == nil {
		opts = &extract.Options{}
	}
	if opts.Timeout == 0 {
		o := *opts
		o.Timeout = loadedTimeout
		opts = &o
	}
	// The tests plant files named with fixed times long past, which the
	// automatic janitor that AddTools starts would take for expired: none runs
	// unless a test asks for one (the automatic janitor's tests do).
	if opts.LRO == nil || opts.LRO.CleanupInterval == 0 {
		o, l := *opts, lro.Options{}
		if opts.LRO != nil {
			l = *opts.LRO
		}
		l.CleanupInterval = -1
		o.LRO = &l
		opts = &o
	}
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "extract-test", Version: "1.0"}, nil)
	if err := extract.AddTools(server, opts); err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call calls a tool and returns the text of its content, one string per
// content item, and whether it is a tool error. A protocol error fails the
// test: every problem must come back as a tool error.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) ([]string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error: %v", tool, args, err)
	}
	var texts []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s: content of type %T", tool, c)
		}
		texts = append(texts, tc.Text)
	}
	return texts, res.IsError
}

// lines splits tool output into lines.
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

var _ = filepath.Join

// ulidFor returns a fixed ULID, distinct for each n.
func ulidFor(t testing.TB, n int) ulid.ULID {
	t.Helper()
	var id ulid.ULID
	if err := id.SetTime(ulid.Timestamp(time.Date(2026, 1, 1, 0, 0, n, 0, time.UTC))); err != nil {
		t.Fatal(err)
	}
	id[15] = byte(n)
	return id
}

// wallBound is how long, on the wall clock, a test lets a call bounded by
// the time limit limit take: ten times the limit plus one second, so that
// load and -race, which stretch every call, never reach it, and only a
// call that is not bounded does. How long past its limit a call ends is
// measured by BenchmarkTimeLimit.
func wallBound(limit time.Duration) time.Duration {
	return 10 * (limit + time.Second)
}

// valueLine returns the JSON of v as one record line, as json.Marshal
// writes it but without escaping <, > and &.
func valueLine(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
