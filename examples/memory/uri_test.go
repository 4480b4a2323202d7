package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/store"
)

// badURIs are resources/read URIs holding characters that go-sdk v1.8.0
// cannot write back in its not-found error (it quotes the URI with Go's %q,
// which is not JSON for them): it then ended the connection, and the stdio
// server with it.
var badURIs = []struct {
	uri, want string
}{
	{"x\x00", "U+0000 at byte 1"},
	{"x\a", "U+0007 at byte 1"},
	{"x\x7f", "U+007F at byte 1"},
	{"lro://results/\x00", "U+0000 at byte 14"},
	{"x\v", "U+000B"},
	{"x\U000E0001", "U+E0001"}, // not printable: %q writes \U000e0001
}

// readsBadURIs reads each of badURIs through cs, checks that each is an
// invalid-params error naming the character, and that the session still
// answers after it.
func readsBadURIs(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx := context.Background()
	for _, b := range badURIs {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: b.uri})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, b.want) {
			t.Errorf("resources/read of %q: %v, want an invalid-params error naming %s", b.uri, err, b.want)
		}
		if err := cs.Ping(ctx, nil); err != nil {
			t.Fatalf("after resources/read of %q, the session does not answer: %v", b.uri, err)
		}
	}
	call(t, cs, "recall_memories", map[string]any{"query": "redis", "limit": 2})
}

// TestControlCharactersInURIs: a resources/read whose uri holds a control
// character is an error naming it, and the server goes on, over stdio (the
// built program, with and without the extraction tools and a bucket) and
// over streamable HTTP.
func TestControlCharactersInURIs(t *testing.T) {
	t.Run("stdio", func(t *testing.T) {
		bin := buildBinary(t)
		for _, tt := range []struct {
			name string
			args []string
		}{
			{"offloading only", nil},
			{"extraction tools", []string{"-extract"}},
			{"bucket", []string{"-storage", "file://" + filepath.ToSlash(t.TempDir())}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				cmd := exec.Command(bin, append([]string{"-records", "50", "-output-dir", t.TempDir()}, tt.args...)...)
				if tt.name == "bucket" {
					cmd = exec.Command(bin, append([]string{"-records", "50"}, tt.args...)...)
				}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).
					Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				readsBadURIs(t, cs)
			})
		}
	})
	t.Run("http", func(t *testing.T) {
		st, err := store.Open(context.Background(), "file://"+filepath.ToSlash(t.TempDir()), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		for _, tt := range []struct {
			name string
			opts *lro.Options
		}{
			{"offloading only", testOpts(t)},
			{"bucket and extraction tools", &lro.Options{Store: st, ExtractTools: true}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				srv := httptest.NewServer(newHTTPHandler(newServer(smallStore, tt.opts), smallStore, slog.New(slog.DiscardHandler), false))
				defer srv.Close()
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "v0"}, nil).
					Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer cs.Close()
				readsBadURIs(t, cs)
			})
		}
	})
}
