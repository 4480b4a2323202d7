package proxy_test

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/sidebyside"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// arm is one way of making the same call, for compare.
type arm struct {
	name string
	call func()
}

// compare runs the arms in turn b.N times each, rotating which goes first
// on every iteration, and reports the median per-call time of each and the
// ratio of each median to those of the arms after it, so that noise on a shared machine
// (and the garbage one arm leaves for the next) hits all alike. It extends
// sidebyside.Run to more than two arms.
func compare(b *testing.B, arms ...arm) {
	b.Helper()
	times := make([][]time.Duration, len(arms))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		for k := range arms {
			j := (i + k) % len(arms)
			t0 := time.Now()
			arms[j].call()
			times[j] = append(times[j], time.Since(t0))
		}
		i++
	}
	medians := make([]time.Duration, len(arms))
	for j, a := range arms {
		medians[j] = sidebyside.Median(times[j])
		b.ReportMetric(float64(medians[j].Nanoseconds()), a.name+"-median-ns")
	}
	for j := range arms {
		for k := j + 1; k < len(arms); k++ {
			b.ReportMetric(float64(medians[j])/float64(medians[k]), arms[j].name+"/"+arms[k].name)
		}
	}
}

// BenchmarkProxySmallCall compares a small call (3 items, inline), made to
// an upstream over loopback HTTP:
//
//   - proxy: through the proxy, which the client reaches over a pipe (as
//     it would over stdio);
//   - forwarder: through a bare go-sdk forwarder with the same hops and no
//     offloading, capture or handshake: the cost of the second MCP hop
//     alone;
//   - direct: from the client to the upstream.
//
// Target: proxy/direct <= 1.2. proxy/forwarder is the proxy's own cost.
func BenchmarkProxySmallCall(b *testing.B) {
	ctx := context.Background()
	url := startBenchUpstream(b)
	dial := func(name string, t mcp.Transport) *mcp.ClientSession {
		// A client of protocol 2025-11-25, as the MCP clients in use are.
		cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "v0"}, nil).Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { cs.Close() })
		return cs
	}
	// The client reaches the proxy and the forwarder on the kind of stream
	// examples/proxy serves with Proxy.Run: JSON lines over a pipe, which
	// the client's side encodes and the server's side decodes.
	overPipe := func(s *mcp.Server) *mcp.ClientSession {
		c1, c2 := net.Pipe()
		ss, err := s.Connect(ctx, &mcp.IOTransport{Reader: c1, Writer: c1}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ss.Close() })
		return dial("client", &mcp.IOTransport{Reader: c2, Writer: c2})
	}

	direct := dial("direct", &mcp.StreamableClientTransport{Endpoint: url})

	p, err := proxy.New(ctx, proxy.Upstream{URL: url}, &proxy.Options{LRO: &lro.Options{OutputDir: b.TempDir()}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { p.Close() })
	through := overPipe(p.Server())

	up := dial("forwarder", &mcp.StreamableClientTransport{Endpoint: url})
	fwd := mcp.NewServer(&mcp.Implementation{Name: "forwarder", Version: "v0"}, nil)
	fwd.AddTool(&mcp.Tool{Name: "text", InputSchema: countSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return up.CallTool(ctx, &mcp.CallToolParams{Name: req.Params.Name, Arguments: json.RawMessage(req.Params.Arguments)})
	})
	forwarded := overPipe(fwd)

	callOn := func(cs *mcp.ClientSession) func() {
		return func() {
			// A fresh params each call: the client writes its _meta into it.
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "text", Arguments: map[string]any{"count": 3}})
			if err != nil || res.IsError || len(res.Content) != 1 || len(res.Content[0].(*mcp.TextContent).Text) < 200 {
				b.Fatalf("the call did not return the 3 items inline: %v %v", res, err)
			}
		}
	}
	compare(b, arm{"proxy", callOn(through)}, arm{"forwarder", callOn(forwarded)}, arm{"direct", callOn(direct)})
}

// startBenchUpstream serves the test upstream over loopback HTTP.
func startBenchUpstream(b *testing.B) string {
	b.Helper()
	u := &httpUpstream{tb: b, s: newUpstream(b.TempDir()), addr: "127.0.0.1:0"}
	u.start()
	b.Cleanup(u.stop)
	return u.url()
}
