package proxy_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// peakProxyEnv, when set, makes the test binary a proxy over stdio in front
// of the raw upstream, offloading into the folder it names (see
// peakProxy).
const peakProxyEnv = "LRO_PROXY_TEST_PEAK_PROXY"

// peakURLEnv, when set with peakProxyEnv, is the URL of the upstream of
// peakProxy, instead of the raw upstream.
const peakURLEnv = "LRO_PROXY_TEST_PEAK_URL"

// peakProxy serves the proxy on stdin and stdout, as lro-proxy does.
func peakProxy(dir string) {
	up := proxy.Upstream{Cmd: cmdWith(append(os.Environ(), rawUpstreamEnv+"=1", peakProxyEnv+"="), nil, os.Args[0])}
	if url := os.Getenv(peakURLEnv); url != "" {
		up = proxy.Upstream{URL: url}
	}
	p, err := proxy.New(up, &proxy.Options{LRO: &lro.Options{OutputDir: dir}})
	if err != nil {
		panic(err)
	}
	if err := p.Run(context.Background(), &mcp.IOTransport{Reader: os.Stdin, Writer: os.Stdout, MaxLineLength: proxy.DefaultMaxMessageBytes}); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	p.Close()
}

// vmHWM returns the peak resident size of process pid, from /proc.
func vmHWM(t testing.TB, pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for line := range strings.Lines(string(data)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// peakOf starts the proxy in a process of its own, makes the request line
// req (after initialize) and reads the response line, and returns the
// proxy's peak resident size before and after the request.
func peakOf(t testing.TB, req string, env ...string) (before, after int64) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), peakProxyEnv+"="+t.TempDir()), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	br := bufio.NewReaderSize(stdout, 1<<20)
	send := func(line string) {
		if _, err := stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
		for {
			resp, err := br.ReadSlice('\n')
			reply := strings.Contains(string(resp[:min(len(resp), 100)]), `"id":`)
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			if err != nil {
				t.Fatal(err)
			}
			if reply {
				return
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peak","version":"0"}}}`)
	stdin.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}` + "\n"))
	before = vmHWM(t, cmd.Process.Pid)
	send(req)
	return before, vmHWM(t, cmd.Process.Pid)
}

// peakCases are the requests of BenchmarkProxyPeak and TestProxyPeak, for
// a message of n MiB.
func peakCases(n int) []struct{ name, req string } {
	return []struct{ name, req string }{
		{"passed", `{"jsonrpc":"2.0","id":1,"method":"x/large","params":{"n":` + strconv.Itoa(n) + `}}`},
		{"offloaded", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"large","arguments":{"count":` + strconv.Itoa(n) + `}}}`},
	}
}

// BenchmarkProxyPeak reports how much the proxy's peak resident size grows
// while it passes a message of 64 or 200 MiB from its upstream to its
// client, as a multiple of the message: a result passed as it is, and a
// tool result offloaded.
func BenchmarkProxyPeak(b *testing.B) {
	for _, mib := range []int{64, 200} {
		for _, c := range peakCases(mib) {
			b.Run(fmt.Sprintf("%s/%dMiB", c.name, mib), func(b *testing.B) {
				var grew, peak float64
				for b.Loop() {
					before, after := peakOf(b, c.req)
					grew = max(grew, float64(after-before)/float64(mib<<20))
					peak = max(peak, float64(after)/(1<<20))
				}
				b.ReportMetric(grew, "growth/message")
				b.ReportMetric(peak, "peak-MiB")
			})
		}
	}
}

// BenchmarkProxyPeakHTTP is BenchmarkProxyPeak for an upstream over HTTP,
// whose messages go-sdk's client reads, for a tool result.
func BenchmarkProxyPeakHTTP(b *testing.B) {
	s := mcp.NewServer(&mcp.Implementation{Name: "large", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "large", InputSchema: countSchema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return textResult(bigText(countArg(req) << 20)), nil
	})
	url := startBenchUpstream(b, s)
	for _, mib := range []int{64} {
		b.Run(fmt.Sprintf("offloaded/%dMiB", mib), func(b *testing.B) {
			var grew, peak float64
			for b.Loop() {
				before, after := peakOf(b, peakCases(mib)[1].req, peakURLEnv+"="+url)
				grew = max(grew, float64(after-before)/float64(mib<<20))
				peak = max(peak, float64(after)/(1<<20))
			}
			b.ReportMetric(grew, "growth/message")
			b.ReportMetric(peak, "peak-MiB")
		})
	}
}

// TestProxyPeak checks that the proxy's peak resident size grows by at
// most twice a message of 64 MiB, plus 16 MiB, while it passes it (as
// written, or offloaded): the line read, and the text unquoted from it, and
// no copy more.
func TestProxyPeak(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory multiplies the resident size")
	}
	const mib = 64
	for _, c := range peakCases(mib) {
		t.Run(c.name, func(t *testing.T) {
			before, after := peakOf(t, c.req)
			if grew, most := after-before, int64(2*mib+16)<<20; grew > most {
				t.Errorf("the peak resident size grew by %d MiB (%.2f times the message); want at most %d MiB", grew>>20, float64(grew)/(mib<<20), most>>20)
			}
		})
	}
}
