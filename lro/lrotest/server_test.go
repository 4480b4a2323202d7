package lrotest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

func TestMain(m *testing.M) {
	extract.RunWorker() // the test servers with a store register the extraction tools
	os.Exit(m.Run())
}

// The test server: a recall tool over synthetic memories, built with
// lro.AddTool, that a mutation can break in one precise way.

type provenance struct {
	Confidence float64 `json:"confidence"`
	Agent      string  `json:"agent"`
}

type memory struct {
	ID         string      `json:"id"`
	Title      string      `json:"title"`
	Namespace  string      `json:"namespace"`
	MemoryType string      `json:"memory_type"`
	Tags       []string    `json:"tags"`
	Created    string      `json:"created"`
	Content    string      `json:"content,omitempty"`
	Confidence *float64    `json:"confidence,omitempty"`
	Provenance *provenance `json:"provenance,omitempty"`
}

type recallIn struct {
	Query  string `json:"query"`
	N      int    `json:"n"`
	Detail string `json:"detail,omitempty"`
}

type recallOut struct {
	Memories []memory  `json:"memories"`
	Scores   []float64 `json:"scores"`
}

// namespaceCycle spreads the records over six namespaces with well separated
// counts, so that top_namespaces has one right answer even after a mutation
// drops a record.
var namespaceCycle = func() []string {
	var c []string
	for _, ns := range []struct {
		name string
		n    int
	}{{"_semantic/decisions", 10}, {"_episodic/sessions", 7}, {"_procedural/runbooks", 5}, {"_semantic/architecture", 3}, {"_episodic/incidents", 2}, {"_semantic/preferences", 1}} {
		for range ns.n {
			c = append(c, ns.name)
		}
	}
	return c
}()

func memories(n int, detail string) []memory {
	types := map[byte]string{'s': "semantic", 'e': "episodic", 'p': "procedural"}
	ms := make([]memory, n)
	for i := range ms {
		ns := namespaceCycle[(i*11)%len(namespaceCycle)]
		conf := float64((i*37)%100) / 100
		m := memory{
			ID:         fmt.Sprintf("mem-%05d", i),
			Title:      fmt.Sprintf("Memory %d about the cache layer", i),
			Namespace:  ns,
			MemoryType: types[ns[1]],
			Tags:       []string{"cache", fmt.Sprintf("team-%d", i%3)},
			Created:    time.Date(2026, 1, 1+i%28, 0, 0, i%60, 0, time.UTC).Format(time.RFC3339),
		}
		switch detail {
		case "medium":
			m.Content = "Invalidate on write; stale reads were seen after deploys."
			m.Confidence = &conf
		case "full":
			m.Content = "Invalidate on write; stale reads were seen after deploys."
			m.Provenance = &provenance{Confidence: conf, Agent: "claude"}
		}
		ms[i] = m
	}
	return ms
}

func recall(ctx context.Context, req *mcp.CallToolRequest, in recallIn) (*mcp.CallToolResult, recallOut, error) {
	ms := memories(in.N, in.Detail)
	scores := make([]float64, len(ms))
	for i := range scores {
		scores[i] = 1 - float64(i)/float64(len(ms)+1)
	}
	return nil, recallOut{Memories: ms, Scores: scores}, nil
}

// server is one running test server and the folder it writes to (with a
// bucket, the folder where a client would keep a downloaded result).
type server struct {
	cs     *mcp.ClientSession
	dir    string
	bucket bool
}

// storeKind says where a test server keeps its results.
type storeKind int

const (
	inFolder    storeKind = iota // OutputDir, no store: no handles
	folderStore                  // a folder of store.Open: handles, the files on this machine
	bucketStore                  // a memblob bucket: handles, the files on the server only
)

// serverOptions say how to build and break a test server.
type serverOptions struct {
	store      storeKind                                 // where results are kept
	opts       func(*lro.Options)                        // change the LRO options
	desc       func(t *testing.T, d map[string]any)      // tamper with each descriptor (and its file)
	result     func(t *testing.T, r *mcp.CallToolResult) // tamper with each tools/call result
	list       func(tool *mcp.Tool)                      // tamper with tools/list
	read       readTamper                                // tamper with each resources/read
	noJanitor  bool                                      // run no explicit janitor and no automatic one (by default a janitor sweeps every 20ms)
	autoOnly   bool                                      // run no explicit janitor: only the automatic one that the first offload starts (every 20ms)
	unwritable bool                                      // the output folder cannot be created
}

// readTamper changes what resources/read of uri answers.
type readTamper func(t *testing.T, uri string, r *mcp.ReadResourceResult, err error) (*mcp.ReadResourceResult, error)

// startServer starts a test server in process and connects a client to it.
func startServer(t *testing.T, so serverOptions) *server {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	opts := &lro.Options{OutputDir: dir, Operation: "recall", DefaultDetail: "light", CleanupInterval: 20 * time.Millisecond}
	s := mcp.NewServer(&mcp.Implementation{Name: "lrotest-server", Version: "v0"}, nil)
	switch so.store {
	case folderStore, bucketStore:
		var st *store.Store
		var err error
		if so.store == folderStore {
			st, err = store.Open(context.Background(), dir, nil)
		} else {
			b := memblob.OpenBucket(nil)
			t.Cleanup(func() { b.Close() })
			var bucket store.Bucket = blobstore.New(b)
			if so.unwritable {
				bucket = &fullBucket{bucket}
			}
			st, err = store.NewBucket(bucket, nil)
			// file_path is where a client that downloads the result
			// keeps it: a folder nobody makes.
			opts.OutputDir, opts.ClientDir = "", dir
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		opts.Store = st
		if err := extract.AddTools(s, &extract.Options{LRO: &lro.Options{Store: st}}); err != nil {
			t.Fatal(err)
		}
	}
	if so.noJanitor {
		opts.CleanupInterval = -1 // no automatic janitor either
	}
	if so.opts != nil {
		so.opts(opts)
	}
	lro.AddTool(s, &mcp.Tool{Name: "recall", Description: "Recall memories."}, recall, opts)
	if so.desc != nil || so.result != nil || so.list != nil || so.read != nil {
		s.AddReceivingMiddleware(tamper(t, so))
	}
	if so.unwritable && so.store != bucketStore {
		// The output folder, not made yet, becomes a regular file after
		// the tools were set up: every write fails.
		if err := os.WriteFile(dir, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if !so.noJanitor && !so.unwritable && !so.autoOnly {
		// A janitor of the server's files that also sweeps when none is
		// left, at once and then every CleanupInterval, as a server that
		// schedules its own does.
		co := &cleanup.Options{Dir: opts.OutputDir, TTL: opts.TTL}
		if opts.Store != nil {
			co.Dir, co.Bucket, co.Prefix, co.TTL = opts.Store.Dir(), opts.Store.Bucket(), opts.Store.Prefix(), opts.Store.TTL()
		}
		j, err := cleanup.New(co)
		if err != nil {
			t.Fatal(err)
		}
		jctx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		tick := time.NewTicker(opts.CleanupInterval)
		go func() {
			defer close(done)
			defer tick.Stop()
			for {
				j.Sweep(jctx, time.Now())
				select {
				case <-jctx.Done():
					return
				case <-tick.C:
				}
			}
		}()
		t.Cleanup(func() { stop(); <-done })
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "lrotest", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &server{cs: cs, dir: dir, bucket: so.store == bucketStore}
}

// tamper is server middleware that applies a mutation to results in place.
func tamper(t *testing.T, so serverOptions) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "resources/read" && so.read != nil {
				r, _ := res.(*mcp.ReadResourceResult)
				return so.read(t, req.(*mcp.ReadResourceRequest).Params.URI, r, err)
			}
			if err != nil {
				return res, err
			}
			switch r := res.(type) {
			case *mcp.CallToolResult:
				if so.result != nil {
					so.result(t, r)
				}
				if so.desc == nil || len(r.Content) == 0 {
					break
				}
				// The descriptor; a resource link may follow it.
				tc, ok := r.Content[0].(*mcp.TextContent)
				if !ok {
					break
				}
				var d map[string]any
				if json.Unmarshal([]byte(tc.Text), &d) != nil || d["offloaded"] != true {
					break
				}
				so.desc(t, d)
				data, err := json.Marshal(d)
				if err != nil {
					t.Error(err)
					break
				}
				tc.Text = string(data)
				r.StructuredContent = json.RawMessage(data)
			case *mcp.ListToolsResult:
				if so.list == nil {
					break
				}
				for i, tool := range r.Tools {
					cp := *tool
					so.list(&cp)
					r.Tools[i] = &cp
				}
			}
			return res, err
		}
	}
}

// config is the kit's configuration for a test server, with the fallback
// session when fallback is not nil.
func config(srv, fallback *server) *Config {
	cfg := &Config{
		Tool:    "recall",
		Large:   map[string]any{"query": "cache", "n": 60},
		Small:   map[string]any{"query": "cache", "n": 3},
		Details: []string{"medium", "full"}, // light is the default: the call as given covers it
		Server: &lro.Options{DefaultDetail: "light", Operation: "recall", OutputDir: srv.dir,
			CleanupInterval: 5 * time.Second}, // the kit waits this long for the janitor's deletion
	}
	if srv.bucket {
		// file_path names the client's folder; no folder of this machine
		// to plant an expired file in.
		cfg.Server.OutputDir, cfg.Server.ClientDir = "", srv.dir
	}
	if fallback != nil {
		cfg.Fallback = fallback.cs
	}
	return cfg
}

// fullDisk fails every write as a full disk does.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// fullBucket is a bucket whose objects cannot be written, as on a full
// disk.
type fullBucket struct{ store.Bucket }

func (b *fullBucket) NewWriter(ctx context.Context, key, contentType string, expires time.Time) (io.WriteCloser, error) {
	w, err := b.Bucket.NewWriter(ctx, key, contentType, expires)
	if err != nil {
		return nil, err
	}
	return struct {
		fullDisk
		io.Closer
	}{fullDisk{}, w}, nil
}
