package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/internal/outschema"
	"github.com/zircote/lro-go/lro/internal/offload"
)

var update = flag.Bool("update", false, "rewrite testdata/matrix.md, the interop matrix")

// matrixFile is the Markdown table of the last matrix run, for README.
const matrixFile = "testdata/matrix.md"

// matrixServers are the reference servers of the matrix: the program in
// node_modules/.bin, and the proxy's flags in front of it. server-memory's
// graph is built in calls far below -threshold, so that only read_graph,
// which returns all of it, is offloaded.
var matrixServers = []struct {
	name      string
	bin       string
	proxyArgs []string
}{
	{"everything", "mcp-server-everything", nil},
	{"filesystem", "mcp-server-filesystem", nil}, // no directory: roots only
	{"memory", "mcp-server-memory", []string{"-threshold", "300"}},
}

// offloadedRows are the rows whose THROUGH result must be an offload
// descriptor whose file rebuilds the DIRECT result.
var offloadedRows = []string{
	"memory: tools/call: offloaded read_graph",
}

// knownDifferent lists the rows ("server: feature") where the proxy does
// not pass the feature through as the server gives it, each with what it
// does instead: none. A row listed here that starts to match fails the
// test, so that the list cannot outlive its cause.
var knownDifferent = map[string]string{}

// extractionTools are the tools the proxy adds to the upstream's.
var extractionTools = []string{"lro_extract", "lro_read", "lro_search"}

// proxyPackage returns the package of the LRO proxy program, relative to
// this folder: examples/lro-proxy, or examples/proxy where it was before.
func proxyPackage(t *testing.T) string {
	t.Helper()
	for _, pkg := range []string{"../../../../examples/lro-proxy", "../../../../examples/proxy"} {
		if _, err := os.Stat(filepath.Join(pkg, "main.go")); err == nil {
			return pkg
		}
	}
	t.Fatal("no proxy program: neither examples/lro-proxy nor examples/proxy has a main.go")
	return ""
}

// feature is one row of one matrix.mjs run.
type feature struct {
	Outcome json.RawMessage `json:"outcome"`
	Summary string          `json:"summary"`
	order   int             // the place of the feature in its run
}

// TestMatrix runs the official TypeScript client (matrix.mjs) through every
// feature of the protocol against each reference server, once DIRECT (the
// client starts the server) and once THROUGH the proxy (the client starts
// the proxy, which starts the server), and asserts that each feature's
// outcome is the same both ways, except that the proxy may widen output
// schemas, add its extraction tools and offload the rows of offloadedRows,
// whose file must rebuild the DIRECT result. It logs the matrix as a
// Markdown table, writes it to testdata/matrix.md with -update, and
// otherwise compares it with that file.
func TestMatrix(t *testing.T) {
	t.Parallel() // beside TestTypeScriptClient
	node, err := exec.LookPath("node")
	if err != nil {
		skipOrFail(t, "node is not installed; the interop test needs Node.js 20 or later")
	}
	for _, s := range matrixServers {
		if _, err := os.Stat(filepath.Join("node_modules", ".bin", s.bin)); err != nil {
			skipOrFail(t, s.bin+" is not installed: run npm ci --prefix lro/internal/testing/interop")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute) // a guard against a hang
	defer cancel()
	proxy := build(ctx, t, proxyPackage(t))

	// All six runs at once: most of a broken run's time is spent waiting
	// for what does not come.
	type run struct {
		server, mode string
		out          map[string]feature
		err          error
	}
	var runs []*run
	var wg sync.WaitGroup
	for _, s := range matrixServers {
		bin, err := filepath.Abs(filepath.Join("node_modules", ".bin", s.bin))
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"DIRECT", "THROUGH"} {
			cmd := []string{bin}
			if mode == "THROUGH" {
				cmd = append(append(append([]string{proxy}, s.proxyArgs...), "-output-dir", matrixOutputDir(t, s.name), "--"), bin)
			}
			r := &run{server: s.name, mode: mode}
			runs = append(runs, r)
			wg.Go(func() { r.out, r.err = runMatrix(ctx, t, node, s.name, mode, cmd) })
		}
	}
	wg.Wait()
	results := map[string]map[string]map[string]feature{} // server, mode, feature
	for _, r := range runs {
		if r.err != nil {
			t.Fatalf("%s %s: %v", r.server, r.mode, r.err)
		}
		if results[r.server] == nil {
			results[r.server] = map[string]map[string]feature{}
		}
		results[r.server][r.mode] = r.out
	}

	if dir := os.Getenv(equivEnv); dir != "" {
		for _, r := range runs {
			if r.mode == "THROUGH" {
				dumpMatrix(t, filepath.Join(dir, "answers", r.server), r.out)
			}
		}
	}

	var rows []string // features, in the order of the runs
	cells := map[string]map[string]string{}
	for _, s := range matrixServers {
		direct, through := results[s.name]["DIRECT"], results[s.name]["THROUGH"]
		for _, name := range featureOrder(direct, through) {
			if !slices.Contains(rows, name) {
				rows = append(rows, name)
			}
			row := s.name + ": " + name
			d, dok := direct[name]
			th, tok := through[name]
			var diff, where string
			switch {
			case !dok || !tok:
				diff = fmt.Sprintf("recorded DIRECT %v, THROUGH %v", dok, tok)
			case slices.Contains(offloadedRows, row):
				diff = offloadDiff(d, th)
			default:
				diff, where = outcomeDiff(name, d.Outcome, th.Outcome)
			}
			cell := "same: " + d.Summary
			switch {
			case diff != "" && d.Summary != th.Summary:
				cell = fmt.Sprintf("differs: DIRECT %s; THROUGH %s", d.Summary, th.Summary)
			case diff != "":
				if where == "" {
					where = firstChange(diff)
				}
				cell = fmt.Sprintf("differs: %s (both %s)", where, d.Summary)
			case slices.Contains(offloadedRows, row):
				cell = fmt.Sprintf("offloaded, rebuilds DIRECT: %s", d.Summary)
			}
			if cells[name] == nil {
				cells[name] = map[string]string{}
			}
			cells[name][s.name] = cell
			_, known := knownDifferent[row]
			switch {
			case diff != "" && !known:
				t.Errorf("%s: DIRECT and THROUGH differ (-DIRECT +THROUGH):\n%s", row, diff)
			case diff == "" && known:
				t.Errorf("%s: listed in knownDifferent (%q) but the same both ways now: remove it from the list", row, knownDifferent[row])
			}
		}
	}
	for row := range knownDifferent {
		server, name, _ := strings.Cut(row, ": ")
		if _, ok := cells[name][server]; !ok {
			t.Errorf("knownDifferent lists %q, which is no row of the matrix", row)
		}
	}

	table := markdown(rows, cells)
	t.Logf("interop matrix:\n%s", table)
	if *update {
		if err := os.MkdirAll(filepath.Dir(matrixFile), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(matrixFile, []byte(table), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(matrixFile)
	if err != nil {
		t.Fatalf("%v (run go test -run TestMatrix -update to write it)", err)
	}
	if d := cmp.Diff(string(want), table); d != "" {
		t.Errorf("%s is out of date (-want +got); run go test -run TestMatrix -update and paste it into README:\n%s", matrixFile, d)
	}
}

// equivEnv names a folder where TestMatrix writes the proxy's answers (the
// THROUGH outcomes) for the equivalence tool (lro/internal/testing/equiv),
// and where the proxy's output folders are, with paths of a fixed length.
const equivEnv = "LRO_EQUIV_DIR"

// matrixOutputDir returns the proxy's output folder for server: a new
// temporary folder, or with equivEnv one of that folder.
func matrixOutputDir(t *testing.T, server string) string {
	dir := os.Getenv(equivEnv)
	if dir == "" {
		return t.TempDir()
	}
	dir = filepath.Join(dir, "out", server)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// dumpMatrix writes each feature's outcome to a file of dir, numbered in
// the run's order.
func dumpMatrix(t *testing.T, dir string, features map[string]feature) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, f := range features {
		file := fmt.Sprintf("%02d-%s.json", f.order, strings.Map(func(r rune) rune {
			if r == '/' || r == ' ' || r == ':' {
				return '_'
			}
			return r
		}, name))
		if err := os.WriteFile(filepath.Join(dir, file), append(f.Outcome, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// leftBehind is how long a process that matrix.mjs started may outlive it.
const leftBehind = 10 * time.Second

// runMatrix runs matrix.mjs against the server command cmd and returns
// its features.
func runMatrix(ctx context.Context, t *testing.T, node, server, mode string, cmd []string) (map[string]feature, error) {
	dir := t.TempDir()
	out := filepath.Join(dir, "matrix.json")
	root := filepath.Join(dir, "root")
	if err := os.Mkdir(root, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	defer func() { t.Logf("matrix.mjs %s %s: %v", server, mode, time.Since(start).Round(time.Millisecond)) }()
	args := append([]string{"matrix.mjs", "--server", server, "--root", root, "--out", out, "--"}, cmd...)
	c := exec.CommandContext(ctx, node, args...)
	c.Env = append(os.Environ(), "MEMORY_FILE_PATH="+filepath.Join(dir, "memory.jsonl"))
	var log bytes.Buffer
	c.Stdout, c.Stderr = &log, &log
	// The client stops the server it started when it closes, and the proxy
	// must stop its upstream in turn: a process still holding the output
	// after that is one left behind.
	c.WaitDelay = leftBehind
	switch err := c.Run(); {
	case errors.Is(err, exec.ErrWaitDelay):
		t.Errorf("%s %s: a process that matrix.mjs started (the server, or the proxy's upstream) still ran %v after matrix.mjs exited\n%s", server, mode, leftBehind, log.Bytes())
	case err != nil:
		return nil, fmt.Errorf("matrix.mjs: %w\n%s", err, log.Bytes())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	var features map[string]feature
	if err := json.Unmarshal(data, &features); err != nil {
		return nil, err
	}
	// Keep the file's order of the features.
	order, err := keysInOrder(data)
	if err != nil {
		return nil, err
	}
	for i, k := range order {
		f := features[k]
		f.order = i
		features[k] = f
	}
	return features, nil
}

// featureOrder returns the feature names of both runs, in the order the
// runs recorded them.
func featureOrder(a, b map[string]feature) []string {
	var names []string
	for _, m := range []map[string]feature{a, b} {
		start := len(names)
		for k := range m {
			if !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
		slices.SortFunc(names[start:], func(x, y string) int { return m[x].order - m[y].order })
	}
	return names
}

// keysInOrder returns the member names of the JSON object data, in order.
func keysInOrder(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// outcomeDiff returns how THROUGH's outcome of a feature differs from
// DIRECT's, as a diff and as the first difference in a line, or "" when
// they are the same once the changes the proxy may make are undone: for
// tools/list, DIRECT's output schemas widened and the extraction tools
// taken out of THROUGH's list (and out of the tool names of the sessions
// of another protocol version).
func outcomeDiff(name string, direct, through json.RawMessage) (diff, first string) {
	var d, th any
	if err := json.Unmarshal(direct, &d); err != nil {
		return "DIRECT: " + err.Error(), ""
	}
	if err := json.Unmarshal(through, &th); err != nil {
		return "THROUGH: " + err.Error(), ""
	}
	switch {
	case name == "tools/list":
		if err := widenSchemas(d); err != nil {
			return "widening DIRECT's output schemas: " + err.Error(), ""
		}
		th = dropExtractionTools(th)
	case strings.HasPrefix(name, "initialize: protocol "):
		if m, ok := th.(map[string]any); ok && m["tools"] != nil {
			m["tools"] = dropExtractionTools(m["tools"])
		}
	}
	diff = cmp.Diff(d, th)
	if diff == "" {
		return "", ""
	}
	return truncate(diff), firstDifference("", d, th)
}

// firstDifference describes the first place where the JSON values a and b
// differ, in a short line: its path and the two values.
func firstDifference(path string, a, b any) string {
	switch a := a.(type) {
	case map[string]any:
		if b, ok := b.(map[string]any); ok {
			keys := slices.Sorted(maps.Keys(a))
			for k := range b {
				if _, ok := a[k]; !ok {
					keys = append(keys, k)
				}
			}
			slices.Sort(keys)
			for _, k := range keys {
				va, aok := a[k]
				vb, bok := b[k]
				switch {
				case !aok:
					return fmt.Sprintf("%s.%s only THROUGH: %s", path, k, short(vb))
				case !bok:
					return fmt.Sprintf("%s.%s only DIRECT: %s", path, k, short(va))
				}
				if d := firstDifference(path+"."+k, va, vb); d != "" {
					return d
				}
			}
			return ""
		}
	case []any:
		if b, ok := b.([]any); ok {
			for i := range min(len(a), len(b)) {
				if d := firstDifference(fmt.Sprintf("%s[%d]", path, i), a[i], b[i]); d != "" {
					return d
				}
			}
			if len(a) != len(b) {
				return fmt.Sprintf("%s: %d items DIRECT, %d THROUGH", path, len(a), len(b))
			}
			return ""
		}
	}
	if cmp.Equal(a, b) {
		return ""
	}
	return fmt.Sprintf("%s: DIRECT %s, THROUGH %s", path, short(a), short(b))
}

// short returns the JSON of v, cut to 60 characters.
func short(v any) string {
	data, _ := json.Marshal(v)
	if s := []rune(string(data)); len(s) > 60 {
		return string(s[:57]) + "..."
	}
	return string(data)
}

// widenSchemas widens the output schema of each tool in tools, a tools/list
// outcome, as the proxy must.
func widenSchemas(tools any) error {
	list, _ := tools.([]any)
	for _, tool := range list {
		m, ok := tool.(map[string]any)
		if !ok || m["outputSchema"] == nil {
			continue
		}
		w, err := outschema.Widen(m["outputSchema"])
		if err != nil {
			return err
		}
		m["outputSchema"] = w
	}
	return nil
}

// dropExtractionTools returns tools, a list of tools or of their names,
// without the proxy's extraction tools.
func dropExtractionTools(tools any) any {
	list, ok := tools.([]any)
	if !ok {
		return tools
	}
	return slices.DeleteFunc(slices.Clone(list), func(tool any) bool {
		name, ok := tool.(string)
		if !ok {
			m, _ := tool.(map[string]any)
			name, _ = m["name"].(string)
		}
		return slices.Contains(extractionTools, name)
	})
}

// offloadDiff checks an offloaded row: DIRECT is a tool result given
// inline, THROUGH a descriptor whose file rebuilds it. It returns what is
// wrong, or "".
func offloadDiff(direct, through feature) string {
	var d, th struct {
		StructuredContent struct {
			Offloaded bool   `json:"offloaded"`
			FilePath  string `json:"file_path"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(direct.Outcome, &d); err != nil {
		return "DIRECT: " + err.Error()
	}
	if err := json.Unmarshal(through.Outcome, &th); err != nil {
		return "THROUGH: " + err.Error()
	}
	switch {
	case d.StructuredContent.Offloaded:
		return "DIRECT is offloaded"
	case !th.StructuredContent.Offloaded:
		return "THROUGH is not offloaded"
	case !filepath.IsAbs(th.StructuredContent.FilePath):
		return fmt.Sprintf("THROUGH's file_path %q is not absolute", th.StructuredContent.FilePath)
	}
	h, records, err := offload.ReadFile(th.StructuredContent.FilePath)
	if err != nil {
		return "reading the offloaded file: " + err.Error()
	}
	lines := make([][]byte, len(records))
	for i, r := range records {
		lines[i] = r
	}
	rebuilt, err := offload.Rebuild(h, lines)
	if err != nil {
		return "rebuilding the offloaded file: " + err.Error()
	}
	want, err := jsonTexts(direct.Outcome)
	if err != nil {
		return "DIRECT: " + err.Error()
	}
	got, err := jsonTexts(rebuilt)
	if err != nil {
		return "rebuilt: " + err.Error()
	}
	if d := cmp.Diff(want, got); d != "" {
		return "the offloaded file does not rebuild the DIRECT result (-DIRECT +rebuilt):\n" + truncate(d)
	}
	return ""
}

// jsonTexts decodes a tool result with each text item that holds JSON
// decoded too: a rebuilt result has such texts in compact form.
func jsonTexts(result []byte) (map[string]any, error) {
	var r map[string]any
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, err
	}
	content, _ := r["content"].([]any)
	for _, c := range content {
		m, _ := c.(map[string]any)
		text, ok := m["text"].(string)
		var v any
		if ok && json.Unmarshal([]byte(text), &v) == nil {
			m["text"] = v
		}
	}
	return r, nil
}

// truncate keeps the first 40 lines of a diff.
func truncate(s string) string {
	const max = 40
	lines := strings.SplitAfter(s, "\n")
	if len(lines) <= max {
		return s
	}
	return strings.Join(lines[:max], "") + fmt.Sprintf("... (%d more lines)\n", len(lines)-max)
}

// firstChange returns the first changed line of a diff, trimmed, or its
// first line when it has none.
func firstChange(diff string) string {
	for l := range strings.Lines(diff) {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") {
			return l
		}
	}
	l, _, _ := strings.Cut(diff, "\n")
	return l
}

// markdown renders the matrix: a row per feature, a column per server.
func markdown(rows []string, cells map[string]map[string]string) string {
	var b strings.Builder
	b.WriteString("| feature |")
	for _, s := range matrixServers {
		fmt.Fprintf(&b, " server-%s |", s.name)
	}
	b.WriteString("\n| --- |")
	for range matrixServers {
		b.WriteString(" --- |")
	}
	b.WriteByte('\n')
	esc := strings.NewReplacer("|", `\|`, "\n", " ")
	for _, name := range rows {
		fmt.Fprintf(&b, "| %s |", esc.Replace(name))
		for _, s := range matrixServers {
			cell, ok := cells[name][s.name]
			if !ok {
				cell = "n/a"
			}
			fmt.Fprintf(&b, " %s |", esc.Replace(cell))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
