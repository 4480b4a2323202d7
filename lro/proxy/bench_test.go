package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/sidebyside"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// overPipe connects a client of protocol 2025-11-25 (as the MCP clients in
// use are) to p on the kind of stream lro-proxy serves with Proxy.Run: JSON
// lines over a pipe.
func overPipe(b *testing.B, p *proxy.Proxy) *mcp.ClientSession {
	ctx, cancel := context.WithCancel(context.Background())
	c1, c2 := net.Pipe()
	done := make(chan struct{})
	go func() {
		p.Run(ctx, &mcp.IOTransport{Reader: c1, Writer: c1})
		close(done)
	}()
	b.Cleanup(func() {
		cancel()
		<-done
	})
	return dial(b, &mcp.IOTransport{Reader: c2, Writer: c2})
}

func dial(b *testing.B, t mcp.Transport) *mcp.ClientSession {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(context.Background(), t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// BenchmarkProxySmallCall compares a small call (3 items, inline), made to
// an upstream over loopback HTTP:
//
//   - proxy: through the proxy, which the client reaches over a pipe (as
//     it would over stdio);
//   - forwarder: through a bare go-sdk server that forwards the call with a
//     go-sdk client, over the same hops: the cost of the second hop alone;
//   - direct: from the client to the upstream.
func BenchmarkProxySmallCall(b *testing.B) {
	url := startBenchUpstream(b, newUpstream(b.TempDir()))
	p, err := proxy.New(proxy.Upstream{URL: url}, &proxy.Options{LRO: &lro.Options{OutputDir: b.TempDir()}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	through := overPipe(b, p)
	direct := dial(b, &mcp.StreamableClientTransport{Endpoint: url})
	up := dial(b, &mcp.StreamableClientTransport{Endpoint: url})
	fwd := mcp.NewServer(&mcp.Implementation{Name: "forwarder", Version: "v0"}, nil)
	fwd.AddTool(&mcp.Tool{Name: "text", InputSchema: countSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return up.CallTool(ctx, &mcp.CallToolParams{Name: req.Params.Name, Arguments: json.RawMessage(req.Params.Arguments)})
	})
	c1, c2 := net.Pipe()
	ss, err := fwd.Connect(context.Background(), &mcp.IOTransport{Reader: c1, Writer: c1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	forwarded := dial(b, &mcp.IOTransport{Reader: c2, Writer: c2})
	callOn := func(cs *mcp.ClientSession) func() {
		return func() {
			// A fresh params each call: the client writes its _meta into it.
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "text", Arguments: map[string]any{"count": 3}})
			if err != nil || res.IsError || len(res.Content) != 1 || len(res.Content[0].(*mcp.TextContent).Text) < 200 {
				b.Fatalf("the call did not return the 3 items inline: %v %v", res, err)
			}
		}
	}
	sidebyside.Run(b,
		sidebyside.Arm{Name: "proxy", Run: callOn(through)},
		sidebyside.Arm{Name: "forwarder", Run: callOn(forwarded)},
		sidebyside.Arm{Name: "direct", Run: callOn(direct)},
	)
}

// BenchmarkProxyOffload10k compares an offloaded result of 10,000 records
// (1.2 MB of JSON text):
//
//   - proxy: through the proxy, from an upstream over stdio that writes its
//     result as prepared bytes: the proxy's own cost (reading the message,
//     offloading) beside the library's;
//   - proxy_http: through the proxy, from a plain go-sdk upstream over
//     loopback HTTP: go-sdk's encoding on the upstream, and its HTTP client,
//     carry the whole result one hop more;
//   - direct_http: go-sdk's client calls the plain upstream directly, over
//     loopback HTTP, and receives the whole result: what proxy_http pays
//     beside the offload;
//   - library: the go-sdk upstream offloads them itself with lro.Wrap, and
//     returns the descriptor over loopback HTTP;
//   - floor: what any proxy of the stdio upstream pays beside the library's
//     offload, and no more (see floorArm); floor/library is the least
//     proxy/library can be.
//
// Target: proxy/library <= 1.3.
func BenchmarkProxyOffload10k(b *testing.B) {
	data, err := json.Marshal(makeItems(10_000))
	if err != nil {
		b.Fatal(err)
	}
	records := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(string(data)), nil
	}
	plain := mcp.NewServer(&mcp.Implementation{Name: "plain", Version: "v1"}, nil)
	plain.AddTool(&mcp.Tool{Name: "records", InputSchema: countSchema}, records)
	withLRO := mcp.NewServer(&mcp.Implementation{Name: "lro", Version: "v1"}, nil)
	withLRO.AddTool(&mcp.Tool{Name: "records", InputSchema: countSchema}, lro.Wrap(records, &lro.Options{OutputDir: b.TempDir()}))

	newProxy := func(up proxy.Upstream) *mcp.ClientSession {
		p, err := proxy.New(up, &proxy.Options{LRO: &lro.Options{OutputDir: b.TempDir()}})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { p.Close() })
		return overPipe(b, p)
	}
	viaStdio := newProxy(proxy.Upstream{Cmd: cmdWith(append(os.Environ(), rawUpstreamEnv+"=1"), nil, os.Args[0])})
	plainURL := startBenchUpstream(b, plain)
	viaHTTP := newProxy(proxy.Upstream{URL: plainURL})
	direct := dial(b, &mcp.StreamableClientTransport{Endpoint: plainURL})
	library := dial(b, &mcp.StreamableClientTransport{Endpoint: startBenchUpstream(b, withLRO)})
	callOn := func(cs *mcp.ClientSession) func() {
		return func() {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "records", Arguments: map[string]any{}})
			if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"offloaded":true`) {
				b.Fatalf("the call was not offloaded: %v %v", res, err)
			}
		}
	}
	directHTTP := func() {
		res, err := direct.CallTool(context.Background(), &mcp.CallToolParams{Name: "records", Arguments: map[string]any{}})
		if err != nil || res.IsError || len(res.Content[0].(*mcp.TextContent).Text) != len(data) {
			b.Fatalf("the call did not return the records: %v", err)
		}
	}
	sidebyside.Run(b,
		sidebyside.Arm{Name: "proxy", Run: callOn(viaStdio)},
		sidebyside.Arm{Name: "proxy_http", Run: callOn(viaHTTP)},
		sidebyside.Arm{Name: "direct_http", Run: directHTTP},
		sidebyside.Arm{Name: "floor", Run: floorArm(b)},
		sidebyside.Arm{Name: "library", Run: callOn(library)},
	)
}

// floorArm returns a call that does what any proxy of the stdio upstream of
// BenchmarkProxyOffload10k must do beside the library's offload, and no
// more: it sends the call to that upstream, reads the answer's line from
// the pipe, decodes it in one pass (the JSON checked, the text unquoted),
// and offloads the text with lro.Wrap, in this process. It has no client
// and no relay.
func floorArm(b *testing.B) func() {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), rawUpstreamEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	br := bufio.NewReaderSize(stdout, 64<<10)
	if _, err := br.ReadBytes('\n'); err != nil { // the upstream's line that is no message
		b.Fatal(err)
	}
	var text string
	offload := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(text), nil
	}, &lro.Options{OutputDir: b.TempDir()})
	return func() {
		if _, err := io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"records","arguments":{}}}`+"\n"); err != nil {
			b.Fatal(err)
		}
		line, err := br.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		var msg struct {
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := jsonv2.Unmarshal(line, &msg); err != nil || len(msg.Result.Content) != 1 {
			b.Fatalf("the upstream's answer: %v: %.200s", err, line)
		}
		text = msg.Result.Content[0].Text
		res, err := offload(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "records"}})
		if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"offloaded":true`) {
			b.Fatalf("the call was not offloaded: %v %v", res, err)
		}
	}
}

// startBenchUpstream serves s over loopback HTTP.
func startBenchUpstream(b *testing.B, s *mcp.Server) string {
	b.Helper()
	u := &httpUpstream{tb: b, s: s, addr: "127.0.0.1:0"}
	u.start()
	b.Cleanup(u.stop)
	return u.url()
}

// BenchmarkProxyManyItems passes a result of n one-character text items
// from an upstream over stdio through the proxy, offloaded.
func BenchmarkProxyManyItems(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			p, err := proxy.New(proxy.Upstream{Cmd: cmdWith(append(os.Environ(), rawUpstreamEnv+"=1"), nil, os.Args[0])}, &proxy.Options{LRO: &lro.Options{OutputDir: b.TempDir()}})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { p.Close() })
			cs := overPipe(b, p)
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "items", Arguments: map[string]any{"count": n}})
				if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"offloaded":true`) {
					b.Fatalf("the call was not offloaded: %v %v", res, err)
				}
			}
		})
	}
}
