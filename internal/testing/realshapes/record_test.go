package realshapes

// The recorder: go test ./internal/testing/realshapes -run TestRecord -record
// records every item of the corpus again from its source and rewrites
// testdata/manifest.json and testdata/items. It needs node with the npm
// packages of lro/internal/testing/interop installed, python3 (and one with pandas and
// tabulate), sqlite3, PostgreSQL (initdb, pg_ctl, psql), git, and npm (it
// runs npm pack to read the API specification).

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var record = flag.Bool("record", false, "record the corpus again from its sources")

// Versions of the sources.
const (
	serversVersion = "2026.8.31" // @modelcontextprotocol/server-* (lro/internal/testing/interop/package.json)
	octokitPackage = "@octokit/openapi@23.0.2"
	countriesPkg   = "world-countries@5.1.0" // data under the ODbL (Open Database License)
	gitServer      = "mcp-server-git 0.6.2 (github.com/modelcontextprotocol/servers src/git/src/mcp_server_git/server.py at 76d64c822f5125032f89eb71dbdb94e42b434821)"
	sqliteServer   = "mcp-server-sqlite (read_query returns str(results), results = [dict(row) for row in cursor.fetchall()], row_factory sqlite3.Row)"
)

// entry is an item's manifest entry, Result left out.
type entry = Item

type recorder struct {
	t       *testing.T
	root    string // module root
	dir     string // testdata
	items   string // where items are written
	clone   string // a clone of this repository at gitCommit
	entries []entry
}

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// add writes an item's result and its manifest entry.
func (r *recorder) add(e entry, res *mcp.CallToolResult) {
	r.t.Helper()
	data, err := json.Marshal(res)
	if err != nil {
		r.t.Fatal(err)
	}
	r.addRaw(e, data)
}

// addRaw writes an item's result, the JSON of a CallToolResult, and its
// manifest entry.
func (r *recorder) addRaw(e entry, data []byte) {
	r.t.Helper()
	if _, err := decodeResult(data); err != nil {
		r.t.Fatalf("%s: %v", e.Name, err)
	}
	out := append(bytes.Clone(data), '\n')
	e.File = strings.NewReplacer("/", "-", " ", "-").Replace(e.Name) + ".json"
	if err := os.WriteFile(filepath.Join(r.items, e.File), out, 0o644); err != nil {
		r.t.Fatal(err)
	}
	r.entries = append(r.entries, e)
}

// text is a result of one text item.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// run runs a program and returns its standard output.
func (r *recorder) run(stdin string, name string, args ...string) string {
	r.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = r.root
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("%s %q: %v\n%s", name, args, err, stderr.String())
	}
	return string(out)
}

func TestRecord(t *testing.T) {
	if !*record {
		t.Skip("records the corpus only with -record")
	}
	r := &recorder{t: t, root: moduleRoot(), dir: filepath.Join(moduleRoot(), "internal", "testing", "realshapes", "testdata")}
	// Items are written beside the corpus and replace it only once all
	// are recorded: a failed recording leaves the corpus as it was.
	r.items = filepath.Join(r.dir, "items.new")
	if err := os.RemoveAll(r.items); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(r.items, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(r.items) })
	// The servers and programs read a clone of this repository at
	// gitCommit, so that recording again gives the same output.
	// Its path is fixed too: the servers print it.
	r.clone = filepath.Join(os.TempDir(), "lro-go-"+gitCommit[:7])
	if err := os.RemoveAll(r.clone); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(r.clone) })
	r.run("", "git", "clone", "--quiet", "--no-checkout", r.root, r.clone)
	r.run("", "git", "-C", r.clone, "checkout", "--quiet", "-B", "main", gitCommit)
	r.filesystem()
	r.memory()
	r.everything()
	r.sqlite()
	r.git()
	r.openapi()
	r.countries()
	data, err := json.MarshalIndent(r.entries, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(r.dir, "items")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(r.items, filepath.Join(r.dir, "items")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "manifest.json"), append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A session is a client session with a reference server that keeps the
// messages it reads, to record results as received.
type session struct {
	cs  *mcp.ClientSession
	log *syncBuffer
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lastResult returns the raw result of the last response read.
func (b *syncBuffer) lastResult() (json.RawMessage, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	lines := strings.Split(b.buf.String(), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		msg, ok := strings.CutPrefix(lines[i], "read: ")
		if !ok {
			continue
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal([]byte(msg), &resp) == nil && len(resp.Result) > 0 {
			return resp.Result, nil
		}
	}
	return nil, errors.New("no result read")
}

// session starts a reference server of lro/internal/testing/interop's node_modules.
func (r *recorder) session(server string, env []string, args ...string) *session {
	r.t.Helper()
	js := filepath.Join(r.root, "lro", "internal", "testing", "interop", "node_modules", "@modelcontextprotocol", server, "dist", "index.js")
	if _, err := os.Stat(js); err != nil {
		r.t.Fatalf("%v (npm ci --prefix lro/internal/testing/interop)", err)
	}
	cmd := exec.Command("node", append([]string{js}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	log := &syncBuffer{}
	tr := &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: cmd}, Writer: log}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "realshapes-recorder", Version: "v0"}, nil).Connect(context.Background(), tr, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { cs.Close() })
	return &session{cs, log}
}

// call calls a tool and returns its result as received.
func (r *recorder) call(s *session, tool string, args map[string]any) []byte {
	r.t.Helper()
	res, err := s.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		r.t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		r.t.Fatalf("%s: tool error %v", tool, res.Content)
	}
	raw, err := s.log.lastResult()
	if err != nil {
		r.t.Fatalf("%s: %v", tool, err)
	}
	return raw
}

func argsText(args map[string]any) string {
	b, _ := json.Marshal(args)
	return string(b)
}

func (r *recorder) filesystem() {
	const src = "@modelcontextprotocol/server-filesystem"
	cs := r.session("server-filesystem", nil, r.clone)
	lro := filepath.Join(r.clone, "lro")
	calls := []struct {
		tool string
		args map[string]any
		grow growth
	}{
		{"directory_tree", map[string]any{"path": lro}, growth{By: "json"}},
		{"list_directory", map[string]any{"path": lro}, growth{By: "text", Sep: "\n"}},
		{"list_directory_with_sizes", map[string]any{"path": lro, "sortBy": "size"}, growth{By: "text", Sep: "\n"}},
		{"search_files", map[string]any{"path": r.clone, "pattern": "**/*_test.go"}, growth{By: "text", Sep: "\n"}},
		{"read_text_file", map[string]any{"path": filepath.Join(r.clone, "lro", "doc.go")}, growth{By: "text"}},
		{"read_multiple_files", map[string]any{"paths": []string{filepath.Join(r.clone, "go.mod"), filepath.Join(r.clone, "jsonl", "doc.go")}}, growth{By: "text", Sep: "\n---\n"}},
	}
	for _, c := range calls {
		res := r.call(cs, c.tool, c.args)
		e := entry{Name: "filesystem/" + c.tool, Source: src, Version: serversVersion,
			Command: "node dist/index.js <root>; tools/call " + c.tool + " " + strings.ReplaceAll(argsText(c.args), r.clone, "<root>") + " (<root>: a clone of this repository at " + gitCommit + ")", Grow: c.grow}
		if c.tool == "directory_tree" {
			e.Records = r.arrayLen(firstText(r.t, res))
		}
		r.addRaw(e, res)
	}
}

// firstText returns the text of the first content item of a raw result.
func firstText(t *testing.T, raw []byte) string {
	t.Helper()
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("no text in %.200s: %v", raw, err)
	}
	return res.Content[0].Text
}

// arrayLen returns the number of elements of a JSON document's records:
// the document, an array, or the one array member of an object.
func (r *recorder) arrayLen(doc string) int {
	r.t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		r.t.Fatal(err)
	}
	if a, ok := v.([]any); ok {
		return len(a)
	}
	n := -1
	for _, m := range v.(map[string]any) {
		if a, ok := m.([]any); ok {
			if n >= 0 {
				r.t.Fatalf("more than one array in %.200s", doc)
			}
			n = len(a)
		}
	}
	return n
}

// memory records the memory server's graph of this module's packages: one
// entity per package, with its doc synopsis and files as observations, and
// one relation per import inside the module.
func (r *recorder) memory() {
	const src = "@modelcontextprotocol/server-memory"
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = r.clone
	cmd.Stderr = os.Stderr
	outb, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("go list: %v", err)
	}
	out := string(outb)
	type pkg struct {
		ImportPath, Doc, Name string
		GoFiles, TestGoFiles  []string
		Imports               []string
	}
	var entities, relations []map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			r.t.Fatal(err)
		}
		obs := []string{}
		if p.Doc != "" {
			obs = append(obs, p.Doc)
		}
		obs = append(obs, "package "+p.Name, "Go files: "+strings.Join(p.GoFiles, ", "))
		if len(p.TestGoFiles) > 0 {
			obs = append(obs, fmt.Sprintf("%d test files", len(p.TestGoFiles)))
		}
		entities = append(entities, map[string]any{"name": p.ImportPath, "entityType": "go package", "observations": obs})
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, "github.com/zircote/lro-go") {
				relations = append(relations, map[string]any{"from": p.ImportPath, "to": imp, "relationType": "imports"})
			}
		}
	}
	env := []string{"MEMORY_FILE_PATH=" + filepath.Join(r.t.TempDir(), "memory.jsonl")}
	cs := r.session("server-memory", env)
	r.call(cs, "create_entities", map[string]any{"entities": entities})
	r.call(cs, "create_relations", map[string]any{"relations": relations})
	const made = "; after create_entities and create_relations with this module's packages (go list -json ./... at " + gitCommit + ": entity per package, observations its doc synopsis and files; relation per import inside the module)"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read_graph", map[string]any{}},
		{"search_nodes", map[string]any{"query": "offload"}},
		{"open_nodes", map[string]any{"names": []string{"github.com/zircote/lro-go/lro", "github.com/zircote/lro-go/recipes", "github.com/zircote/lro-go/jsonl"}}},
	} {
		res := r.call(cs, c.tool, c.args)
		r.addRaw(entry{Name: "memory/" + c.tool, Source: src, Version: serversVersion,
			Command: "node dist/index.js; tools/call " + c.tool + " " + argsText(c.args) + made, Grow: growth{By: "json"}}, res)
	}
}

func (r *recorder) everything() {
	const src = "@modelcontextprotocol/server-everything"
	cs := r.session("server-everything", nil, "stdio")
	for _, c := range []struct {
		tool string
		args map[string]any
		grow growth
	}{
		{"get-structured-content", map[string]any{"location": "Chicago"}, growth{By: "items"}},
		{"get-resource-links", map[string]any{"count": 10}, growth{By: "items", Head: 1}},
		{"get-annotated-message", map[string]any{"messageType": "error", "includeImage": false}, growth{By: "items"}},
		{"get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 1}, growth{By: "items"}},
		{"echo", map[string]any{"message": "hello from the recorder"}, growth{By: "text", Sep: "\n"}},
	} {
		res := r.call(cs, c.tool, c.args)
		r.addRaw(entry{Name: "everything/" + c.tool, Source: src, Version: serversVersion,
			Command: "node dist/index.js stdio; tools/call " + c.tool + " " + argsText(c.args), Grow: c.grow}, res)
	}
}

// sqlite records mcp-server-sqlite's read_query and the tabular outputs of
// sqlite3 and Python's csv module, on the table of testdata/sources/orders.sql.
func (r *recorder) sqlite() {
	db := filepath.Join(r.t.TempDir(), "orders.db")
	sql := filepath.Join(r.dir, "sources", "orders.sql")
	r.run("", "sqlite3", db, ".read "+sql)
	sqliteVersion := strings.TrimSpace(r.run("", "sqlite3", "--version"))
	pyVersion := strings.TrimSpace(r.run("", "python3", "--version"))
	const query = "SELECT * FROM orders ORDER BY id"
	var rows int
	if _, err := fmt.Sscan(r.run("", "sqlite3", db, "SELECT count(*) FROM orders"), &rows); err != nil {
		r.t.Fatal(err)
	}
	readQuery := filepath.Join(r.dir, "sources", "read_query.py")
	r.add(entry{Name: "sqlite/read_query", Source: sqliteServer, Version: pyVersion + ", its sqlite3 module",
		Command: "python3 testdata/sources/read_query.py orders.db '" + query + "' (orders.db made by sqlite3 from testdata/sources/orders.sql)",
		Records: rows, Grow: growth{By: "text", Prefix: "[", Suffix: "]", Sep: ", "}},
		text(r.run("", "python3", readQuery, db, query)))
	for _, c := range []struct {
		name string
		args []string
		grow growth
	}{
		{"sqlite3/csv", []string{"-csv", "-header"}, growth{By: "text", HeadLines: 1}},
		{"sqlite3/tsv", []string{"-separator", "\t", "-header"}, growth{By: "text", HeadLines: 1}},
		{"sqlite3/markdown", []string{"-markdown"}, growth{By: "text", HeadLines: 2}},
		{"sqlite3/json", []string{"-json"}, growth{By: "json"}},
	} {
		args := append(append([]string{}, c.args...), db, query)
		out := r.run("", "sqlite3", args...)
		e := entry{Name: c.name, Source: "sqlite3", Version: sqliteVersion,
			Command: "sqlite3 " + strings.ReplaceAll(fmt.Sprintf("%q", c.args), "\\t", "TAB") + " orders.db '" + query + "'", Grow: c.grow}
		if c.name == "sqlite3/csv" || c.name == "sqlite3/json" {
			e.Records = rows
		}
		// sqlite3's TSV does not quote, and its Markdown prints a newline
		// in a cell as a line break (not a Markdown table any more: its
		// text stays lines): a newline in a value splits its row, so no
		// row count is stated for either.
		r.add(e, text(out))
	}
	r.add(entry{Name: "python/csv", Source: "Python csv.writer (default dialect excel: CRLF line ends, minimal quoting)", Version: pyVersion,
		Command: "python3 testdata/sources/csv_rows.py orders.db '" + query + "'", Records: rows, Grow: growth{By: "text", HeadLines: 1}},
		text(r.run("", "python3", filepath.Join(r.dir, "sources", "csv_rows.py"), db, query)))

	// sqlite3's tabs mode and psql's unaligned output quote nothing, and
	// pandas' to_markdown (tabulate) prints a newline in a value as a line
	// break: the rows whose values hold what they cannot delimit are left
	// out, so that each row is one line.
	const noTab = "instr(coalesce(note, ''), char(9)) = 0"
	const noNewline = "instr(coalesce(note, ''), char(10)) = 0"
	tabsQuery := "SELECT * FROM orders WHERE " + noTab + " AND " + noNewline + " ORDER BY id"
	r.add(entry{Name: "sqlite3/tabs", Source: "sqlite3 (.mode tabs: no quoting, NULL as an empty field)", Version: sqliteVersion,
		Command: "sqlite3 -tabs -header orders.db \"" + tabsQuery + "\"", Records: r.count(db, tabsQuery), Grow: growth{By: "text", HeadLines: 1}},
		text(r.run("", "sqlite3", "-tabs", "-header", db, tabsQuery)))
	r.postgres(db, "SELECT * FROM orders WHERE strpos(coalesce(note, ''), chr(9)) = 0 AND strpos(coalesce(note, ''), chr(10)) = 0 ORDER BY id")
	mdQuery := "SELECT * FROM orders WHERE " + noNewline + " ORDER BY id"
	py := r.pandasPython()
	pdVersion := strings.TrimSpace(r.run("", py, "-c", "import sys, pandas, tabulate; print('pandas', pandas.__version__, 'tabulate', tabulate.__version__, 'Python', sys.version.split()[0])"))
	r.add(entry{Name: "pandas/to_markdown", Source: "pandas DataFrame.to_markdown() (tabulate's pipe format: alignment colons, numbers on the decimal point, the index as the first column)", Version: pdVersion,
		Command: "python3 testdata/sources/to_markdown.py orders.db \"" + mdQuery + "\"", Records: r.count(db, mdQuery), Grow: growth{By: "text", HeadLines: 2, Sep: "\n"}},
		text(r.run("", py, filepath.Join(r.dir, "sources", "to_markdown.py"), db, mdQuery)))
}

// postgres records psql's unaligned output with tabs between fields
// (psql -A -F TAB -P footer=off: a header, no quoting) of the rows of
// query, the table of sqlite3's db loaded into a PostgreSQL server started
// for the recording (as the postgres user when run as root).
func (r *recorder) postgres(db, query string) {
	dir, err := os.MkdirTemp("", "lro-go-pg")
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { os.RemoveAll(dir) })
	var as []string
	if os.Geteuid() == 0 { // initdb refuses root
		u, err := user.Lookup("postgres")
		if err != nil {
			r.t.Fatal(err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		if err := os.Chown(dir, uid, -1); err != nil {
			r.t.Fatal(err)
		}
		as = []string{"runuser", "-u", "postgres", "--"}
	}
	pg := func(args ...string) *exec.Cmd {
		args = append(as, args...)
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		return cmd
	}
	data := filepath.Join(dir, "data")
	for _, args := range [][]string{
		{"initdb", "-D", data, "-A", "trust", "-U", "postgres"},
		{"pg_ctl", "-D", data, "-o", "-k " + dir + " -c listen_addresses=''", "-l", filepath.Join(dir, "log"), "-w", "start"},
	} {
		if out, err := pg(args...).CombinedOutput(); err != nil {
			r.t.Fatalf("%q: %v\n%s", args, err, out)
		}
	}
	r.t.Cleanup(func() { pg("pg_ctl", "-D", data, "-m", "immediate", "stop").Run() })
	psql := func(stdin string, args ...string) string {
		return r.run(stdin, "psql", append([]string{"-X", "-h", dir, "-U", "postgres", "-v", "ON_ERROR_STOP=1"}, args...)...)
	}
	psql("", "-q", "-f", filepath.Join(r.dir, "sources", "orders_pg.sql"))
	psql(r.run("", "sqlite3", "-csv", db, "SELECT * FROM orders ORDER BY id"), "-q", "-c", `\copy orders FROM STDIN WITH (FORMAT csv)`)
	version := strings.TrimSpace(r.run("", "psql", "--version")) + ", server " + strings.TrimSpace(psql("", "-At", "-c", "SHOW server_version"))
	var rows int
	if _, err := fmt.Sscan(psql("", "-At", "-c", "SELECT count(*) FROM ("+query+") q"), &rows); err != nil {
		r.t.Fatal(err)
	}
	r.add(entry{Name: "psql/tsv", Source: "psql (unaligned output, a tab between fields: no quoting, NULL as an empty field, booleans t and f)", Version: version,
		Command: "psql -A -F TAB -P footer=off -c \"" + query + "\" (the table testdata/sources/orders_pg.sql, loaded with \\copy orders FROM STDIN WITH (FORMAT csv) from sqlite3 -csv orders.db 'SELECT * FROM orders ORDER BY id')",
		Records: rows, Grow: growth{By: "text", HeadLines: 1}},
		text(psql("", "-A", "-F", "\t", "-P", "footer=off", "-c", query)))
}

// count returns the number of rows of a query.
func (r *recorder) count(db, query string) int {
	r.t.Helper()
	var n int
	if _, err := fmt.Sscan(r.run("", "sqlite3", db, "SELECT count(*) FROM ("+query+")"), &n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

// pandasPython returns the first Python of the PATH's python3 and the
// system's (Debian's python3-pandas) that has pandas and tabulate.
func (r *recorder) pandasPython() string {
	r.t.Helper()
	for _, py := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(py, "-c", "import pandas, tabulate").Run() == nil {
			return py
		}
	}
	r.t.Fatal("no python3 with pandas and tabulate (apt-get install python3-pandas python3-tabulate)")
	return ""
}

// gitCommit is the commit of this repository that the git items show, so
// that recording them again gives the same output.
const gitCommit = "9670b6a73c772c8f714dc51d4a36ede66490fe15"

// git records mcp-server-git's git_log, git_status and git_diff on a clone
// of this repository at gitCommit, printed by testdata/sources/git_tools.py
// as the server prints them (GitPython's output of the same git commands).
func (r *recorder) git() {
	gitVersion := strings.TrimSpace(r.run("", "git", "--version"))
	clone := r.clone
	script := filepath.Join(r.dir, "sources", "git_tools.py")
	for _, c := range []struct {
		tool string
		args []string
		grow growth
	}{
		{"git_log", []string{"log", "25"}, growth{By: "text", HeadLines: 1, Sep: "\n"}},
		{"git_status", []string{"status"}, growth{By: "text", HeadLines: 1, Sep: "\n"}},
		{"git_diff", []string{"diff", "HEAD~2"}, growth{By: "text", HeadLines: 1, Sep: "\n"}},
	} {
		out := r.run("", "python3", append([]string{script, clone}, c.args...)...)
		r.add(entry{Name: "git/" + c.tool, Source: gitServer, Version: gitVersion,
			Command: "python3 testdata/sources/git_tools.py <a clone of this repository at " + gitCommit + "> " + strings.Join(c.args, " "), Grow: c.grow}, text(out))
	}
}

// openapi records response examples of GitHub's REST API description, as
// the API sends them (JSON indented by two spaces), and one as a Python
// server prints the decoded body with str().
func (r *recorder) openapi() {
	tmp := r.t.TempDir()
	cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", tmp, octokitPackage)
	cmd.Stderr = os.Stderr
	name, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("npm pack %s: %v", octokitPackage, err)
	}
	doc := readTarFile(r.t, filepath.Join(tmp, strings.TrimSpace(string(name))), "package/generated/api.github.com.json")
	var spec struct {
		Components struct {
			Examples map[string]struct {
				Value json.RawMessage `json:"value"`
			} `json:"examples"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &spec); err != nil {
		r.t.Fatal(err)
	}
	for _, name := range []string{
		"issue-items", "pull-request-simple-items", "commit-items", "minimal-repository-items", "release-items",
		"code-search-result-item-paginated", "issue-search-result-item-paginated", "check-run-paginated",
		"workflow-run-paginated", "global-advisory-items", "billing-usage-report",
		"codespaces-list", "timeline-issue-events", "projects-v2-item-with-content", "secret-scanning-location-list",
		"content-traffic-items", "license-simple-items",
	} {
		ex, ok := spec.Components.Examples[name]
		if !ok {
			r.t.Fatalf("%s has no example %s", octokitPackage, name)
		}
		var out bytes.Buffer
		if err := json.Indent(&out, ex.Value, "", "  "); err != nil {
			r.t.Fatal(err)
		}
		r.add(entry{Name: "github-api/" + name, Source: "GitHub REST API description, api.github.com.json, components.examples." + name + ".value", Version: octokitPackage,
			Command: "npm pack " + octokitPackage + "; the example indented by two spaces, as the API sends its bodies", Records: r.arrayLen(out.String()), Grow: growth{By: "json"}}, text(out.String()))
		if name == "issue-items" {
			py := r.run(string(ex.Value), "python3", "-c", "import json, sys; sys.stdout.write(str(json.load(sys.stdin)))")
			pyVersion := strings.TrimSpace(r.run("", "python3", "--version"))
			r.add(entry{Name: "python/str-github-issues", Source: "a Python server returning str(response.json()) of GitHub's issue list (" + octokitPackage + " components.examples.issue-items)", Version: pyVersion,
				Command: "python3 -c 'import json, sys; sys.stdout.write(str(json.load(sys.stdin)))' < the example", Records: r.arrayLen(out.String()), Grow: growth{By: "text", Prefix: "[", Suffix: "]", Sep: ", "}}, text(py))
		}
	}
}

// npmFile returns a file of an npm package, fetched with npm pack.
func (r *recorder) npmFile(pkg, name string) []byte {
	r.t.Helper()
	tmp := r.t.TempDir()
	cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", tmp, pkg)
	cmd.Stderr = os.Stderr
	tgz, err := cmd.Output()
	if err != nil {
		r.t.Fatalf("npm pack %s: %v", pkg, err)
	}
	return readTarFile(r.t, filepath.Join(tmp, strings.TrimSpace(string(tgz))), name)
}

// countries records the first countries of the world-countries data set:
// records with an array of floats (latlng), as its JSON file writes them,
// and the same rows of its CSV file.
func (r *recorder) countries() {
	const n, rows = 8, 30 // its records are large in JSON, small in CSV
	doc := r.npmFile(countriesPkg, "package/countries.json")
	dec := json.NewDecoder(bytes.NewReader(doc))
	if _, err := dec.Token(); err != nil {
		r.t.Fatal(err)
	}
	for range n {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			r.t.Fatal(err)
		}
	}
	// The file's bytes up to the end of its nth element, then its own end
	// (white space, "]" and its final line end): its first n elements as it
	// writes them, indented by four spaces with CRLF line ends.
	end := bytes.LastIndexByte(doc, ']')
	end = len(bytes.TrimRight(doc[:end], " \t\r\n"))
	docText := string(doc[:dec.InputOffset()]) + string(doc[end:])
	r.add(entry{Name: "world-countries/json", Source: "world-countries countries.json (ODbL), the first 8 countries", Version: countriesPkg,
		Command: "npm pack " + countriesPkg + "; package/countries.json, its first 8 elements as the file writes them", Records: n, Grow: growth{By: "json"}}, text(docText))

	csvData := r.npmFile(countriesPkg, "package/dist/countries.csv")
	cr := csv.NewReader(bytes.NewReader(csvData))
	for range rows + 1 {
		if _, err := cr.Read(); err != nil {
			r.t.Fatal(err)
		}
	}
	r.add(entry{Name: "world-countries/csv", Source: "world-countries dist/countries.csv (ODbL), the header and the first 30 rows", Version: countriesPkg,
		Command: "npm pack " + countriesPkg + "; package/dist/countries.csv up to the end of its 31st row", Records: rows, Grow: growth{By: "text", HeadLines: 1}},
		text(string(csvData[:cr.InputOffset()])))
}

func readTarFile(t *testing.T, tgz, name string) []byte {
	t.Helper()
	f, err := os.Open(tgz)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			t.Fatalf("%s has no %s", tgz, name)
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}
