package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// goldenPath holds what an agent reads of every case of TestDescriptorsGolden.
const goldenPath = "testdata/descriptors.txtar"

// goldenNow is the fixed clock of the golden cases: it sets the header's
// timestamp and the time part of the file name's ULID.
var goldenNow = time.Date(2026, time.November, 20, 10, 30, 0, 0, time.UTC)

// goldenComment is the comment of the golden archive.
const goldenComment = `What an agent reads when a result is offloaded: for each case, the
descriptor (the tool result's text, indented here; the agent receives it
compact) and the first line of the JSONL file, the header, verbatim.

$DIR is the output folder and $ULID the file name's ULID, whose random part
changes on every call. The clock is fixed at 2026-11-20T10:30:00Z.

list/PROFILE/DETAIL: list_memories of the example server on the default
corpus (500 memories, seed 1). list/full_native/light: the same with
Options.ExtractTools, called without a detail argument.
recall/full/DETAIL: recall_memories of "service" (136 memories). issues: a
tool returning {"total_count": 400, "items": [...]} as text. logs: a tool
returning 5,000 plain-text log lines.

folder/CASE and bucket/CASE: the same calls with Options.Store, a folder
(the file's name is the handle) or a bucket in memory (file_path is where a
client that downloads the object keeps it). $RAND is the handle's random
part; resource_link.json is the content item that follows the descriptor.

Regenerate with: go test ./examples/memory -run Golden -update
`

// goldenCase is one offloaded call.
type goldenCase struct {
	name    string // the archive files' prefix
	store   string // "" for none, "folder" or "bucket": Options.Store
	profile descriptor.Profile
	native  bool           // Options.ExtractTools
	tool    string         // list_memories, list_issues or read_logs
	args    map[string]any // the call's arguments
}

func goldenCases() []goldenCase {
	profiles := []struct {
		name    string
		profile descriptor.Profile
	}{
		{"full", descriptor.ProfileFull},
		{"no_recipes", descriptor.ProfileNoRecipes},
		{"no_schema", descriptor.ProfileNoSchema},
		{"bare_pointer", descriptor.ProfileBarePointer},
	}
	var cases []goldenCase
	for _, p := range profiles {
		for _, d := range []string{"light", "medium", "full"} {
			cases = append(cases, goldenCase{
				name:    "list/" + p.name + "/" + d,
				profile: p.profile,
				tool:    "list_memories",
				args:    map[string]any{"detail": d},
			})
		}
	}
	// No detail argument: the tool's default (light) applies.
	cases = append(cases, goldenCase{name: "list/full_native/light", native: true, tool: "list_memories", args: map[string]any{}})
	for _, d := range []string{"light", "medium", "full"} {
		cases = append(cases, goldenCase{
			name: "recall/full/" + d,
			tool: "recall_memories",
			args: map[string]any{"query": "service", "limit": 500, "detail": d},
		})
	}
	cases = append(cases,
		goldenCase{name: "issues/full", tool: "list_issues", args: map[string]any{}},
		goldenCase{name: "logs/full", tool: "read_logs", args: map[string]any{}},
	)
	// The same calls with a store, for the cases of the full profile, the
	// native guidance and the bare pointer at one detail level.
	for _, st := range []string{"folder", "bucket"} {
		for _, tc := range cases {
			switch {
			case tc.store != "",
				tc.profile == descriptor.ProfileNoRecipes, tc.profile == descriptor.ProfileNoSchema,
				tc.profile == descriptor.ProfileBarePointer && tc.name != "list/bare_pointer/light",
				strings.HasPrefix(tc.name, "recall/") && tc.name != "recall/full/full":
				continue
			}
			tc.store, tc.name = st, st+"/"+tc.name
			cases = append(cases, tc)
		}
	}
	return cases
}

// TestDescriptorsGolden calls each case through a go-sdk client and compares
// the descriptor it receives, and the header of the file written, with
// testdata/descriptors.txtar, so that a change to what agents read shows in
// review. Run with -update to rewrite the archive.
func TestDescriptorsGolden(t *testing.T) {
	ar := &archive{comment: goldenComment}
	for _, o := range offloadGoldenCases(t) {
		ar.files = append(ar.files,
			archiveFile{o.name + "/descriptor.json", o.indented},
			archiveFile{o.name + "/header.jsonl", o.header})
		if o.link != "" {
			ar.files = append(ar.files, archiveFile{o.name + "/resource_link.json", o.linkIndented})
		}
	}
	got := ar.format()

	if *update {
		if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (run go test ./examples/memory -run Golden -update to create it)", err)
	}
	want, err := parseArchive(data)
	if err != nil {
		t.Fatalf("%s: %v", goldenPath, err)
	}
	if diff := cmp.Diff(want.comment, ar.comment); diff != "" {
		t.Errorf("%s: comment mismatch (-want +got):\n%s", goldenPath, diff)
	}
	wantFiles := map[string]string{}
	for _, f := range want.files {
		wantFiles[f.name] = f.data
	}
	for _, f := range ar.files {
		w, ok := wantFiles[f.name]
		if !ok {
			t.Errorf("%s: no file %s (run with -update to add it)", goldenPath, f.name)
			continue
		}
		delete(wantFiles, f.name)
		if diff := cmp.Diff(w, f.data); diff != "" {
			t.Errorf("%s: %s mismatch (-want +got); if the change is intended, run go test ./examples/memory -run Golden -update:\n%s", goldenPath, f.name, diff)
		}
	}
	for name := range wantFiles {
		t.Errorf("%s: file %s is no longer produced (run with -update to remove it)", goldenPath, name)
	}
	if !bytes.Equal(data, got) && !t.Failed() {
		t.Errorf("%s differs from what -update would write only in its layout; run with -update", goldenPath)
	}
}

// shellSafe are the characters of a path the recipes do not quote.
const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-"

// offloaded is what one golden case gave: the descriptor as the client
// receives it and indented, the resource link that follows it for a file in
// a store, the header line and the record lines of the file, with the
// output folder, the file name's ULID and the handle's random part replaced
// by $DIR, $ULID and $RAND (in indented, linkIndented and header; text and
// link are as received).
type offloaded struct {
	goldenCase
	text         string // the descriptor, as received
	indented     string
	link         string // the resource link's JSON, as received; "" for none
	linkIndented string
	header       string
	lines        []json.RawMessage
	dir, id      string // the output folder and the ULID in text
	random       string // the handle's random part in text and link; "" for none
}

// golden is what offloadGoldenCases gave the first test that called it
// without failing: the four tests that read the golden cases share one run
// of them (each run took about 6 s under -race).
var golden struct {
	mu  sync.Mutex
	out []offloaded
}

// offloadGoldenCases calls every golden case through a go-sdk client, once
// for the tests of the package (a run that fails is not kept: the next
// caller runs them again). The caller does not change what it returns.
func offloadGoldenCases(t *testing.T) []offloaded {
	t.Helper()
	golden.mu.Lock()
	defer golden.mu.Unlock()
	if golden.out == nil {
		out := offloadGoldenRun(t)
		if t.Failed() {
			return out
		}
		golden.out = out
	}
	return golden.out
}

// offloadGoldenRun is offloadGoldenCases without the sharing.
func offloadGoldenRun(t *testing.T) []offloaded {
	t.Helper()
	// The folder's path always has the same length, whatever the length of
	// the test's temporary folder: the descriptor's own size, which the
	// "~N tokens saved" of the guidance subtracts, depends on it.
	tmp := t.TempDir()
	const dirLength = 120
	if len(tmp) > dirLength-5 {
		t.Skipf("temporary folder %q is longer than %d bytes", tmp, dirLength-5)
	}
	dir := filepath.Join(tmp, "lro"+strings.Repeat("x", dirLength-len(tmp)-4))
	if strings.ContainsFunc(dir, func(r rune) bool { return !strings.ContainsRune(shellSafe, r) }) {
		// Such a path could be escaped in the JSON text or in the recipes'
		// shell quoting, where replacing it with $DIR would miss it.
		t.Skipf("output folder %q needs shell quoting", dir)
	}
	var out []offloaded
	// The server's clock and its stores' are the bubble's, set to goldenNow.
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(time.Until(goldenNow))
		out = offloadGoldenBubble(t, dir)
	})
	return out
}

// offloadGoldenBubble is offloadGoldenCases in a synctest bubble whose
// clock reads goldenNow.
func offloadGoldenBubble(t *testing.T, dir string) []offloaded {
	var out []offloaded
	for _, tc := range goldenCases() {
		opts := &lro.Options{
			OutputDir:    dir,
			Profile:      tc.profile,
			ExtractTools: tc.native,
			// No automatic janitor, which would outlive the bubble: the test
			// removes its files.
			CleanupInterval: -1,
		}
		switch tc.store {
		case "folder":
			st, err := store.Open(context.Background(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			opts.Store = st
		case "bucket":
			b := memblob.OpenBucket(nil)
			t.Cleanup(func() { b.Close() })
			st, err := store.NewBucket(blobstore.New(b), nil)
			if err != nil {
				t.Fatal(err)
			}
			opts.Store, opts.OutputDir = st, ""
		}
		var s *mcp.Server
		if strings.HasSuffix(tc.tool, "_memories") {
			s = newServer(bigStore, opts)
		} else {
			s = otherServer(opts)
		}
		o := offloadedCall(t, s, opts.Store, tc.tool, tc.args, dir)
		o.goldenCase = tc
		out = append(out, o)
	}
	return out
}

// offloadedCall calls tool on s through an in-memory go-sdk client and
// returns what it gave. It removes the file, which is in dir, or in st when
// st is not nil.
func offloadedCall(t *testing.T, s *mcp.Server, st *store.Store, tool string, args map[string]any, dir string) offloaded {
	t.Helper()
	ss, cs := connectInMemory(t, s)
	defer func() {
		cs.Close()
		ss.Wait()
	}()
	res := call(t, cs, tool, args)
	want := 1 // the descriptor, then the resource link with a store
	if st != nil {
		want = 2
	}
	if len(res.Content) != want {
		t.Fatalf("%s: %d content items, want %d", tool, len(res.Content), want)
	}
	raw := text(res)
	var d struct {
		Offloaded bool   `json:"offloaded"`
		FilePath  string `json:"file_path"`
		Handle    string `json:"handle"`
	}
	if err := json.Unmarshal([]byte(raw), &d); err != nil || !d.Offloaded {
		t.Fatalf("%s: not a descriptor (%v): %.200s", tool, err, raw)
	}
	name := filepath.Base(d.FilePath)
	file := d.FilePath
	switch {
	case st == nil:
		if filepath.Dir(d.FilePath) != dir {
			t.Fatalf("%s: file %s is not in %s", tool, d.FilePath, dir)
		}
	case st.Dir() != "":
		if filepath.Dir(d.FilePath) != dir || name != d.Handle {
			t.Fatalf("%s: file %s is not %s in %s", tool, d.FilePath, d.Handle, dir)
		}
	default:
		// A bucket: the object is saved to a file of dir, as a client
		// that downloads it would.
		name, file = d.Handle, filepath.Join(dir, d.Handle)
		download(t, st, d.Handle, file)
	}
	_, id, ok := disk.ParseName(name, spec.DefaultPrefix)
	if !ok {
		t.Fatalf("%s: file name %s is not {prefix}-{operation}-{ulid}.jsonl", tool, name)
	}
	if got := id.Timestamp(); !got.Equal(goldenNow) {
		t.Errorf("%s: ULID time %v, want the clock's %v", tool, got.UTC(), goldenNow)
	}
	random := ""
	if st != nil {
		random = strings.TrimSuffix(name, ".jsonl")
		random = random[len(random)-32:]
	}
	pairs := []string{dir, "$DIR", id.String(), "$ULID"}
	if random != "" {
		pairs = append(pairs, random, "$RAND")
	}
	placeholders := strings.NewReplacer(pairs...)
	indent := func(raw []byte) string {
		var b bytes.Buffer
		if err := json.Indent(&b, raw, "", "  "); err != nil {
			t.Fatal(err)
		}
		b.WriteByte('\n')
		return placeholders.Replace(b.String())
	}
	o := offloaded{text: raw, indented: indent([]byte(raw)), dir: dir, id: id.String(), random: random}
	if st != nil {
		link, err := json.Marshal(res.Content[1])
		if err != nil {
			t.Fatal(err)
		}
		o.link, o.linkIndented = string(link), indent(link)
	}

	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(file)
	defer f.Close()
	r := bufio.NewReader(f)
	line, err := r.ReadString('\n')
	if err != nil {
		t.Fatalf("%s: reading the header: %v", file, err)
	}
	o.header = placeholders.Replace(line)
	if _, o.lines, err = jsonl.ReadFile(file); err != nil {
		t.Fatal(err)
	}
	return o
}

// connectInMemory connects a go-sdk client to s through in-memory
// transports.
func connectInMemory(t *testing.T, s *mcp.Server) (*mcp.ServerSession, *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "golden", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ss, cs
}

// download saves the object of handle in st to file, as a client that
// reads the result's resource does.
func download(t *testing.T, st *store.Store, handle, file string) {
	t.Helper()
	if err := os.WriteFile(file, readObject(t, context.Background(), st, handle), 0o600); err != nil {
		t.Fatal(err)
	}
}

// otherServer returns a server with two tools whose results are not
// memories, each offloaded by lro.Wrap as opts says: list_issues returns
// {"total_count": 400, "items": [400 issues]} as text, read_logs 5,000
// plain-text log lines.
func otherServer(opts *lro.Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "golden-other", Version: "v0"}, nil)
	in := &jsonschema.Schema{Type: "object"}
	issues := goldenIssues()
	s.AddTool(&mcp.Tool{Name: "list_issues", Description: "List the repository's issues.", InputSchema: in},
		lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: issues}}}, nil
		}, opts))
	logs := goldenLogs()
	s.AddTool(&mcp.Tool{Name: "read_logs", Description: "Read the service's log.", InputSchema: in},
		lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: logs}}}, nil
		}, opts))
	return s
}

// goldenIssues returns the JSON text of 400 issue-like records, as a
// listing API would return them.
func goldenIssues() string {
	type issue struct {
		Number    int      `json:"number"`
		Title     string   `json:"title"`
		State     string   `json:"state"`
		Labels    []string `json:"labels"`
		Comments  int      `json:"comments"`
		CreatedAt string   `json:"created_at"`
	}
	verbs := []string{"Fix", "Add", "Document", "Speed up", "Remove", "Test"}
	things := []string{"the cache eviction", "retry backoff", "the CLI flags", "TLS reload", "the metrics endpoint", "config parsing", "the upload queue"}
	labelSets := [][]string{{"bug"}, {"enhancement"}, {"docs"}, {"bug", "p1"}, {}, {"performance", "good first issue"}}
	start := time.Date(2025, time.January, 6, 9, 0, 0, 0, time.UTC)
	items := make([]issue, 400)
	for i := range items {
		state := "open"
		if i%3 != 0 {
			state = "closed"
		}
		items[i] = issue{
			Number:    400 - i,
			Title:     fmt.Sprintf("%s %s (#%d)", verbs[i%len(verbs)], things[i%len(things)], 400-i),
			State:     state,
			Labels:    labelSets[i%len(labelSets)],
			Comments:  (i * 7) % 23,
			CreatedAt: start.Add(time.Duration(400-i) * 17 * time.Hour).Format(time.RFC3339),
		}
	}
	b, err := json.Marshal(struct {
		TotalCount int     `json:"total_count"`
		Items      []issue `json:"items"`
	}{len(items), items})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// goldenLogs returns 5,000 log lines, one a second, mostly INFO.
func goldenLogs() string {
	messages := map[string][]string{
		"INFO":  {"service started", "request served in 12ms", "cache warmed", "health check ok", "config reloaded"},
		"WARN":  {"slow query took 1.8s", "retrying upstream call", "disk usage above 80%"},
		"ERROR": {"upstream returned 503", "failed to write checkpoint: permission denied"},
	}
	start := time.Date(2026, time.November, 20, 10, 0, 1, 0, time.UTC)
	var b strings.Builder
	for i := range 5000 {
		level := "INFO"
		switch {
		case i%97 == 96:
			level = "ERROR"
		case i%13 == 12:
			level = "WARN"
		}
		ms := messages[level]
		fmt.Fprintf(&b, "%s %s %s\n", start.Add(time.Duration(i)*time.Second).Format(time.RFC3339), level, ms[i%len(ms)])
	}
	return b.String()
}

// archive is a txtar archive: a comment, then files, each introduced by a
// line "-- NAME --". It is written by hand, not with golang.org/x/tools/txtar,
// because x/tools is not a requirement of this module's go.mod and the
// format takes a few lines.
type archive struct {
	comment string
	files   []archiveFile
}

type archiveFile struct {
	name string
	data string // ends with a newline
}

func (a *archive) format() []byte {
	var b bytes.Buffer
	b.WriteString(a.comment)
	for _, f := range a.files {
		fmt.Fprintf(&b, "-- %s --\n", f.name)
		b.WriteString(f.data)
		if !strings.HasSuffix(f.data, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// fileMarker matches a file marker line of a txtar archive.
var fileMarker = regexp.MustCompile(`^-- (\S.*?) --$`)

func parseArchive(data []byte) (*archive, error) {
	a := &archive{}
	var cur *archiveFile
	var body strings.Builder
	flush := func() {
		if cur == nil {
			a.comment = body.String()
		} else {
			cur.data = body.String()
			a.files = append(a.files, *cur)
		}
		body.Reset()
	}
	for line := range strings.Lines(string(data)) {
		if m := fileMarker.FindStringSubmatch(strings.TrimSuffix(line, "\n")); m != nil {
			flush()
			cur = &archiveFile{name: m[1]}
			continue
		}
		body.WriteString(line)
	}
	flush()
	if len(a.files) == 0 {
		return nil, fmt.Errorf("no files in the archive")
	}
	return a, nil
}
