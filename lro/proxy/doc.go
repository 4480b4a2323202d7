// Package proxy puts Large Result Offloading in front of any MCP server: it
// is the specification's local LRO proxy ("Remote Transport Proxy"), widened
// to upstreams of every kind.
//
// A [Proxy] relays each client session ([Proxy.Run], served over stdio by
// the program examples/lro-proxy) to a connection of its own to the
// upstream server: a streamable HTTP endpoint, or a command serving MCP over
// stdio. It relays JSON-RPC messages, not MCP features: every message
// passes in both directions as the peer wrote it, but that tools/call
// results above the threshold are offloaded with [lro.Wrap]'s rules to a
// JSONL file on the proxy's machine, tools/list output schemas are widened
// to accept the descriptor, the local tools ([Options.RegisterLocalTools])
// are added, and the proxy marks itself as an LRO proxy upstream, so that a
// server built with package lro returns full results inline.
//
// A session connects when its client's first request arrives. A request
// that cannot reach the upstream gets an error that starts "proxy: upstream
// unavailable" and names the URL or command (a tool error for tools/call);
// the next request connects again, replaying the client's initialize.
// docs/proxy.md tells what passes, what changes, and the limits and
// failures.
package proxy
