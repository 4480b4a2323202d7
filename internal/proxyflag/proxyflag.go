// Package proxyflag is how a local LRO proxy (package lro/proxy) identifies
// itself to the server it fronts, and how a server built with package lro
// recognizes it.
package proxyflag

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Key is the key under which a local LRO proxy identifies itself to the
// server it fronts, with the value {"proxy": true}: as a capability
// extension in the handshake, and in the _meta of every tools/call. The
// specification's "clientInfo": {"proxy": true} is read too where it
// survives go-sdk: in the _meta clientInfo of protocol 2026-07-28.
const Key = "io.github.zircote/lro"

// Settings returns the value of [Key] a proxy sends: a new map
// {"proxy": true}.
func Settings() map[string]any { return map[string]any{"proxy": true} }

// InRequest reports whether the client that sent req identified itself
// as a local LRO proxy (see [Key]).
func InRequest(req *mcp.CallToolRequest) bool {
	if req == nil || req.Params == nil {
		return false
	}
	meta := req.Params.GetMeta()
	info, _ := meta[mcp.MetaKeyClientInfo].(map[string]any)
	if isProxyValue(meta[Key]) || info["proxy"] == true {
		return true
	}
	caps := req.ClientCapabilities() // from _meta on protocol 2026-07-28, else the handshake
	return caps != nil && (isProxyValue(caps.Extensions[Key]) || isProxyValue(caps.Experimental[Key]))
}

// isProxyValue reports whether v is {"proxy": true}, as decoded from JSON.
func isProxyValue(v any) bool {
	m, _ := v.(map[string]any)
	return m["proxy"] == true
}
