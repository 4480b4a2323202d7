package proxyflag_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/proxyflag"
)

func TestInRequest(t *testing.T) {
	caps := func(key string, v any) map[string]any {
		return map[string]any{key: map[string]any{proxyflag.Key: v}}
	}
	tests := []struct {
		name string
		meta mcp.Meta
		want bool
		why  string
	}{
		{"no meta", nil, false, "a plain client is not a proxy"},
		{"meta key", mcp.Meta{proxyflag.Key: map[string]any{"proxy": true}}, true, "the per-request carrier"},
		{"meta key typed", mcp.Meta{proxyflag.Key: proxyflag.Settings()}, true, "as built in process, before any encoding"},
		{"meta key false", mcp.Meta{proxyflag.Key: map[string]any{"proxy": false}}, false, "proxy must be true"},
		{"meta key string", mcp.Meta{proxyflag.Key: map[string]any{"proxy": "true"}}, false, "a string is not true"},
		{"meta key bare true", mcp.Meta{proxyflag.Key: true}, false, "the value is an object, not a boolean"},
		{"clientInfo.proxy", mcp.Meta{mcp.MetaKeyClientInfo: map[string]any{"name": "p", "version": "1", "proxy": true}}, true,
			"the specification's carrier, as protocol 2026-07-28 sends clientInfo in _meta"},
		{"clientInfo without proxy", mcp.Meta{mcp.MetaKeyClientInfo: map[string]any{"name": "p", "version": "1"}}, false, "an ordinary clientInfo"},
		{"capability extension", mcp.Meta{mcp.MetaKeyClientCapabilities: caps("extensions", map[string]any{"proxy": true})}, true,
			"capabilities arrive in _meta on protocol 2026-07-28"},
		{"experimental capability", mcp.Meta{mcp.MetaKeyClientCapabilities: caps("experimental", map[string]any{"proxy": true})}, true,
			"the older home of non-standard capabilities"},
		{"other extension", mcp.Meta{mcp.MetaKeyClientCapabilities: caps("extensions", nil)}, false, "the key without settings"},
		{"other key", mcp.Meta{"io.example/lro": map[string]any{"proxy": true}}, false, "only Key counts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "x", Meta: tt.meta}}
			if got := proxyflag.InRequest(req); got != tt.want {
				t.Errorf("InRequest = %v, want %v (%s)", got, tt.want, tt.why)
			}
		})
	}
	if proxyflag.InRequest(nil) || proxyflag.InRequest(&mcp.CallToolRequest{}) {
		t.Error("InRequest of a request without params = true, want false")
	}
}
