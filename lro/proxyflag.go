package lro

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/proxyflag"
)

// bypass reports whether the result of req goes out inline because its
// client is an LRO proxy: one that identifies itself by the capability
// extension "io.github.zircote/lro": {"proxy": true}, by the same key in
// the request's _meta, or by the specification's clientInfo.proxy (see
// [Options.IgnoreProxy]).
func (c *config) bypass(req *mcp.CallToolRequest) bool {
	return !c.IgnoreProxy && proxyflag.InRequest(req)
}
