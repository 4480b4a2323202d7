// Package proxy puts Large Result Offloading in front of any MCP server: it
// is the specification's local LRO proxy ("Remote Transport Proxy"), widened
// to upstreams of every kind.
//
// A [Proxy] relays each client session ([Proxy.Run], served over stdio by
// the program examples/lro-proxy) to a connection of its own to the
// upstream server: a streamable HTTP endpoint, or a command serving MCP over
// stdio. It relays JSON-RPC messages, not MCP features: every message
// passes in both directions as the peer wrote it, so every feature of MCP
// works as it would without the proxy (docs/proxy.md lists those tested).
//
// # What the proxy changes
//
//   - tools/call results above the threshold are offloaded, with
//     [lro.Wrap]'s rules and the proxy's [lro.Options], to a JSONL file on
//     the proxy's machine. The file holds the bytes the upstream sent, and
//     the result keeps every other member as written.
//   - tools/list results: an output schema is widened with the schema of a
//     descriptor (as lro.AddTool does), and the local tools
//     ([Options.RegisterLocalTools], such as lro_extract) are added on the
//     last page. If there are local tools, the initialize result advertises
//     tools.
//   - The proxy identifies itself to the upstream as an LRO proxy, in the
//     client's initialize and in every tools/call (the capability extension
//     "io.github.zircote/lro" and clientInfo.proxy = true), so that a
//     server built with package lro returns full results inline.
//
// # Transports and failures
//
// A session connects when its client's first request arrives. A request
// that cannot reach the upstream gets an error that starts "proxy: upstream
// unavailable" and names the URL or command (a tool error for tools/call);
// the next request connects again, replaying the client's initialize. A
// reply that cannot be passed on answers its request with an error that
// says why. docs/proxy.md, "Limits and failures", has the details.
package proxy
