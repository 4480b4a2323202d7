package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/examples/memory/memory"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/proxyflag"
	"github.com/zircote/lro-go/internal/testing/s3test"
	"github.com/zircote/lro-go/lro/store"
)

// replicaTTL is the time to live of the offloaded results of
// TestReplicas: long enough for its calls on a loaded machine, short enough
// to see them expire and be swept.
const replicaTTL = 30 * time.Second

// TestReplicas runs three replicas of the server, built as a user builds
// it, each serving streamable HTTP statelessly with its offloaded results
// in one bucket of a real S3-compatible server (versitygw), behind a
// round-robin reverse proxy: a result offloaded through one replica is
// extracted, read, searched and fetched as a resource through the others,
// an unknown handle and an expired one are tool errors that say so, and
// the janitors sweep the objects once their TTL has passed.
func TestReplicas(t *testing.T) {
	t.Parallel()
	bucketURL := s3test.Bucket(t) // first: it skips without versitygw
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), replicaTTL+disk.SkewMargin+2*time.Minute)
	defer cancel()

	var replicas []*replica
	for i := range 3 {
		replicas = append(replicas, startReplica(t, bin, i, bucketURL))
	}
	lb := newRoundRobin(replicas)
	srv := httptest.NewServer(lb)
	defer srv.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "replicas-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// Offload: every memory at full detail.
	res := call(t, cs, "list_memories", map[string]any{"limit": 500, "detail": "full"})
	offloadedBy := lb.last("list_memories")
	var d struct {
		Offloaded bool   `json:"offloaded"`
		Handle    string `json:"handle"`
		FilePath  string `json:"file_path"`
		Guidance  string `json:"guidance"`
		Summary   struct {
			Count int `json:"count"`
		} `json:"summary"`
	}
	decodeStructured(t, res, &d)
	if !d.Offloaded || d.Handle == "" || d.Summary.Count != 500 {
		t.Fatalf("list_memories: want a descriptor of 500 records with a handle, got %+v", d)
	}
	if !strings.Contains(d.Guidance, "handle=") {
		t.Errorf("guidance does not show calls by handle:\n%s", d.Guidance)
	}
	if link := resourceLink(res); link == nil || link.URI != "lro://results/"+d.Handle {
		t.Errorf("resource link = %+v, want lro://results/%s", link, d.Handle)
	}

	// The object in the bucket, as a client that downloads it gets it.
	st, err := store.Open(ctx, bucketURL, &store.Options{TTL: replicaTTL})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	object := readObject(t, ctx, st, d.Handle)
	if n := bytes.Count(object, []byte("\n")); n != 501 {
		t.Fatalf("object %s has %d lines, want 501 (header and 500 records)", d.Handle, n)
	}

	// The answers, from the corpus the replicas serve.
	corpus := memory.Generate(memory.DefaultCorpusSize, memory.DefaultSeed)
	semantic := 0
	for _, m := range corpus {
		if strings.HasPrefix(m.Namespace, "_semantic") {
			semantic++
		}
	}
	word := strings.Fields(corpus[7].Title)[0]

	// Each tool twice, round robin: every replica serves some of them.
	for range 2 {
		res = call(t, cs, "lro_extract", map[string]any{"handle": d.Handle, "where": map[string]any{"namespace": map[string]any{"prefix": "_semantic"}}, "count": true})
		if got := strings.TrimSpace(text(res)); got != fmt.Sprint(semantic) {
			t.Errorf("lro_extract count of _semantic memories = %q, want %d", got, semantic)
		}
		res = call(t, cs, "lro_read", map[string]any{"handle": d.Handle, "line": 1, "limit": 1})
		if !strings.Contains(text(res), `"count":500`) {
			t.Errorf("lro_read line 1 is not the header of 500 records:\n%.300s", text(res))
		}
		res = call(t, cs, "lro_search", map[string]any{"handle": d.Handle, "pattern": regexp.QuoteMeta(word), "max_results": 1})
		if !strings.Contains(text(res), `"file_line"`) {
			t.Errorf("lro_search %q found nothing:\n%.300s", word, text(res))
		}
	}
	elsewhere := map[int]bool{}
	for _, tool := range []string{"lro_extract", "lro_read", "lro_search"} {
		for _, r := range lb.served(tool) {
			if r != offloadedBy {
				elsewhere[r] = true
			}
		}
	}
	t.Logf("offloaded by replica %d; lro_extract on %v, lro_read on %v, lro_search on %v",
		offloadedBy, lb.served("lro_extract"), lb.served("lro_read"), lb.served("lro_search"))
	if len(elsewhere) != 2 {
		t.Errorf("the extraction tools ran on replicas %v besides %d, which offloaded: want both others", elsewhere, offloadedBy)
	}

	// An answer above the threshold is offloaded in turn, into the
	// bucket, and read through another replica.
	res = call(t, cs, "lro_extract", map[string]any{"handle": d.Handle, "query": "{id, title, content}"})
	var d2 struct {
		Handle  string `json:"handle"`
		Summary struct {
			Count int `json:"count"`
		} `json:"summary"`
	}
	decodeStructured(t, res, &d2)
	if d2.Handle == "" || d2.Summary.Count != 500 {
		t.Fatalf("lro_extract of 500 records: want an offloaded answer with a handle, got %s", text(res))
	}
	res = call(t, cs, "lro_extract", map[string]any{"handle": d2.Handle, "query": "length", "slurp": true})
	if got := strings.TrimSpace(text(res)); got != "500" {
		t.Errorf("length of the offloaded answer = %q, want 500", got)
	}

	// resources/read gives the object as it is.
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lro://results/" + d.Handle})
	if err != nil {
		t.Fatalf("resources/read: %v", err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].Text != string(object) {
		t.Errorf("resources/read does not give the object's %d bytes", len(object))
	}

	// A client that says it is an LRO proxy, in the request's _meta as
	// the stateless protocol carries it, gets the full result inline.
	pres, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_memories", Arguments: map[string]any{"limit": 500, "detail": "full"},
		Meta: mcp.Meta{proxyflag.Key: proxyflag.Settings()}})
	if err != nil || pres.IsError {
		t.Fatalf("list_memories as a proxy: %v %s", err, text(pres))
	}
	if strings.Contains(text(pres), `"offloaded"`) || len(text(pres)) < 500*200 {
		t.Errorf("list_memories as a proxy was not answered inline (%d bytes of text)", len(text(pres)))
	}

	// A handle of the right form that names nothing.
	// The last hex digit, before ".jsonl", changed.
	last, other := d.Handle[len(d.Handle)-7:len(d.Handle)-6], "0"
	if last == "0" {
		other = "1"
	}
	unknown := d.Handle[:len(d.Handle)-7] + other + d.Handle[len(d.Handle)-6:]
	if res := callRaw(t, ctx, cs, "lro_extract", map[string]any{"handle": unknown, "recipe": 1}); !res.IsError || !strings.Contains(text(res), "unknown") {
		t.Errorf("unknown handle: want a tool error saying so, got %s", text(res))
	}

	// Once the TTL has passed, the handle is expired on every replica,
	// before and after the sweep.
	waitUntil(t, ctx, replicaTTL+time.Minute, func() bool {
		res := callRaw(t, ctx, cs, "lro_read", map[string]any{"handle": d.Handle, "line": 1, "limit": 1})
		return res.IsError && strings.Contains(text(res), "expired")
	})
	// The janitors sweep the bucket after the TTL and the clock skew
	// margin: every object goes, and stays gone.
	waitUntil(t, ctx, replicaTTL+disk.SkewMargin+time.Minute, func() bool {
		return len(listKeys(t, ctx, st)) == 0
	})
	logs := logsOf(replicas)
	for _, h := range []string{d.Handle, d2.Handle} {
		expired := regexp.MustCompile(`msg=OffloadFileExpired .*` + regexp.QuoteMeta(h))
		n := len(expired.FindAllString(logs, -1))
		t.Logf("%s: %d expiry events", h, n)
		if n == 0 {
			t.Errorf("no replica logged the expiry of %s:\n%s", h, logs)
		}
	}
}

// replica is one server process.
type replica struct {
	url *url.URL // its MCP endpoint
	log *lockedBuffer
}

// startReplica starts the server binary bin as replica i, serving HTTP on a
// free port with its offloaded results in bucketURL and a short TTL, and
// waits until it serves.
func startReplica(t *testing.T, bin string, i int, bucketURL string) *replica {
	t.Helper()
	r := &replica{log: &lockedBuffer{}}
	cmd := exec.Command(bin, "-http", "127.0.0.1:0", "-storage", bucketURL, "-cleanup-interval", "1s")
	cmd.Env = append(os.Environ(), fmt.Sprintf("ATLATL_PROMPT__OFFLOAD__TTL_SECONDS=%d", int(replicaTTL.Seconds())))
	cmd.Stdout = io.Discard
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	})
	serving := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(nil, 1<<20)
		re := regexp.MustCompile(`msg="serving HTTP" mcp=(\S+)`)
		for sc.Scan() {
			r.log.Write(append(sc.Bytes(), '\n'))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				serving <- m[1]
			}
		}
	}()
	select {
	case u := <-serving:
		if r.url, err = url.Parse(u); err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("replica %d did not start within a minute:\n%s", i, r.log.String())
	}
	return r
}

// roundRobin is a reverse proxy that sends each HTTP request to the next
// replica, and records which replica served each tool call.
type roundRobin struct {
	replicas []*replica
	proxy    *httputil.ReverseProxy
	mu       sync.Mutex
	next     int
	calls    map[string][]int // tool name -> replicas, in call order
}

type replicaKey struct{}

func newRoundRobin(replicas []*replica) *roundRobin {
	rr := &roundRobin{replicas: replicas, calls: map[string][]int{}}
	rr.proxy = &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(&url.URL{Scheme: "http", Host: rr.replicas[pr.In.Context().Value(replicaKey{}).(int)].url.Host})
		pr.Out.URL.Path = pr.In.URL.Path
	}}
	return rr
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &msg)
	rr.mu.Lock()
	i := rr.next % len(rr.replicas)
	rr.next++
	if msg.Method == "tools/call" {
		rr.calls[msg.Params.Name] = append(rr.calls[msg.Params.Name], i)
	}
	rr.mu.Unlock()
	rr.proxy.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), replicaKey{}, i)))
}

// served returns the replicas that served the calls of tool.
func (rr *roundRobin) served(tool string) []int {
	rr.mu.Lock()
	defer rr.mu.Unlock()
	return slices.Clone(rr.calls[tool])
}

// last returns the replica that served the last call of tool.
func (rr *roundRobin) last(tool string) int {
	s := rr.served(tool)
	if len(s) == 0 {
		return -1
	}
	return s[len(s)-1]
}

// callRaw calls tool and returns its result, tool error or not.
func callRaw(t *testing.T, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

func decodeStructured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
}

func resourceLink(res *mcp.CallToolResult) *mcp.ResourceLink {
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			return l
		}
	}
	return nil
}

func readObject(t *testing.T, ctx context.Context, st *store.Store, handle string) []byte {
	t.Helper()
	r, _, err := st.NewRangeReader(ctx, handle, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func listKeys(t *testing.T, ctx context.Context, st *store.Store) []string {
	t.Helper()
	var keys []string
	if err := st.Bucket().List(ctx, "", func(k string) error { keys = append(keys, k); return nil }); err != nil {
		t.Fatal(err)
	}
	return keys
}

func logsOf(replicas []*replica) string {
	var b strings.Builder
	for i, r := range replicas {
		fmt.Fprintf(&b, "--- replica %d\n%s", i, r.log.String())
	}
	return b.String()
}

// waitUntil polls cond every half second until it holds, failing the test
// after limit.
func waitUntil(t *testing.T, ctx context.Context, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("condition not met within %v", limit)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
