package equiv

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/proxy"
)

var (
	outFlag      = flag.String("equiv.out", "", "write the tree to this `folder` (emptied first); without it the tool does nothing")
	allFlag      = flag.Bool("equiv.all", false, "call the extraction tools under every profile, not only full (slower)")
	parallelFlag = flag.Int("equiv.parallel", 2, "how many setups run at once")
	onlyFlag     = flag.String("equiv.only", "", "record only the parts named, comma-separated: realshapes, middleware, proxy, memory (default all)")
)

// upstreamEnv makes the test binary the proxy's upstream.
const upstreamEnv = "LRO_EQUIV_UPSTREAM"

// now is the clock of the synctest bubble: the time of every header,
// expiry and ULID of the corpus's cases.
var now = time.Date(2026, time.November, 20, 10, 30, 0, 0, time.UTC)

// dirLength is the length of every output folder's path: a descriptor's
// own size, which its guidance counts, depends on it.
const dirLength = 100

func TestMain(m *testing.M) {
	extract.RunWorker()
	if os.Getenv(upstreamEnv) == "1" {
		os.Exit(serveUpstream())
	}
	flag.Parse()
	os.Exit(m.Run())
}

// TestEquiv writes the tree. Not a test: it skips without -equiv.out.
func TestEquiv(t *testing.T) {
	if *outFlag == "" {
		t.Skip("a tool, not a test: run with -equiv.out DIR (README.md)")
	}
	out, err := filepath.Abs(*outFlag)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(out); err != nil {
		t.Fatal(err)
	}
	items, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	root := fixedDir(t)
	w := &writer{root: out}
	only := func(part string) bool {
		return *onlyFlag == "" || strings.Contains(","+*onlyFlag+",", ","+part+",")
	}
	cases := corpusCases(t, items)
	var jobs []func(t *testing.T, root string)
	if only("realshapes") {
		for _, st := range []string{"dir", "folder", "bucket"} {
			for _, p := range profiles {
				for _, native := range []bool{false, true} {
					s := setup{front: "wrap", store: st, profile: p, native: native}
					jobs = append(jobs, func(t *testing.T, root string) {
						for _, c := range cases {
							runCorpusCase(t, w, root, s, c)
						}
					})
				}
			}
		}
	}
	if only("middleware") {
		s := setup{front: "middleware", store: "dir", profile: "full", native: true}
		jobs = append(jobs, func(t *testing.T, root string) {
			for _, c := range cases {
				runCorpusCase(t, w, root, s, c)
			}
		})
	}
	if only("proxy") {
		for _, p := range profiles {
			for _, native := range []bool{false, true} {
				s := setup{front: "proxy", store: "dir", profile: p, native: native}
				jobs = append(jobs, func(t *testing.T, root string) { runProxy(t, w, root, s, cases) })
			}
		}
	}
	// The memory example's binary runs outside the bubble, at the same time.
	memoryDone := make(chan struct{})
	go func() {
		defer close(memoryDone)
		if only("memory") {
			runMemory(t, w, filepath.Join(root, "mem"))
		}
	}()
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(now))
		next := make(chan func(*testing.T, string))
		var wg sync.WaitGroup
		for i := range max(*parallelFlag, 1) {
			wg.Go(func() {
				// Each worker's folder has the same length.
				dir := filepath.Join(root, fmt.Sprintf("w%02d", i%100))
				for job := range next {
					job(t, dir)
				}
			})
		}
		for _, job := range jobs {
			next <- job
		}
		close(next)
		wg.Wait()
	})
	<-memoryDone
	if *matrixFlag {
		runMatrix(t, w, root)
	}
	if err := w.error(); err != nil {
		t.Fatal(err)
	}
}

var profiles = []string{"full", "no_recipes", "no_schema", "bare_pointer"}

// fixedDir returns a new empty folder whose path is dirLength bytes long.
func fixedDir(t *testing.T) string {
	tmp, err := os.MkdirTemp("", "equiv")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	if len(tmp) > dirLength-10 {
		t.Fatalf("temporary folder %q is longer than %d bytes", tmp, dirLength-10)
	}
	dir := filepath.Join(tmp, "o"+strings.Repeat("x", dirLength-len(tmp)-2))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// item is one result of the real-shapes corpus, as its manifest lists it.
type item struct {
	Name string `json:"name"`
	File string `json:"file"`
	Grow struct {
		By        string `json:"by"`
		HeadLines int    `json:"head_lines,omitempty"`
		Prefix    string `json:"prefix,omitempty"`
		Suffix    string `json:"suffix,omitempty"`
		Sep       string `json:"sep,omitempty"`
		Head      int    `json:"head,omitempty"`
	} `json:"grow"`
	Result *mcp.CallToolResult `json:"-"`
}

// corpusDirs are where the corpus is, relative to this folder, before and
// after it moves under internal/testing.
var corpusDirs = []string{"../../../../internal/realshapes/testdata", "../../../../internal/testing/realshapes/testdata"}

// loadCorpus reads the real-shapes corpus by path.
func loadCorpus() ([]item, error) {
	for _, dir := range corpusDirs {
		data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var items []item
		if err := json.Unmarshal(data, &items); err != nil {
			return nil, err
		}
		for i, it := range items {
			raw, err := os.ReadFile(filepath.Join(dir, "items", it.File))
			if err != nil {
				return nil, err
			}
			if items[i].Result, err = decodeResult(raw); err != nil {
				return nil, fmt.Errorf("%s: %w", it.Name, err)
			}
		}
		return items, nil
	}
	return nil, fmt.Errorf("no manifest.json in %v", corpusDirs)
}

// decodeResult decodes a CallToolResult, keeping the structured content's
// bytes as received (as internal/realshapes does).
func decodeResult(raw []byte) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	var sc struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := errors.Join(json.Unmarshal(raw, &res), json.Unmarshal(raw, &sc)); err != nil {
		return nil, err
	}
	if res.StructuredContent != nil {
		res.StructuredContent = sc.StructuredContent
	}
	return &res, nil
}

// A corpusCase is one item at one size.
type corpusCase struct {
	name   string // item/size, the tree's folder
	tool   string // the tool's name
	result *mcp.CallToolResult
}

// sizes are the sizes of each item: as recorded, and grown to 2 and 10
// times the default threshold (1,600 tokens).
var sizes = []struct {
	name      string
	minTokens int
}{{"recorded", 0}, {"x2", 3200}, {"x10", 16000}}

func corpusCases(t *testing.T, items []item) []corpusCase {
	var cases []corpusCase
	for i, it := range items {
		for _, sz := range sizes {
			res := it.Result
			if sz.minTokens > 0 {
				var err error
				if res, err = largeResult(it, sz.minTokens); err != nil {
					t.Fatal(err)
				}
			}
			cases = append(cases, corpusCase{
				name:   it.Name + "/" + sz.name,
				tool:   fmt.Sprintf("item%02d_%s", i, sz.name),
				result: res,
			})
		}
	}
	return cases
}

// clone returns a copy of res that a handler may return (the offloader
// rewrites the result in place).
func clone(res *mcp.CallToolResult) *mcp.CallToolResult {
	cp := *res
	cp.Content = append([]mcp.Content(nil), res.Content...)
	return &cp
}

// handlerOf returns a tool handler returning res.
func handlerOf(res *mcp.CallToolResult) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return clone(res), nil
	}
}

var objectSchema = &jsonschema.Schema{Type: "object"}

// runCorpusCase calls case c on a server set up as s, through an in-memory
// go-sdk client, and records what it gives.
func runCorpusCase(t *testing.T, w *writer, root string, s setup, c corpusCase) {
	ctx := context.Background()
	dir := filepath.Join(root, "case")
	if err := os.RemoveAll(dir); err != nil {
		t.Error(err)
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Error(err)
		return
	}
	s.dir = dir
	if s.store == "bucket" {
		s.bucket = memblob.OpenBucket(nil)
		defer s.bucket.Close()
	}
	b, err := options(s)
	if err != nil {
		t.Error(err)
		return
	}
	if b.store != nil {
		defer b.store.Close()
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "equiv", Version: "v0"}, nil)
	if b.extract != nil {
		if err := extract.AddTools(srv, b.extract); err != nil {
			t.Error(err)
			return
		}
	}
	wrap(srv, s.front, &mcp.Tool{Name: c.tool, InputSchema: objectSchema}, handlerOf(c.result), b)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Error(err)
		return
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "equiv", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Error(err)
		return
	}
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	r := w.recorder(path.Join("realshapes", c.name, s.label()), newNorm(dir), s.whole())
	record(ctx, r, cs, c.tool, s.extraction(b, c), s.bucket)
}

// extraction says whether record calls the extraction tools for case c
// under s: only under the full profile and not at size x2, unless
// -equiv.all, and never through the middleware, whose files are those of
// lro.Wrap.
func (s setup) extraction(b *built, c corpusCase) bool {
	return b.extract != nil && (s.profile == "full" || *allFlag) && s.front != "middleware" &&
		(!strings.HasSuffix(c.name, "/x2") || *allFlag)
}

// whole says whether a recorder of s writes files larger than maxWhole
// whole: in one setup of each front, where the others write their SHA-256.
func (s setup) whole() bool {
	return s.store == "dir" && s.profile == "full" && (!s.native || s.front == "memory")
}

// maxWhole is the size of the largest file every setup writes whole.
const maxWhole = 16 << 10

// label names a setup's folder in the tree.
func (s setup) label() string {
	l := s.front + "-" + s.store + "-" + s.profile
	if s.native {
		l += "-native"
	}
	return l
}

// record calls tool on cs and records its result, the file it offloaded,
// and with extraction the answers of the extraction tools over it, in r.
// bucket, if not nil, holds the files.
func record(ctx context.Context, r *recorder, cs *mcp.ClientSession, tool string, extraction bool, bucket *blob.Bucket) {
	record1(ctx, r, cs, tool, map[string]any{}, extraction, bucket)
}

// record1 is record with arguments.
func record1(ctx context.Context, r *recorder, cs *mcp.ClientSession, tool string, args map[string]any, extraction bool, bucket *blob.Bucket) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	r.result("result.json", res, err)
	if err != nil || len(res.Content) == 0 {
		return
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return
	}
	var d struct {
		Offloaded bool   `json:"offloaded"`
		FilePath  string `json:"file_path"`
		Handle    string `json:"handle"`
	}
	if json.Unmarshal([]byte(tc.Text), &d) != nil || !d.Offloaded {
		return
	}
	var file []byte
	if bucket != nil {
		file, err = bucket.ReadAll(ctx, d.Handle)
	} else {
		file, err = os.ReadFile(d.FilePath)
	}
	if err != nil {
		r.put("file.jsonl", []byte("error: "+err.Error()+"\n"))
	} else {
		r.put("file.jsonl", file)
	}
	if !extraction {
		return
	}
	ref := func(kv ...any) map[string]any {
		m := map[string]any{}
		if d.Handle != "" {
			m["handle"] = d.Handle
		} else {
			m["file_path"] = d.FilePath
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	call := func(name, tool string, args map[string]any) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		r.result(name, res, err)
	}
	for n := 1; n <= 10; n++ {
		call(fmt.Sprintf("extract/recipe-%02d.json", n), "lro_extract", ref("recipe", n))
	}
	call("extract/query.json", "lro_extract", ref("query", customQuery))
	call("read.json", "lro_read", ref())
	call("search.json", "lro_search", ref("pattern", searchPattern))
	if d.Handle != "" {
		uri := "lro://results/" + d.Handle
		for _, c := range res.Content[1:] {
			if l, ok := c.(*mcp.ResourceLink); ok {
				uri = l.URI
			}
		}
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil {
			for _, c := range rr.Contents {
				if c.Text == string(file) {
					c.Text = "<file.jsonl>"
				}
			}
		}
		r.result("resource.json", rr, err)
	}
}

// customQuery is the one query of lro_extract besides the recipes.
const customQuery = `if type == "object" then (keys | join(",")) else (tostring | .[0:40]) end`

// searchPattern is lro_search's pattern.
const searchPattern = "(?i)name"

// runProxy calls every case through a proxy set up as s, whose upstream
// is this binary serving the corpus, and records what it gives.
func runProxy(t *testing.T, w *writer, root string, s setup, cases []corpusCase) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := filepath.Join(root, "case")
	if err := os.RemoveAll(dir); err != nil {
		t.Error(err)
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Error(err)
		return
	}
	s.dir = dir
	b, err := options(s)
	if err != nil {
		t.Error(err)
		return
	}
	bin, err := os.Executable()
	if err != nil {
		t.Error(err)
		return
	}
	p, err := proxy.New(upstream(bin), b.proxy)
	if err != nil {
		t.Error(err)
		return
	}
	defer p.Close()
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "equiv", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Error(err)
		return
	}
	for _, c := range cases {
		r := w.recorder(path.Join("realshapes", c.name, s.label()), newNorm(dir), s.whole())
		record(ctx, r, cs, c.tool, s.extraction(b, c), nil)
	}
	cs.Close()
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("proxy: %v", err)
	}
}

// serveUpstream serves the corpus's cases over stdio, as the proxy's
// upstream, unchanged.
func serveUpstream() int {
	items, err := loadCorpus()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "equiv-upstream", Version: "v0"}, nil)
	for _, c := range corpusCases(nil, items) {
		srv.AddTool(&mcp.Tool{Name: c.tool, InputSchema: objectSchema}, handlerOf(c.result))
	}
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// A writer writes the tree.
type writer struct {
	root  string
	mu    sync.Mutex
	err   error // the first error
	norms map[string]*norm
}

// fail records err, if the first.
func (w *writer) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = err
	}
}

func (w *writer) error() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// norm returns the norm of key, made for dir and start if new: files
// recorded apart that number their ULIDs together share one.
func (w *writer) norm(key, dir string, start time.Time) *norm {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.norms == nil {
		w.norms = map[string]*norm{}
	}
	n, ok := w.norms[key]
	if !ok {
		n = newNorm(dir)
		n.start = start
		w.norms[key] = n
	}
	return n
}

// A recorder writes the files of one case, normalized by one norm.
type recorder struct {
	w     *writer
	dir   string
	norm  *norm
	whole bool // write files larger than maxWhole whole
}

func (w *writer) recorder(dir string, n *norm, whole bool) *recorder {
	return &recorder{w: w, dir: dir, norm: n, whole: whole}
}

// put writes the file name of the case, normalized; if larger than
// maxWhole and not r.whole, its SHA-256 to name.sha256.
func (r *recorder) put(name string, data []byte) {
	data = r.norm.apply(data)
	if len(data) > maxWhole && !r.whole {
		name += ".sha256"
		data = fmt.Appendf(nil, "%x\n", sha256.Sum256(data))
	}
	p := filepath.Join(r.w.root, filepath.FromSlash(r.dir), filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.w.fail(err)
		return
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		r.w.fail(err)
	}
}

// result writes v, an MCP result, as indented JSON, or err.
func (r *recorder) result(name string, v any, err error) {
	if err != nil {
		r.put(name, []byte("error: "+err.Error()+"\n"))
		return
	}
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		data = []byte("error: " + err.Error())
	}
	r.put(name, append(data, '\n'))
}

// A norm replaces what changes from run to run: the output folder, ULIDs
// (<ULID#n> by first appearance), the random part of a handle
// (<RAND#n>), and, with a clock, the times the real clock gave.
type norm struct {
	dir   string
	ulids map[string]int
	rands map[string]int
	start time.Time // zero in the bubble: no time is replaced
}

func newNorm(dir string) *norm {
	return &norm{dir: dir, ulids: map[string]int{}, rands: map[string]int{}}
}

var (
	ulidRE = regexp.MustCompile(`\b[0-7][0-9A-HJKMNP-TV-Z]{25}(-[0-9a-f]{32})?\b`)
	timeRE = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
)

func (n *norm) apply(data []byte) []byte {
	data = bytes.ReplaceAll(data, []byte(n.dir), []byte("<DIR>"))
	data = ulidRE.ReplaceAllFunc(data, func(m []byte) []byte {
		id, rand, _ := strings.Cut(string(m), "-")
		s := "<ULID#" + fmt.Sprint(number(n.ulids, id)) + ">"
		if rand != "" {
			s += "-<RAND#" + fmt.Sprint(number(n.rands, rand)) + ">"
		}
		return []byte(s)
	})
	if !n.start.IsZero() {
		data = timeRE.ReplaceAllFunc(data, func(m []byte) []byte {
			tm, err := time.Parse(time.RFC3339Nano, string(m))
			if d := tm.Sub(n.start); err != nil || d < -time.Minute || d > 2*time.Hour {
				return m
			}
			return []byte("<CLOCK+" + tm.Sub(n.start).Round(time.Hour).String() + ">")
		})
	}
	return data
}

// number returns the number of s in m, adding it if new.
func number(m map[string]int, s string) int {
	if n, ok := m[s]; ok {
		return n
	}
	m[s] = len(m) + 1
	return m[s]
}
