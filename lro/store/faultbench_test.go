package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/s3test"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/store"
)

// fallbackCall offloads a result through lro into s and returns how long
// the call took, failing unless it fell back.
func fallbackCall(b *testing.B, s *store.Store) time.Duration {
	b.Helper()
	start := time.Now()
	res, err := lro.Wrap(itemsHandler(200), &lro.Options{Store: s})(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
	took := time.Since(start)
	if err != nil {
		b.Fatal(err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || len(tc.Text) < 8 || tc.Text[:8] != "Warning:" {
		b.Fatalf("the call did not fall back: %v", res.Content)
	}
	return took
}

// BenchmarkStalledStore measures how long an offload to a stalled bucket
// (versitygw stopped by SIGSTOP) takes to fall back with the default
// write deadline, DefaultWriteTimeout: s/fallback. Each iteration uses a
// new Store, whose breaker is closed. Run it with -benchtime=1x (an
// iteration takes the deadline).
func BenchmarkStalledStore(b *testing.B) {
	s3test.Setenv()
	srv := s3test.Start(b)
	url := s3test.URL(srv.Endpoint, srv.NewBucket(b))
	pause(b, srv)
	var total time.Duration
	n := 0
	for b.Loop() {
		s := openURL(b, url, nil)
		total += fallbackCall(b, s)
		n++
	}
	b.ReportMetric(total.Seconds()/float64(n), "s/fallback")
}

// BenchmarkDeadStore measures offloads to a bucket whose server is gone
// (versitygw killed: connections refused), 20 calls per iteration with a
// new Store: the mean time of the calls that try the bucket before the
// breaker opens (s/call-closed: the driver's retries) and of those after,
// which fall back at once (s/call-open).
func BenchmarkDeadStore(b *testing.B) {
	s3test.Setenv()
	srv := s3test.Start(b)
	url := s3test.URL(srv.Endpoint, srv.NewBucket(b))
	if err := srv.Process.Kill(); err != nil {
		b.Fatal(err)
	}
	const calls = 20
	var closed, open time.Duration
	var nClosed, nOpen int
	for b.Loop() {
		s := openURL(b, url, nil)
		for i := range calls {
			took := fallbackCall(b, s)
			if i < 3 {
				closed += took
				nClosed++
			} else {
				open += took
				nOpen++
			}
		}
	}
	b.ReportMetric(closed.Seconds()/float64(nClosed), "s/call-closed")
	b.ReportMetric(open.Seconds()/float64(nOpen), "s/call-open")
}
