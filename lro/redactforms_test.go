package lro_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/redacttest"
	"github.com/zircote/lro-go/lro"
)

// TestRedactionTextMeta offloads a result whose text item carries a
// credential in its _meta, which the header's "result" keeps: the file holds
// no secret, as for the _meta of any other item.
func TestRedactionTextMeta(t *testing.T) {
	recs := make([]map[string]any, 300)
	for i := range recs {
		recs[i] = map[string]any{"id": i, "body": fmt.Sprintf("record number %d of the set", i)}
	}
	data, _ := json.Marshal(recs)
	for _, f := range redacttest.Fakes() {
		t.Run(f.Kind, func(t *testing.T) {
			dir := t.TempDir()
			h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{
					&mcp.TextContent{Text: string(data), Meta: mcp.Meta{"request": map[string]any{"url": "https://api.example.com/v1", "auth": f.Text, "n": json.Number("12345678901234567890")}}},
				}}, nil
			}, &lro.Options{OutputDir: dir})
			res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}})
			if err != nil {
				t.Fatal(err)
			}
			file := onlyFile(t, dir)
			if p := leaked(f, file); p != "" {
				t.Errorf("the file holds %q", p)
			}
			if p := leaked(f, responseBytes(t, res)); p != "" {
				t.Errorf("the response holds %q", p)
			}
			if n := headerOf(t, file).Redacted[f.Kind]; n != 1 {
				t.Errorf("header counts %d of %s, want 1", n, f.Kind)
			}
		})
	}
}

// TestRedactionNamedValues offloads a listing of Kubernetes pods whose
// containers' environment holds an AWS secret key as a name/value pair,
// and the dump of an HTTP request whose header, as Go writes an
// http.Header, holds a token of a custom scheme: neither the file nor the
// response holds them.
func TestRedactionNamedValues(t *testing.T) {
	aws := redacttest.Fakes()[2]
	if aws.Kind != "aws-secret-access-key" {
		t.Fatalf("fake %s, want aws-secret-access-key", aws.Kind)
	}
	tok := "0123456789abcdef" + "0123456789abcdef01234567"
	pods := make([]map[string]any, 300)
	for i := range pods {
		env := []map[string]string{{"name": "REGION", "value": "us-east-1"}}
		if i == 7 {
			env = append(env, map[string]string{"name": "AWS_SECRET_ACCESS_KEY", "value": aws.Secret})
		}
		pods[i] = map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("web-%d", i)},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "web", "env": env}}},
			"request":  map[string]any{"Header": map[string][]string{"Accept": {"*/*"}}},
		}
	}
	pods[9]["request"] = map[string]any{"Header": map[string][]string{"Authorization": {"token " + tok}}}
	data, _ := json.Marshal(map[string]any{"kind": "List", "items": pods})
	dir := t.TempDir()
	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}, &lro.Options{OutputDir: dir})
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "kubectl_get"}})
	if err != nil {
		t.Fatal(err)
	}
	file, resp := onlyFile(t, dir), responseBytes(t, res)
	for _, secret := range []string{aws.Secret, tok} {
		if bytes.Contains(file, []byte(secret)) {
			t.Errorf("the file holds %q", secret)
		}
		if bytes.Contains(resp, []byte(secret)) {
			t.Errorf("the response holds %q", secret)
		}
	}
	if diff := cmp.Diff(map[string]int{"aws-secret-access-key": 1, "authorization": 1}, headerOf(t, file).Redacted); diff != "" {
		t.Errorf("header redacted (-want +got):\n%s", diff)
	}
}

// TestRedactionFallbackShapes falls back (the disk is full) for every shape
// of result and every fake credential: the records shown hold no
// secret.
func TestRedactionFallbackShapes(t *testing.T) {
	for _, f := range redacttest.Fakes() {
		for _, sh := range redactionShapes(t, f.Text) {
			opts := hooked(&lro.Options{OutputDir: t.TempDir()}, lro.Hooks{WrapWriter: func(w io.Writer) io.Writer { return &fullDisk{w: w} }})
			resp := responseBytes(t, callRedacting(t, sh, opts, f.Text))
			if !bytes.Contains(resp, []byte("Warning")) {
				t.Fatalf("%s/%s: no fallback:\n%.300s", f.Kind, sh.name, resp)
			}
			if p := leaked(f, resp); p != "" {
				t.Errorf("%s/%s: the fallback holds %q", f.Kind, sh.name, p)
			}
		}
	}
}
