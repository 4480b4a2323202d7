package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/store"
)

type recorder struct {
	mu     sync.Mutex
	events []event.Event
}

func (r *recorder) Observe(_ context.Context, e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func callTool(t *testing.T, h mcp.ToolHandler, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: ToolExtract, Arguments: raw}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTruncatedWhenOffloadFails: when the result is above the threshold and
// cannot be written (a full disk here), the answer shows the whole results
// that fit, says that the rest was cut, and an event reports the failure.
func TestTruncatedWhenOffloadFails(t *testing.T) {
	dir := t.TempDir()
	var records []any
	for i := range 100 {
		records = append(records, map[string]any{"n": i, "text": strings.Repeat("word ", 10)})
	}
	path := writeFile(t, dir, records...)
	var obs recorder
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 200, Observer: &obs}})
	if err != nil {
		t.Fatal(err)
	}
	c.create = func(string) (*jsonl.Writer, error) { return nil, syscall.ENOSPC }
	res := callTool(t, c.handler(ToolExtract, c.extract), map[string]any{"file_path": path, "query": "{n, text}"})
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("%+v", res.Content)
	}
	warning := res.Content[0].(*mcp.TextContent).Text
	shown := res.Content[1].(*mcp.TextContent).Text
	var lines []json.RawMessage
	if err := json.Unmarshal([]byte(shown), &lines); err != nil {
		t.Fatalf("shown %q: %v", shown, err)
	}
	if !strings.Contains(warning, "no space left on device") || !strings.Contains(warning, fmt.Sprintf("showing %d of 100 records", len(lines))) {
		t.Errorf("warning %q for %d records", warning, len(lines))
	}
	if sent := estimate.Tokens(warning) + estimate.Tokens(shown); sent > 200 || len(lines) < 2 {
		t.Errorf("%d records, %d tokens sent, threshold 200", len(lines), sent)
	}
	for i, l := range lines {
		if want := fmt.Sprintf(`{"n":%d,"text":"%s"}`, i, strings.Repeat("word ", 10)); string(l) != want {
			t.Errorf("record %d = %q, want the whole result %q", i, l, want)
		}
	}
	if len(obs.events) != 1 {
		t.Fatalf("%d events", len(obs.events))
	}
	if e, ok := obs.events[0].(event.WriteFailed); !ok || e.Count != 100 || e.Tool != ToolExtract {
		t.Errorf("event %#v", obs.events[0])
	}
}

func TestOffloadedEvent(t *testing.T) {
	dir := t.TempDir()
	var records []any
	for i := range 100 {
		records = append(records, map[string]any{"n": i, "text": strings.Repeat("word ", 10)})
	}
	path := writeFile(t, dir, records...)
	var obs recorder
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 200, Observer: &obs}})
	if err != nil {
		t.Fatal(err)
	}
	res := callTool(t, c.handler(ToolExtract, c.extract), map[string]any{"file_path": path, "query": "."})
	if res.IsError || len(obs.events) != 1 {
		t.Fatalf("%+v, %d events", res.Content, len(obs.events))
	}
	e, ok := obs.events[0].(event.Offloaded)
	if !ok || e.Count != 100 || e.Tool != ToolExtract || e.Operation != "extract" || e.Bytes == 0 {
		t.Errorf("event %#v", obs.events[0])
	}
}

func TestHandlerRecoversPanics(t *testing.T) {
	c, err := newConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	h := c.handler(ToolExtract, func(context.Context, args) (*mcp.CallToolResult, error) { panic("boom") })
	res := callTool(t, h, nil)
	if !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "internal error: boom") {
		t.Errorf("%+v", res.Content)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts *Options
		want string // "" for valid
	}{
		{"nil is every default", nil, ""},
		{"zero is every default", &Options{}, ""},
		{"negative timeout", &Options{Timeout: -1}, "Options.Timeout"},
		{"negative input limit", &Options{MaxInputBytes: -1}, "Options.MaxInputBytes"},
		{"negative record limit", &Options{MaxRecordBytes: -1}, "Options.MaxRecordBytes"},
		{"negative output limit", &Options{MaxOutputBytes: -1}, "Options.MaxOutputBytes"},
		{"output limit above an eighth of the memory", &Options{MaxMemoryBytes: 64 << 20, MaxOutputBytes: 8<<20 + 1}, "Options.MaxOutputBytes is 8388609, more than an eighth of MaxMemoryBytes"},
		{"output limit of an eighth of the memory", &Options{MaxMemoryBytes: 64 << 20, MaxOutputBytes: 8 << 20}, ""},
		{"negative memory", &Options{MaxMemoryBytes: -1}, "Options.MaxMemoryBytes"},
		{"too little memory for a worker", &Options{MaxMemoryBytes: 16<<20 - 1}, "Options.MaxMemoryBytes is 16777215, less than 16 MiB"},
		{"negative threshold", &Options{LRO: &lro.Options{ThresholdTokens: -1}}, "Options.LRO.ThresholdTokens"},
		{"prefix with a slash", &Options{LRO: &lro.Options{Prefix: "a/b"}}, "Options.LRO.Prefix"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if (err == nil) != (tt.want == "") || err != nil && !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want %q", err, tt.want)
			}
		})
	}
	c, err := newConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Timeout != DefaultTimeout || c.MaxInputBytes != DefaultMaxInputBytes || c.MaxRecordBytes != DefaultMaxRecordBytes ||
		c.MaxOutputBytes != DefaultMaxOutputBytes || c.maxResults() != DefaultMaxResults || c.MaxMemoryBytes != DefaultMaxMemoryBytes ||
		c.ThresholdTokens != spec.DefaultThreshold || c.Prefix != spec.DefaultPrefix || c.Tokenizer == nil || c.core("").Now == nil {
		t.Errorf("defaults not applied: %+v", c.Options)
	}
}

// TestOutputLimitDefault: MaxOutputBytes defaults to DefaultMaxOutputBytes,
// or an eighth of MaxMemoryBytes if that is less.
func TestOutputLimitDefault(t *testing.T) {
	for memory, want := range map[int64]int{0: DefaultMaxOutputBytes, 128 << 20: 16 << 20, 1 << 30: DefaultMaxOutputBytes} {
		c, err := newConfig(&Options{MaxMemoryBytes: memory})
		if err != nil {
			t.Fatal(err)
		}
		if c.MaxOutputBytes != want {
			t.Errorf("MaxMemoryBytes %d: MaxOutputBytes %d, want %d", memory, c.MaxOutputBytes, want)
		}
	}
}

// TestAnswerSweptAtExpiry: an answer offloaded in turn starts the automatic janitor
// of its folder, as an offload of lro's decorator does, so that a server
// that offloads nothing else (a replica, or one restarted since the file it
// queries was written) still deletes it at its expiry.
func TestAnswerSweptAtExpiry(t *testing.T) {
	out := t.TempDir()
	var records []any
	for i := range 100 {
		records = append(records, map[string]any{"n": i, "text": strings.Repeat("word ", 10)})
	}
	path := writeFile(t, out, records...)
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: out, ThresholdTokens: 200, TTL: time.Second, CleanupInterval: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	res := callTool(t, c.handler(ToolExtract, c.extract), map[string]any{"file_path": path, "query": "."})
	answers, err := filepath.Glob(filepath.Join(out, "atlatl-extract-*.jsonl"))
	if err != nil || res.IsError || len(answers) != 1 {
		t.Fatalf("answers %v, %v; result %+v", answers, err, res.Content)
	}
	// Polled against a deadline far beyond the TTL of a second: a loaded
	// machine delays the sweep, but only a janitor that never runs fails.
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(answers[0]); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is still there two minutes after its TTL of a second", answers[0])
		}
	}
}

// TestAnswerExpiredEvent: the automatic janitor of the answers hands each
// deleted file to Options.LRO.Observer as an event.FileExpired, and sweeps
// with the options' TTL, else the Store's, else the default hour.
func TestAnswerExpiredEvent(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	st, err := store.Open(context.Background(), t.TempDir(), &store.Options{TTL: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, tt := range []struct {
		name string
		lro  lro.Options
		want time.Duration
	}{
		{"TTL given", lro.Options{OutputDir: t.TempDir(), TTL: time.Minute}, time.Minute},
		{"the default", lro.Options{OutputDir: t.TempDir()}, time.Hour},
		{"the Store's", lro.Options{Store: st}, 2 * time.Hour},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			tt.lro.Observer = rec
			c, err := newConfig(&Options{LRO: &tt.lro})
			if err != nil {
				t.Fatal(err)
			}
			if c.sweep == nil || c.sweep.OnExpired == nil {
				t.Fatalf("sweep options %+v: want an OnExpired", c.sweep)
			}
			if c.sweep.TTL != tt.want {
				t.Errorf("the janitor sweeps with a TTL of %v, want %v", c.sweep.TTL, tt.want)
			}
			c.sweep.OnExpired(context.Background(), "/f.jsonl", t0, true)
			want := []event.Event{event.FileExpired{Path: "/f.jsonl", CreatedAt: t0, Temporary: true}}
			if diff := cmp.Diff(want, rec.events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}
