// Package proxy puts Large Result Offloading in front of any MCP server: it
// is the specification's local LRO proxy ("Remote Transport Proxy"), widened
// to upstreams of every kind.
//
// A [Proxy] relays each client session ([Proxy.Run], served over stdio by
// the program examples/lro-proxy) to a connection of its own to the
// upstream server: a streamable HTTP endpoint, or a command serving MCP over
// stdio. It relays JSON-RPC messages, not MCP features: every request,
// notification and response passes in both directions as the peer wrote
// it (IDs, params, results, _meta, methods and fields the proxy does not
// know), so every feature of MCP works as it would without the proxy,
// including those added later (docs/proxy.md lists those tested).
//
// # What the proxy changes
//
//   - tools/call results above the threshold are offloaded, with
//     [lro.Wrap]'s rules and the proxy's [lro.Options], to a JSONL file on
//     the proxy's machine, where the client's shell can read it. The file
//     holds the bytes the upstream sent (go-sdk's client would decode the
//     structured content into float64s, rewriting 1.50 and failing on
//     1e400), and the result keeps every other member as written.
//   - tools/list results: an output schema is widened with the schema of a
//     descriptor (as lro.AddTool does), and the local tools
//     ([Options.RegisterLocalTools], such as lro_extract) are added on the
//     last page; their calls are answered by the proxy. If there are local
//     tools, the initialize result advertises tools.
//   - The proxy identifies itself to the upstream as an LRO proxy: in the
//     client's initialize, by the capability extension
//     "io.github.zircote/lro" ({"proxy": true}) and clientInfo.proxy = true;
//     in every tools/call, by the same key in _meta (and clientInfo.proxy in
//     a clientInfo sent there). A server built with package lro then
//     returns full results inline (see lro.Options.IgnoreProxy).
//
// # Transports and failures
//
// A stdio upstream is read by a connection of the proxy's own, which skips
// a line that is no JSON-RPC message and reads messages up to
// [Options.MaxMessageBytes]; an HTTP upstream is reached with go-sdk's
// [mcp.StreamableClientTransport]. A session connects when its client's
// first request arrives. A request that cannot reach the upstream gets an
// error that starts "proxy: upstream unavailable" and names the URL or
// command (a tool error for tools/call); when the upstream's connection
// ends, the next request connects again, replaying the client's
// initialize. A reply that cannot be passed on answers its request with an
// error that says why. docs/proxy.md, "Limits and failures", has the
// details.
package proxy
