// Package proxy puts Large Result Offloading in front of any MCP server: it
// is the specification's local LRO proxy, widened to upstreams of every
// kind. A [Proxy] relays each client session ([Proxy.Run]) to a connection
// of its own to the upstream, a streamable HTTP endpoint or a command
// serving MCP over stdio. Every JSON-RPC message passes in both directions
// as the peer wrote it, but that tools/call results above the threshold are
// offloaded with [lro.Wrap]'s rules to a JSONL file on the proxy's machine,
// tools/list output schemas are widened to accept the descriptor, the local
// tools ([Options.RegisterLocalTools]) are added, and the proxy marks itself
// as an LRO proxy upstream. docs/proxy.md tells what passes, what changes,
// and the limits and failures.
package proxy
