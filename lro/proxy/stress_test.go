package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// jitterWriter writes to w in pieces of random sizes, with a random short
// pause before each: a client's pipe under load, as the test injects it.
type jitterWriter struct {
	w   io.Writer
	mu  sync.Mutex
	rnd *rand.Rand
}

func (j *jitterWriter) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	n := 0
	for n < len(p) {
		k := min(len(p)-n, 1+j.rnd.IntN(64))
		if j.rnd.IntN(4) == 0 {
			time.Sleep(time.Duration(j.rnd.IntN(300)) * time.Microsecond)
		}
		m, err := j.w.Write(p[n : n+k])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// jitterReader reads r in pieces of random sizes, with a random short
// pause before some: a client slow to read the proxy's answers.
type jitterReader struct {
	r   io.Reader
	rnd *rand.Rand
}

func (j *jitterReader) Read(p []byte) (int, error) {
	if j.rnd.IntN(8) == 0 {
		time.Sleep(time.Duration(j.rnd.IntN(500)) * time.Microsecond)
	}
	return j.r.Read(p[:min(len(p), 1+j.rnd.IntN(4096))])
}

// TestStressNoMessageLost runs sessions side by side, each a client that
// speaks as the TypeScript client does (initialize, initialized, tools/list,
// then calls at once, some of them offloaded, some canceled, some
// pipelined), over pipes that the test writes and reads in random pieces
// with random pauses, to an upstream command (go-sdk, over stdio). Every
// call the client did not cancel must get exactly one answer; a canceled
// one at most one; and nothing else may come. A lost or held answer shows
// as a session that does not end within the bound, which names the calls.
func TestStressNoMessageLost(t *testing.T) {
	t.Parallel()
	const sessions, calls = 6, 12
	p, err := proxy.New(stdioUpstream(t.TempDir()), &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	var wg sync.WaitGroup
	for s := range sessions {
		wg.Go(func() { stressSession(t, p, uint64(s), calls) })
	}
	wg.Wait()
}

// stressSession runs one session of TestStressNoMessageLost, with the
// random choices of seed.
func stressSession(t *testing.T, p *proxy.Proxy, seed uint64, calls int) {
	rnd := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
	inR, inW, err := os.Pipe() // client -> proxy
	if err != nil {
		t.Error(err)
		return
	}
	outR, outW, err := os.Pipe() // proxy -> client
	if err != nil {
		t.Error(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		ran <- p.Run(ctx, &mcp.IOTransport{Reader: inR, Writer: outW, MaxLineLength: proxy.DefaultMaxMessageBytes})
	}()
	defer func() {
		inW.Close() // the client's input ends: Run returns
		select {
		case err := <-ran:
			if err != nil {
				t.Errorf("session %d: Run: %v", seed, err)
			}
		case <-time.After(2 * time.Minute): // a guard against a hang, not a timing assertion
			t.Errorf("session %d: Run did not return", seed)
			cancel()
			<-ran
		}
		cancel()
		outR.Close()
	}()
	w := &jitterWriter{w: inW, rnd: rand.New(rand.NewPCG(seed, 1))}
	send := func(line string) {
		if _, err := w.Write([]byte(line + "\n")); err != nil {
			t.Errorf("session %d: writing %s: %v", seed, preview(line), err)
		}
	}

	var mu sync.Mutex
	got := map[int64]int{}  // answers by id
	big := map[int64]bool{} // the calls whose answer is offloaded
	arrived := make(chan int64, 4*calls)
	go func() {
		br := bufio.NewReaderSize(&jitterReader{r: outR, rnd: rand.New(rand.NewPCG(seed, 2))}, 1<<16)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				close(arrived)
				return
			}
			msg, err := jsonrpc.DecodeMessage(line)
			if err != nil {
				t.Errorf("session %d: the proxy wrote %q: %v", seed, preview(string(line)), err)
				continue
			}
			resp, ok := msg.(*jsonrpc.Response)
			if !ok {
				continue // the upstream's own messages
			}
			id, _ := resp.ID.Raw().(int64)
			mu.Lock()
			got[id]++
			offload := big[id]
			mu.Unlock()
			var res mcp.CallToolResult
			switch {
			case resp.Error != nil:
				t.Errorf("session %d: response to %d: %v", seed, id, resp.Error)
			case strings.Contains(string(resp.Result), "lro proxy:"):
				t.Errorf("session %d: response to %d: %s", seed, id, preview(string(resp.Result)))
			case offload && (json.Unmarshal(resp.Result, &res) != nil || offloaded(t, &res) == nil):
				t.Errorf("session %d: response to %d is not offloaded: %s", seed, id, preview(string(resp.Result)))
			}
			arrived <- id
		}
	}()
	failed := false
	await := func(want map[int64]bool) {
		if failed {
			return
		}
		bound := time.After(time.Minute) // a guard against a hang, not a timing assertion
		for len(want) > 0 {
			select {
			case id, ok := <-arrived:
				if !ok {
					t.Errorf("session %d: the proxy closed its output", seed)
					failed = true
					return
				}
				delete(want, id)
			case <-bound:
				var ids []int64
				for id := range want {
					ids = append(ids, id)
				}
				sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
				t.Errorf("session %d: no answer to the requests %v within a minute", seed, ids)
				failed = true
				return
			}
		}
	}

	// As the TypeScript client: initialize (id 0), initialized, tools/list.
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stress","version":"0"}}}`)
	await(map[int64]bool{0: true})
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`)
	await(map[int64]bool{1: true})

	want, canceled := map[int64]bool{}, map[int64]bool{}
	for i := range calls {
		id := int64(2 + i)
		count := 2
		if rnd.IntN(2) == 0 {
			count = 300 // offloaded
			mu.Lock()
			big[id] = true
			mu.Unlock()
		}
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"text","arguments":{"count":%d}}}`, id, count))
		if i > 0 && rnd.IntN(4) == 0 {
			canceled[id] = true
			send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"stress"}}`, id))
		} else {
			want[id] = true
		}
		if rnd.IntN(3) == 0 { // else pipelined with the next
			await(want)
		}
	}
	await(want)
	// Answers to canceled calls written before the cancel may still come.
	send(`{"jsonrpc":"2.0","id":1000,"method":"ping"}`)
	await(map[int64]bool{1000: true})

	mu.Lock()
	defer mu.Unlock()
	if failed {
		return
	}
	for id, n := range got {
		switch {
		case id > 1 && id < int64(2+calls) && canceled[id] && n > 1,
			!canceled[id] && n != 1:
			t.Errorf("session %d: %d answers to %d", seed, n, id)
		}
	}
}

// TestStressReconnect runs sessions side by side whose upstream command
// exits now and then (the raw upstream's tool exit) while calls are in
// flight and others are being sent, so that requests meet a connection
// being lost, being made, and the replayed initialize: every request gets
// exactly one answer, a result or the proxy's failure, and none is held.
func TestStressReconnect(t *testing.T) {
	t.Parallel()
	const sessions, calls = 4, 24
	up := proxy.Upstream{Cmd: cmdWith(append(os.Environ(), rawUpstreamEnv+"=1"), nil, os.Args[0])}
	p, err := proxy.New(up, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	var wg sync.WaitGroup
	for s := range sessions {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(uint64(s), uint64(time.Now().UnixNano())))
			c := newRawClient(t, p)
			c.response(c.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"0"}}`))
			c.send(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
			want := map[any]bool{}
			for range calls {
				tool := "params"
				if rnd.IntN(6) == 0 {
					tool = "exit"
				}
				want[c.request("tools/call", `{"name":"`+tool+`","arguments":{}}`).Raw()] = true
				if rnd.IntN(3) == 0 {
					time.Sleep(time.Duration(rnd.IntN(2000)) * time.Microsecond)
				}
			}
			bound := time.After(time.Minute) // a guard against a hang, not a timing assertion
			for len(want) > 0 {
				select {
				case msg, ok := <-c.in:
					if !ok {
						t.Errorf("session %d: the proxy closed the connection", s)
						return
					}
					resp, isResp := msg.(*jsonrpc.Response)
					if !isResp {
						continue // the upstream's own messages
					}
					if !want[resp.ID.Raw()] {
						t.Errorf("session %d: an answer to %v, unexpected or again", s, resp.ID.Raw())
					}
					delete(want, resp.ID.Raw())
				case <-bound:
					t.Errorf("session %d: no answer to %d requests within a minute: %v", s, len(want), want)
					return
				}
			}
		})
	}
	wg.Wait()
}
