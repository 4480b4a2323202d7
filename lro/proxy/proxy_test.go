package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/outschema"
	"github.com/zircote/lro-go/internal/proxyflag"
	"github.com/zircote/lro-go/internal/testing/wire"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
	"github.com/zircote/lro-go/lro/store"
)

// upstreamKind starts the test upstream one way and returns how to reach it.
type upstreamKind struct {
	name  string
	start func(t *testing.T, upDir string) proxy.Upstream
}

var upstreamKinds = []upstreamKind{
	{"http", func(t *testing.T, upDir string) proxy.Upstream {
		return proxy.Upstream{URL: startHTTPUpstream(t, newUpstream(upDir)).url()}
	}},
	{"stdio", func(t *testing.T, upDir string) proxy.Upstream {
		return stdioUpstream(upDir)
	}},
}

// stdioUpstream runs this test binary as the upstream, over stdio.
func stdioUpstream(upDir string) proxy.Upstream {
	return proxy.Upstream{Cmd: cmdWith(append(os.Environ(), stdioUpstreamEnv+"="+upDir), os.Stderr, os.Args[0])}
}

// newProxy starts a proxy in front of up and returns a client session
// connected to it as lro-proxy serves its client (see connectProxy).
func newProxy(t *testing.T, up proxy.Upstream, opts *proxy.Options, copts *mcp.ClientOptions) (*proxy.Proxy, *mcp.ClientSession) {
	t.Helper()
	p, err := proxy.New(up, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, connectProxy(t, p, copts)
}

// connectProxy serves p with p.Run on JSON lines over a pipe, as
// lro-proxy serves stdio, and connects a client of protocol 2025-11-25
// (as the MCP clients in use speak) to it.
func connectProxy(t *testing.T, p *proxy.Proxy, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c1, c2 := net.Pipe()
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx, &mcp.IOTransport{Reader: c1, Writer: c1}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-ran; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, copts).Connect(ctx, &mcp.IOTransport{Reader: c2, Writer: c2}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func connectTo(t *testing.T, s *mcp.Server, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, count int) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"count": count}})
	if err != nil {
		t.Fatalf("%s(%d): %v", tool, count, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// offloaded returns the descriptor of res, or nil when res is inline.
func offloaded(t *testing.T, res *mcp.CallToolResult) *offloadResponse {
	t.Helper()
	// The descriptor is the first content; a second one may hold the
	// result's fields besides the records.
	if res.IsError || len(res.Content) == 0 {
		return nil
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	var d offloadResponse
	if !ok || json.Unmarshal([]byte(tc.Text), &d) != nil || !d.Offloaded {
		return nil
	}
	return &d
}

// fileRecords returns the record lines of an offloaded file, header dropped.
func fileRecords(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 || !strings.Contains(lines[0], `"lro_header"`) {
		t.Fatalf("%s: no header line", path)
	}
	return lines[1:]
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func marshalAll[T any](t *testing.T, vs []T) []string {
	t.Helper()
	out := make([]string, len(vs))
	for i, v := range vs {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(data)
	}
	return out
}

func lineRecords(t *testing.T, n int) []string {
	t.Helper()
	type line struct {
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	out := make([]line, n)
	for i := range n {
		out[i] = line{i + 1, fmt.Sprintf("line %d: some log output that goes on for a while, as logs do", i)}
	}
	return marshalAll(t, out)
}

func exactRecords(t *testing.T, n int) []string {
	t.Helper()
	var doc struct{ Rows []json.RawMessage }
	if err := json.Unmarshal([]byte(exactRows(n)), &doc); err != nil {
		t.Fatal(err)
	}
	out := make([]string, n)
	for i, r := range doc.Rows {
		out[i] = compact(t, string(r))
	}
	return out
}

// TestForwarding puts the proxy in front of the test upstream over HTTP and
// over stdio, and checks what its client sees against the upstream itself.
func TestForwarding(t *testing.T) {
	for _, kind := range upstreamKinds {
		t.Run(kind.name, func(t *testing.T) {
			upDir, dir := t.TempDir(), t.TempDir()
			_, cs := newProxy(t, kind.start(t, upDir), &proxy.Options{LRO: &lro.Options{OutputDir: dir}}, nil)
			direct := connectTo(t, newUpstream(t.TempDir()), nil)
			ctx := context.Background()

			t.Run("tools", func(t *testing.T) {
				want := map[string]*mcp.Tool{}
				for tool, err := range direct.Tools(ctx, nil) {
					if err != nil {
						t.Fatal(err)
					}
					if tool.OutputSchema != nil {
						w, err := outschema.Widen(tool.OutputSchema)
						if err != nil {
							t.Fatal(err)
						}
						tool.OutputSchema = generic(t, w)
					}
					want[tool.Name] = tool
				}
				got := map[string]*mcp.Tool{}
				for tool, err := range cs.Tools(ctx, nil) {
					if err != nil {
						t.Fatal(err)
					}
					if tool.OutputSchema != nil {
						tool.OutputSchema = generic(t, tool.OutputSchema)
					}
					got[tool.Name] = tool
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("tools through the proxy differ from the upstream's, output schemas widened (-want +got):\n%s", diff)
				}
			})

			t.Run("small results are the upstream's", func(t *testing.T) {
				for _, tool := range []string{"items", "text", "lines", "exact", "recordless", "page", "fail"} {
					want, got := call(t, direct, tool, 3), call(t, cs, tool, 3)
					// Each server names itself in the protocol's own _meta.
					delete(want.Meta, "io.modelcontextprotocol/serverInfo")
					delete(got.Meta, "io.modelcontextprotocol/serverInfo")
					w, g := generic(t, want).(map[string]any), generic(t, got).(map[string]any)
					// go-sdk's client keeps the resultType of an upstream of
					// protocol 2026-07-28, and its server writes it to every
					// client.
					delete(w, "resultType")
					delete(g, "resultType")
					if diff := cmp.Diff(w, g); diff != "" {
						t.Errorf("%s: result through the proxy differs (-direct +proxy):\n%s", tool, diff)
					}
				}
			})

			t.Run("large results are offloaded here, exactly", func(t *testing.T) {
				tests := []struct {
					tool  string
					count int
					want  []string
					why   string
				}{
					{"items", 200, marshalAll(t, generic(t, makeItems(200)).([]any)), "an upstream built with lro returns them inline to the proxy (go-sdk sorts the keys of typed output)"},
					{"text", 200, marshalAll(t, makeItems(200)), "a JSON array in text"},
					{"lines", 300, lineRecords(t, 300), "plain text: one record per line"},
					{"exact", 150, exactRecords(t, 150), "key order and numbers as the upstream wrote them"},
					{"recordless", 300, lineRecords(t, 300), `{"content": text} holds no array beside the text itself: the text's lines are the records`},
				}
				for _, tt := range tests {
					res := call(t, cs, tt.tool, tt.count)
					d := offloaded(t, res)
					if d == nil {
						t.Errorf("%s(%d): not offloaded (%s): %.200s", tt.tool, tt.count, tt.why, text(res))
						continue
					}
					if filepath.Dir(d.FilePath) != dir {
						t.Errorf("%s: file %s is not in the proxy's folder %s", tt.tool, d.FilePath, dir)
					}
					if diff := cmp.Diff(tt.want, fileRecords(t, d.FilePath)); diff != "" {
						t.Errorf("%s: records in the file are not the upstream's (%s) (-want +got):\n%s", tt.tool, tt.why, diff)
					}
					if len(d.JqRecipes) != 10 {
						t.Errorf("%s: %d recipes, want 10", tt.tool, len(d.JqRecipes))
					}
				}
				if entries, _ := os.ReadDir(upDir); len(entries) > 0 {
					t.Errorf("the upstream offloaded %d files itself; it should have returned them inline to the proxy", len(entries))
				}
			})

			t.Run("the fields besides the records are kept", func(t *testing.T) {
				res := call(t, cs, "page", 200)
				d := offloaded(t, res)
				if d == nil {
					t.Fatalf("page(200) not offloaded: %.200s", text(res))
				}
				if diff := cmp.Diff(marshalAll(t, makeItems(200)), fileRecords(t, d.FilePath)); diff != "" {
					t.Errorf("records (-want +got):\n%s", diff)
				}
				// The descriptor shows them, and the file's header keeps them.
				if d.Beside == nil || !strings.Contains(string(d.Beside.Values), `total":1000`) || !strings.Contains(string(d.Beside.Values), `"c-2"`) {
					t.Errorf("beside = %+v, want the total and the cursor", d.Beside)
				}
				if len(res.Content) != 1 {
					t.Errorf("%d content items, want the descriptor alone", len(res.Content))
				}
				header, _, _ := strings.Cut(readFile(t, d.FilePath), "\n")
				if !strings.Contains(header, `"total":1000`) || !strings.Contains(header, `"next_cursor":"c-2"`) {
					t.Errorf("header %.300s does not keep the total and the cursor", header)
				}
				if len(call(t, cs, "page", 2).Content) != 1 {
					t.Error("an inline page got an extra content item")
				}
			})

			t.Run("numbers float64 cannot hold", func(t *testing.T) {
				d := offloaded(t, call(t, cs, "huge", 200))
				if d == nil {
					t.Fatal("huge(200) not offloaded")
				}
				if data := readFile(t, d.FilePath); !strings.Contains(data, `{"n":0,"big":1e400,`) {
					t.Errorf("the file does not hold the upstream's numbers as written: %.300s", data)
				}
			})

			t.Run("tool errors pass through", func(t *testing.T) {
				want, got := call(t, direct, "fail", 0), call(t, cs, "fail", 0)
				if !got.IsError || offloaded(t, got) != nil {
					t.Errorf("fail: isError %v, offloaded %v; want the upstream's tool error", got.IsError, offloaded(t, got) != nil)
				}
				if text(want) != text(got) {
					t.Errorf("fail: text %.50q, want %.50q", text(got), text(want))
				}
			})

			t.Run("protocol errors pass through", func(t *testing.T) {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "protocol_error", Arguments: map[string]any{}})
				var werr *jsonrpc.Error
				if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "count is out of range") {
					t.Errorf("protocol_error: err = %v, want the upstream's invalid params error", err)
				}
				_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
				if !errors.As(err, &werr) || !strings.Contains(werr.Message, "no_such_tool") {
					t.Errorf("no_such_tool: err = %v, want an unknown tool error", err)
				}
			})

			t.Run("meta", func(t *testing.T) {
				meta := mcp.Meta{
					"x.example/trace":                 "t-1",
					mcp.MetaKeyClientInfo:             map[string]any{"name": "the client's", "version": "0"},
					"io.modelcontextprotocol/made-up": true,
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "meta", Arguments: map[string]any{}, Meta: meta})
				if err != nil {
					t.Fatal(err)
				}
				var seen struct {
					Meta  map[string]any `json:"meta"`
					Proxy bool           `json:"proxy"`
				}
				if err := json.Unmarshal([]byte(text(res)), &seen); err != nil {
					t.Fatalf("%v: %s", err, text(res))
				}
				if !seen.Proxy {
					t.Error("the upstream does not see an LRO proxy")
				}
				// The client's _meta passes as it is, with the proxy's mark:
				// its key, and clientInfo.proxy where the client sent its
				// clientInfo.
				want := generic(t, meta).(map[string]any)
				want[proxyflag.Key] = map[string]any{"proxy": true}
				want[mcp.MetaKeyClientInfo].(map[string]any)["proxy"] = true
				if diff := cmp.Diff(want, seen.Meta); diff != "" {
					t.Errorf("_meta at the upstream (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// generic round-trips v through JSON, for comparisons of what a client sees.
func generic(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestProgressIsRelayed(t *testing.T) {
	for _, kind := range upstreamKinds {
		t.Run(kind.name, func(t *testing.T) {
			var mu sync.Mutex
			var got []string
			_, cs := newProxy(t, kind.start(t, t.TempDir()), &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, &mcp.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, fmt.Sprintf("%v %v/%v %s", req.Params.ProgressToken, req.Params.Progress, req.Params.Total, req.Params.Message))
				},
			})
			params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{}}
			params.SetProgressToken("my-token")
			if _, err := cs.CallTool(context.Background(), params); err != nil {
				t.Fatal(err)
			}
			want := []string{"my-token 1/3 step 1", "my-token 2/3 step 2", "my-token 3/3 step 3"}
			waitFor(t, "three progress notifications", func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(got) >= len(want)
			})
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("progress at the client (-want +got):\n%s", diff)
			}
		})
	}
}

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNewErrors(t *testing.T) {
	folder, err := store.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		up       proxy.Upstream
		opts     *proxy.Options
		want     error
		contains string
	}{
		{"nothing", proxy.Upstream{}, nil, proxy.ErrInvalidUpstream, "neither a URL nor a command"},
		{"both", proxy.Upstream{URL: "http://localhost:1/mcp", Cmd: exec.Command("x")}, nil, proxy.ErrInvalidUpstream, "both"},
		{"relative URL", proxy.Upstream{URL: "localhost:8080/mcp"}, nil, proxy.ErrInvalidUpstream, "localhost:8080/mcp"},
		{"ftp URL", proxy.Upstream{URL: "ftp://example.com/mcp"}, nil, proxy.ErrInvalidUpstream, "http or https"},
		{"empty program", proxy.Upstream{Cmd: exec.Command("")}, nil, proxy.ErrInvalidUpstream, "program is empty"},
		{"bad header", proxy.Upstream{URL: "http://localhost:1/mcp", Header: map[string][]string{"Bad Name": {"x"}}}, nil, proxy.ErrInvalidUpstream, "Bad Name"},
		{"ftp URL's password hidden", proxy.Upstream{URL: "ftp://u:secret@example.com/mcp"}, nil, proxy.ErrInvalidUpstream, "u:xxxxx@example.com"},
		{"both, the password hidden", proxy.Upstream{URL: "http://u:secret@localhost:1/mcp", Cmd: exec.Command("x")}, nil, proxy.ErrInvalidUpstream, "u:xxxxx@localhost:1"},
		{"unparsable URL's password hidden", proxy.Upstream{URL: "http://u:secret@[::1/mcp"}, nil, proxy.ErrInvalidUpstream, "does not parse"},
		{"bad LRO options", proxy.Upstream{URL: "http://127.0.0.1:1/mcp"}, &proxy.Options{LRO: &lro.Options{ThresholdTokens: -1}}, lro.ErrInvalidOption, "ThresholdTokens"},
		{"store", proxy.Upstream{URL: "http://127.0.0.1:1/mcp"}, &proxy.Options{LRO: &lro.Options{Store: folder}}, lro.ErrInvalidOption, "Store"},
		{"negative message size", proxy.Upstream{URL: "http://127.0.0.1:1/mcp"}, &proxy.Options{MaxMessageBytes: -1}, nil, "MaxMessageBytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := proxy.New(tt.up, tt.opts)
			if err == nil {
				p.Close()
				t.Fatal("New succeeded")
			}
			if (tt.want != nil && !errors.Is(err, tt.want)) || !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("New: %v; want %v mentioning %q", err, tt.want, tt.contains)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("New: %v; holds the URL's password", err)
			}
		})
	}
}

// TestUnreachable starts a session in front of an upstream that cannot be
// reached: the client's initialize fails with an error naming it, without
// its password.
func TestUnreachable(t *testing.T) {
	tests := []struct {
		name     string
		up       proxy.Upstream
		contains string
	}{
		{"nobody listening", proxy.Upstream{URL: "http://127.0.0.1:1/mcp"}, "http://127.0.0.1:1/mcp"},
		{"password hidden", proxy.Upstream{URL: "http://user:secret@127.0.0.1:1/mcp"}, "user:xxxxx@127.0.0.1:1"},
		{"no such program", proxy.Upstream{Cmd: exec.Command("/no/such/mcp-server", "--flag")}, "command /no/such/mcp-server --flag"},
		{"program that is no MCP server", proxy.Upstream{Cmd: exec.Command("true")}, "command true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := proxy.New(tt.up, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c1, c2 := net.Pipe()
			go p.Run(ctx, &mcp.IOTransport{Reader: c1, Writer: c1})
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: c2, Writer: c2}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err == nil {
				cs.Close()
				t.Fatal("Connect succeeded")
			}
			if !strings.Contains(err.Error(), "upstream unavailable") || !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("Connect: %v; want upstream unavailable mentioning %q", err, tt.contains)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("Connect: %v: the error shows the password", err)
			}
		})
	}
}

// TestReconnectHTTP stops the upstream in the middle of a session: a call
// fails with a tool error naming it, and calls succeed again once it is back
// on the same address.
func TestReconnectHTTP(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy protocol %v", legacy), func(t *testing.T) {
			s := newUpstream(t.TempDir())
			if legacy {
				// An upstream that keeps sessions: after its restart, the
				// proxy's session is unknown to it.
				s = mcp.NewServer(&mcp.Implementation{Name: "legacy", Version: "v1"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
				s.AddTool(&mcp.Tool{Name: "text", InputSchema: countSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					data, err := json.Marshal(makeItems(countArg(req)))
					return textResult(string(data)), err
				})
			}
			u := startHTTPUpstream(t, s)
			_, cs := newProxy(t, proxy.Upstream{URL: u.url()}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, nil)
			if res := call(t, cs, "text", 2); res.IsError {
				t.Fatalf("before the stop: %s", text(res))
			}
			u.stop()
			res := call(t, cs, "text", 2)
			if !res.IsError || !strings.Contains(text(res), u.url()) || !strings.Contains(text(res), "upstream unavailable") {
				t.Errorf("while stopped: isError %v, %q; want a tool error naming %s", res.IsError, text(res), u.url())
			}
			t.Logf("while stopped: %s", text(res))
			u.start()
			res = call(t, cs, "text", 2)
			if res.IsError {
				t.Fatalf("after the restart: %s", text(res))
			}
			if want := "[" + strings.Join(marshalAll(t, makeItems(2)), ",") + "]"; text(res) != want {
				t.Errorf("after the restart: %s, want %s", text(res), want)
			}
		})
	}
}

// TestReconnectStdio ends the upstream's process: the call that ended it
// fails with a tool error, and the next call starts it again.
func TestReconnectStdio(t *testing.T) {
	_, cs := newProxy(t, stdioUpstream(t.TempDir()), &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, nil)
	first := text(call(t, cs, "pid", 0))
	res := call(t, cs, "exit", 0)
	if !res.IsError || !strings.Contains(text(res), "command "+os.Args[0]) {
		t.Errorf("exit: isError %v, %q; want a tool error naming the command", res.IsError, text(res))
	}
	t.Logf("exit: %s", text(res))
	res = call(t, cs, "pid", 0)
	if res.IsError {
		t.Fatalf("after the exit: %s", text(res))
	}
	if second := text(res); second == first || second == "" {
		t.Errorf("pid after the restart = %q, before = %q; want a new process", second, first)
	}
}

// TestToolListChanges has the upstream add and remove tools, over both
// transports, and waits for the proxy's client to see the change. Over
// HTTP, the tool is added once the proxy's stream of the upstream's own
// messages (its GET) is open: a go-sdk server without an event store drops
// a notification sent before that, to the proxy as to its own client.
func TestToolListChanges(t *testing.T) {
	for _, kind := range upstreamKinds {
		t.Run(kind.name, func(t *testing.T) {
			var up proxy.Upstream
			listening := make(chan struct{})
			if kind.name == "http" {
				var once sync.Once
				u := &httpUpstream{tb: t, s: newUpstream(t.TempDir()), addr: "127.0.0.1:0", wrap: func(h http.Handler) http.Handler {
					return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
						if r.Method == http.MethodGet {
							w = &firstWrite{ResponseWriter: w, wrote: func() { once.Do(func() { close(listening) }) }}
						}
						h.ServeHTTP(w, r)
					})
				}}
				u.start()
				t.Cleanup(u.stop)
				up = proxy.Upstream{URL: u.url()}
			} else {
				up = kind.start(t, t.TempDir())
				close(listening)
			}
			changed := make(chan struct{}, 10)
			_, cs := newProxy(t, up, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
					select {
					case changed <- struct{}{}:
					default:
					}
				},
			})
			select {
			case <-listening:
			case <-time.After(time.Minute): // a bound for a loaded machine, not a measure
				t.Fatal("the proxy opened no stream of the upstream's messages within a minute")
			}
			if got := text(call(t, cs, "grow", 0)); got != "grown" {
				t.Fatalf("grow: %q", got)
			}
			waitFor(t, "the tool list to change", func() bool {
				names := toolNames(t, cs)
				return slices.Contains(names, "grown") && !slices.Contains(names, "lines")
			})
			if got := text(call(t, cs, "grown", 0)); got != "hello from a new tool" {
				t.Errorf("grown: %q", got)
			}
			select {
			case <-changed:
			case <-time.After(time.Minute): // a bound for a loaded machine, not a measure
				t.Error("the proxy's client got no tools/list_changed notification within a minute")
			}
		})
	}
}

// firstWrite is a ResponseWriter that calls wrote at its first Write: a
// server's stream is open once it has written its headers and first bytes.
type firstWrite struct {
	http.ResponseWriter
	wrote func()
}

func (w *firstWrite) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.wrote()
	return n, err
}

// Unwrap returns the ResponseWriter, for http.ResponseController's Flush.
func (w *firstWrite) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool.Name)
	}
	return out
}

// TestReconnectListsTools restarts the upstream with other tools: the
// proxy lists them when it connects again.
func TestReconnectListsTools(t *testing.T) {
	u := startHTTPUpstream(t, newUpstream(t.TempDir()))
	tr := http.DefaultTransport.(*http.Transport).Clone()
	_, cs := newProxy(t, proxy.Upstream{URL: u.url(), HTTPClient: &http.Client{Transport: tr}}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, nil)
	u.stop()
	// A connection the stopped server closed could otherwise still be in
	// the pool, and a POST sent on it fails with EOF (as it would for a
	// real client: the proxy does not send a call twice unless the new
	// server says it never saw the session).
	tr.CloseIdleConnections()
	u.s = mcp.NewServer(&mcp.Implementation{Name: "upstream v2", Version: "v2"}, nil)
	u.s.AddTool(&mcp.Tool{Name: "text", InputSchema: countSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult("v2"), nil
	})
	u.start()
	// The new server does not know the proxy's session and says so: the
	// proxy makes the call again on a new session.
	if got := text(call(t, cs, "text", 1)); got != "v2" {
		t.Fatalf("text after the restart: %q", got)
	}
	waitFor(t, "the proxy to list the new upstream's tools", func() bool {
		return cmp.Equal(toolNames(t, cs), []string{"text"})
	})
}

func TestLocalTools(t *testing.T) {
	up := proxy.Upstream{URL: startHTTPUpstream(t, newUpstream(t.TempDir())).url()}
	_, cs := newProxy(t, up, &proxy.Options{
		LRO: &lro.Options{OutputDir: t.TempDir()},
		RegisterLocalTools: func(s *mcp.Server) error {
			s.AddTool(&mcp.Tool{Name: "pid", Description: "local", InputSchema: countSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return textResult("local pid"), nil
			})
			return nil
		},
	}, nil)
	if got := text(call(t, cs, "pid", 0)); got != "local pid" {
		t.Errorf("pid = %q; want the local tool, which hides the upstream's", got)
	}
	if res := call(t, cs, "text", 1); res.IsError {
		t.Errorf("text: %s", text(res))
	}

	_, err := proxy.New(up, &proxy.Options{RegisterLocalTools: func(*mcp.Server) error { return errors.New("no extraction today") }})
	if err == nil || !strings.Contains(err.Error(), "no extraction today") {
		t.Errorf("New with a failing RegisterLocalTools: %v", err)
	}
}

func TestDisabled(t *testing.T) {
	up := proxy.Upstream{URL: startHTTPUpstream(t, newUpstream(t.TempDir())).url()}
	dir := t.TempDir()
	_, cs := newProxy(t, up, &proxy.Options{LRO: &lro.Options{OutputDir: dir, Disabled: true}}, nil)
	if d := offloaded(t, call(t, cs, "text", 300)); d != nil {
		t.Errorf("offloaded to %s with offloading disabled", d.FilePath)
	}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "exact" && strings.Contains(fmt.Sprint(tool.OutputSchema), "offloaded") {
			t.Errorf("exact: output schema widened with offloading disabled: %v", tool.OutputSchema)
		}
	}
}

// TestConcurrentCalls makes calls of different sizes at once: each file
// holds the records of its own call.
func TestConcurrentCalls(t *testing.T) {
	for _, kind := range upstreamKinds {
		t.Run(kind.name, func(t *testing.T) {
			dir := t.TempDir()
			_, cs := newProxy(t, kind.start(t, t.TempDir()), &proxy.Options{LRO: &lro.Options{OutputDir: dir}}, nil)
			const calls = 16
			paths := make([]string, calls)
			var wg sync.WaitGroup
			for i := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n := 60 + 7*i // every call offloads, each a different count
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "exact", Arguments: map[string]any{"count": n}})
					if err != nil {
						t.Errorf("exact(%d): %v", n, err)
						return
					}
					var d offloadResponse
					if json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &d) != nil || !d.Offloaded {
						t.Errorf("exact(%d) not offloaded: %.100s", n, text(res))
						return
					}
					paths[i] = d.FilePath
				}()
			}
			wg.Wait()
			for i, path := range paths {
				if path == "" {
					continue // reported
				}
				n := 60 + 7*i
				if diff := cmp.Diff(exactRecords(t, n), fileRecords(t, path)); diff != "" {
					t.Errorf("exact(%d): records (-want +got):\n%s", n, diff)
				}
			}
		})
	}
}

// TestCancellation cancels a call in flight: the call returns, the upstream
// sees the cancellation, and the next call works.
func TestCancellation(t *testing.T) {
	u := startHTTPUpstream(t, newUpstream(t.TempDir()))
	_, cs := newProxy(t, proxy.Upstream{URL: u.url()}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
		done <- err
	}()
	waitBlocked(t, "started")
	cancel()
	if err := <-done; err == nil {
		t.Error("the canceled call returned no error")
	}
	waitBlocked(t, "canceled")
	if res := call(t, cs, "text", 2); res.IsError {
		t.Errorf("after the cancellation: %s", text(res))
	}
}

// waitBlocked waits for the upstream's tool block to report want.
func waitBlocked(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-blocked:
		if got != want {
			t.Fatalf("the upstream's tool block: %s; want %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the upstream's tool block did not report %s", want)
	}
}

// headerRoundTripper is a user's transport that adds a header.
type headerRoundTripper struct{}

func (headerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Round-Tripper", "user")
	return http.DefaultTransport.RoundTrip(r)
}

// TestHeaders checks the HTTP request of a call: it carries the session's
// headers and the user's (Upstream.Header, and those of the transport of
// Upstream.HTTPClient).
func TestHeaders(t *testing.T) {
	var mu sync.Mutex
	var calls []http.Header
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"tools/call"`)) {
				mu.Lock()
				calls = append(calls, r.Header.Clone())
				mu.Unlock()
			}
			h.ServeHTTP(w, r)
		})
	}
	u := &httpUpstream{tb: t, s: newUpstream(t.TempDir()), addr: "127.0.0.1:0", wrap: record}
	u.start()
	t.Cleanup(u.stop)
	up := proxy.Upstream{
		URL:        u.url(),
		Header:     http.Header{"Authorization": {"Bearer t0ken"}, "X-Trace": {"a", "b"}},
		HTTPClient: &http.Client{Transport: headerRoundTripper{}},
	}
	_, cs := newProxy(t, up, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, nil)
	if res := call(t, cs, "lines", 1); res.IsError {
		t.Fatal(text(res))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 1 {
		t.Fatalf("the upstream saw %d calls; want 1", len(calls))
	}
	h := calls[0]
	for k, v := range map[string]string{"Authorization": "Bearer t0ken", "X-Round-Tripper": "user", "Mcp-Protocol-Version": "2025-11-25"} {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %q; want %q", k, got, v)
		}
	}
	if got := h.Values("X-Trace"); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("X-Trace: %q; want [a b]", got)
	}
	if h.Get("Mcp-Session-Id") == "" {
		t.Error("no Mcp-Session-Id")
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// cmdWith returns exec.Command(name, args...) with env and stderr.
func cmdWith(env []string, stderr io.Writer, name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.Env, cmd.Stderr = env, stderr
	return cmd
}

// offloadResponse is what these tests read of a descriptor.
type offloadResponse = wire.Descriptor
