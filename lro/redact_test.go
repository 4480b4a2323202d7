package lro_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/internal/testing/redacttest"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// secretParts returns what must not be left of a fake credential anywhere:
// the secret and each of its lines of 12 bytes or more, which a shape may
// write with its line breaks escaped.
func secretParts(f redacttest.Fake) []string {
	parts := []string{f.Secret}
	for l := range strings.SplitSeq(f.Secret, "\n") {
		if len(l) >= 12 && l != f.Secret {
			parts = append(parts, l)
		}
	}
	return parts
}

// leaked returns the first part of f found in b, "" for none.
func leaked(f redacttest.Fake, b []byte) string {
	for _, p := range secretParts(f) {
		if bytes.Contains(b, []byte(p)) {
			return p
		}
	}
	return ""
}

// redactionShapes returns results above the threshold that carry text
// (once among 300 records, and as the namespace of most, so that the
// descriptor's summary and recipes would show it), one per shape of
// result.
func redactionShapes(t *testing.T, text string) []shape {
	t.Helper()
	const n = 300
	recs := make([]map[string]any, n)
	for i := range recs {
		ns := "notes"
		if i%2 == 0 {
			ns = text
		}
		recs[i] = map[string]any{"id": i, "namespace": ns, "body": fmt.Sprintf("record number %d of the set", i)}
	}
	recs[7]["env"] = map[string]any{"vars": []any{map[string]any{"name": "SECRET", "value": text}}}
	records, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	var lines, md strings.Builder
	var tab bytes.Buffer
	w := csv.NewWriter(&tab)
	_ = w.Write([]string{"id", "namespace", "body"})
	var py strings.Builder
	py.WriteString("[")
	md.WriteString("| id | namespace | body |\n|---|---|---|\n")
	pyStr := func(s string) string {
		return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`, "\n", `\n`).Replace(s) + "'"
	}
	for i, r := range recs {
		ns := r["namespace"].(string)
		fmt.Fprintf(&lines, "%d %s record number %d\n", i, strings.ReplaceAll(ns, "\n", " "), i)
		_ = w.Write([]string{fmt.Sprint(i), ns, r["body"].(string)})
		if i > 0 {
			py.WriteString(", ")
		}
		fmt.Fprintf(&py, "{'id': %d, 'namespace': %s, 'body': %s}", i, pyStr(ns), pyStr(r["body"].(string)))
		fmt.Fprintf(&md, "| %d | %s | %s |\n", i, strings.ReplaceAll(ns, "\n", "<br>"), r["body"])
	}
	w.Flush()
	py.WriteString("]")
	nested := fmt.Sprintf(`{"data":{"page":{"items":%s,"auth":{"header":%q}}}}`, records, text)
	return []shape{
		{name: "json text", texts: []string{string(records)}},
		{name: "structured", texts: []string{"see the structured content"}, structured: json.RawMessage(`{"items":` + string(records) + `}`)},
		{name: "nested", texts: []string{nested}},
		{name: "lines", texts: []string{lines.String()}},
		{name: "csv", texts: []string{tab.String()}},
		{name: "python", texts: []string{py.String()}},
		{name: "markdown", texts: []string{md.String()}},
	}
}

// responseBytes returns every text and the structured content of res.
func responseBytes(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	sc, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(sc)
	return b.Bytes()
}

// onlyFile returns the bytes of the one file in dir.
func onlyFile(t *testing.T, dir string) []byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("%s holds %d entries (%v), want 1", dir, len(entries), err)
	}
	b, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// headerOf returns the header of the file b.
func headerOf(t *testing.T, b []byte) offload.FileHeader {
	t.Helper()
	line, _, _ := bytes.Cut(b, []byte("\n"))
	var h offload.FileHeader
	if err := json.Unmarshal(line, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

// callRedacting calls a handler returning sh, wrapped with opts, with the
// query q.
func callRedacting(t *testing.T, sh shape, opts *lro.Options, q string) *mcp.CallToolResult {
	t.Helper()
	h := wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return sh.result(), nil }, opts)
	args, _ := json.Marshal(map[string]string{"query": q})
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "env_dump", Arguments: args}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRedaction offloads results that carry a fake credential of every
// kind, in every shape of result, and as the query: neither the file (its
// records and header) nor the response (descriptor, summary, recipes,
// guidance) holds the secret, the header counts what was redacted, and the
// descriptor says so.
func TestRedaction(t *testing.T) {
	for _, f := range redacttest.Fakes() {
		for _, sh := range redactionShapes(t, f.Text) {
			t.Run(f.Kind+"/"+sh.name, func(t *testing.T) {
				dir := t.TempDir()
				res := callRedacting(t, sh, &lro.Options{OutputDir: dir}, f.Text)
				resp := responseBytes(t, res)
				file := onlyFile(t, dir)
				if p := leaked(f, file); p != "" {
					t.Errorf("the file holds %q", p)
				}
				if p := leaked(f, resp); p != "" {
					t.Errorf("the response holds %q", p)
				}
				if !bytes.Contains(file, []byte("[REDACTED:"+f.Kind+"]")) {
					t.Errorf("the file holds no marker of %s", f.Kind)
				}
				h := headerOf(t, file)
				if h.Redacted[f.Kind] < 2 { // the query and the records
					t.Errorf("header redacted = %v, want %s counted", h.Redacted, f.Kind)
				}
				if !bytes.Contains(resp, []byte("credentials redacted")) {
					t.Errorf("the descriptor does not say that credentials were redacted:\n%s", resp)
				}
			})
		}
	}
}

// TestRedactionOff writes the credentials when redaction is off, for all
// tools or one; and leaves a result below the threshold, which goes out
// inline, unchanged.
func TestRedactionOff(t *testing.T) {
	f := redacttest.Fakes()[0]
	sh := redactionShapes(t, f.Text)[0]
	for _, tc := range []struct {
		name string
		opts lro.Options
	}{
		{"Options", lro.Options{DisableRedaction: true}},
		{"Tools", lro.Options{Tools: map[string]lro.Options{"env_dump": {DisableRedaction: true}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.opts.OutputDir = dir
			callRedacting(t, sh, &tc.opts, "q")
			if h := headerOf(t, onlyFile(t, dir)); leaked(f, onlyFile(t, dir)) == "" || h.Redacted != nil {
				t.Errorf("redaction off: the file lacks the secret, or its header counts %v", h.Redacted)
			}
		})
	}
	t.Run("inline", func(t *testing.T) {
		small := shape{texts: []string{`{"token":"` + f.Secret + `"}`}}
		dir := t.TempDir()
		res := callRedacting(t, small, &lro.Options{OutputDir: dir}, f.Secret)
		if diff := cmp.Diff(small.texts[0], res.Content[0].(*mcp.TextContent).Text); diff != "" {
			t.Errorf("inline result changed (-want +got):\n%s", diff)
		}
	})
}

// TestRedactPatterns adds patterns, for all tools and for one.
func TestRedactPatterns(t *testing.T) {
	secret := "acme_" + "0123456789abcdef"
	sh := redactionShapes(t, "key "+secret)[0]
	for _, tc := range []struct {
		name string
		opts lro.Options
		want map[string]int
	}{
		{"Options", lro.Options{RedactPatterns: []string{`(?P<acme>acme_[0-9a-f]{16})`}}, map[string]int{"acme": 151}},
		{"Tools", lro.Options{Tools: map[string]lro.Options{"env_dump": {RedactPatterns: []string{`acme_[0-9a-f]{16}`}}}}, map[string]int{"custom": 151}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.opts.OutputDir = dir
			callRedacting(t, sh, &tc.opts, "q")
			file := onlyFile(t, dir)
			if bytes.Contains(file, []byte(secret)) {
				t.Error("the file holds the secret")
			}
			if diff := cmp.Diff(tc.want, headerOf(t, file).Redacted); diff != "" {
				t.Errorf("header redacted (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := lro.LoadOptions(&lro.Options{RedactPatterns: []string{"("}}, ""); !errors.Is(err, lro.ErrInvalidOption) {
		t.Errorf("an invalid pattern: err = %v, want ErrInvalidOption", err)
	}
}

// TestRedactionTyped offloads the records of a typed tool (lro.AddTool),
// one of which holds every kind of fake credential.
func TestRedactionTyped(t *testing.T) {
	type rec struct {
		ID    int    `json:"id"`
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	type out struct {
		Items []rec `json:"items"`
	}
	fakes := redacttest.Fakes()
	dir := t.TempDir()
	s := newServer()
	lro.AddTool(s, &mcp.Tool{Name: "vars"}, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, out, error) {
		var o out
		for i := range 300 {
			o.Items = append(o.Items, rec{ID: i, Name: "plain", Value: fmt.Sprintf("value %d", i)})
		}
		for i, f := range fakes {
			o.Items[i*3].Value = f.Text
		}
		return nil, o, nil
	}, &lro.Options{OutputDir: dir})
	res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "vars", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	file, resp := onlyFile(t, dir), responseBytes(t, res)
	want := map[string]int{}
	for _, f := range fakes {
		want[f.Kind]++
		if p := leaked(f, file); p != "" {
			t.Errorf("%s: the file holds %q", f.Kind, p)
		}
		if p := leaked(f, resp); p != "" {
			t.Errorf("%s: the response holds %q", f.Kind, p)
		}
	}
	if diff := cmp.Diff(want, headerOf(t, file).Redacted); diff != "" {
		t.Errorf("header redacted (-want +got):\n%s", diff)
	}
}

// TestRedactionFallback falls back (the disk is full): the records shown
// instead of the file hold no secret either.
func TestRedactionFallback(t *testing.T) {
	for _, f := range redacttest.Fakes() {
		sh := redactionShapes(t, f.Text)[0]
		opts := hooked(&lro.Options{OutputDir: t.TempDir()}, lro.Hooks{WrapWriter: func(w io.Writer) io.Writer { return &fullDisk{w: w} }})
		resp := responseBytes(t, callRedacting(t, sh, opts, f.Text))
		if !bytes.Contains(resp, []byte("Warning")) {
			t.Fatalf("%s: no fallback:\n%.300s", f.Kind, resp)
		}
		if p := leaked(f, resp); p != "" {
			t.Errorf("%s: the fallback holds %q", f.Kind, p)
		}
	}
}

// TestRedactionBucket offloads to a bucket: the object holds no secret.
func TestRedactionBucket(t *testing.T) {
	b := memblob.OpenBucket(nil)
	st, err := store.NewBucket(blobstore.New(b), &store.Options{Prefix: "r"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fakes := redacttest.Fakes()
	for _, f := range fakes {
		callRedacting(t, redactionShapes(t, f.Text)[0], &lro.Options{Store: st}, f.Text)
	}
	ctx := context.Background()
	it := b.List(nil)
	objects := 0
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := b.ReadAll(ctx, obj.Key)
		if err != nil {
			t.Fatal(err)
		}
		objects++
		for _, f := range fakes {
			if p := leaked(f, data); p != "" {
				t.Errorf("object %s holds %q", obj.Key, p)
			}
		}
	}
	if objects < len(fakes) {
		t.Errorf("%d objects, want at least %d", objects, len(fakes))
	}
}

// TestRedactionLookAlikes offloads look-alikes of credentials: the file
// rebuilds the result byte for byte, and the header counts nothing.
func TestRedactionLookAlikes(t *testing.T) {
	var recs []map[string]any
	for i := range 300 {
		l := redacttest.LookAlikes()
		recs = append(recs, map[string]any{"id": i, "v": l[i%len(l)]})
	}
	data, _ := json.Marshal(recs)
	dir := t.TempDir()
	callRedacting(t, shape{texts: []string{string(data)}}, &lro.Options{OutputDir: dir}, "AKIA and Bearer")
	file := onlyFile(t, dir)
	h := headerOf(t, file)
	if h.Redacted != nil || h.Query == nil || *h.Query != "AKIA and Bearer" {
		t.Errorf("header: redacted %v, query %v; want none, unchanged", h.Redacted, h.Query)
	}
	for _, l := range redacttest.LookAlikes() {
		j, _ := json.Marshal(l)
		if !bytes.Contains(file, j) {
			t.Errorf("the file lacks %s", j)
		}
	}
}

// TestRedactionProvidedAndResources redacts the records of a set handed
// over with lro.Provide, and an embedded resource's text.
func TestRedactionProvidedAndResources(t *testing.T) {
	fakes := redacttest.Fakes()
	var recs []map[string]any
	for i := range 300 {
		recs = append(recs, map[string]any{"id": i, "value": fmt.Sprintf("plain value %d", i)})
	}
	for i, f := range fakes {
		recs[i*5]["value"] = f.Text
	}
	var envFile strings.Builder
	for _, f := range fakes {
		envFile.WriteString(f.Text + "\n")
	}
	for _, tc := range []struct {
		name string
		h    mcp.ToolHandler
	}{
		{"Provide", func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			lro.Provide(ctx, lro.ResultSet{Records: recs})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "the first page"}}}, nil
		}},
		{"embedded resource", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			data, _ := json.Marshal(recs)
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: string(data)},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///app/.env", MIMEType: "text/plain", Text: envFile.String()}},
			}}, nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			res, err := lro.Wrap(tc.h, &lro.Options{OutputDir: dir})(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}})
			if err != nil {
				t.Fatal(err)
			}
			file, resp := onlyFile(t, dir), responseBytes(t, res)
			for _, f := range fakes {
				if p := leaked(f, file); p != "" {
					t.Errorf("%s: the file holds %q", f.Kind, p)
				}
				if p := leaked(f, resp); p != "" {
					t.Errorf("%s: the response holds %q", f.Kind, p)
				}
			}
		})
	}
}
