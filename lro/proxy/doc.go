// Package proxy puts Large Result Offloading in front of any MCP server: it
// is the specification's local LRO proxy ("Remote Transport Proxy"), widened
// to upstreams of every kind.
//
// A [Proxy] is an MCP server (served to the client over stdio by the
// program examples/proxy) that connects, as a client, to an upstream server
// over streamable HTTP or to a command serving MCP over stdio. It re-exposes
// every upstream tool with the same name, title, description, input
// schema, annotations and _meta, forwards each call, and applies [lro.Wrap]
// to each result with one [lro.Options]: a result set estimated above the
// threshold is written to a JSONL file on the proxy's machine, where the
// client's shell can read it, and the client receives the descriptor. An
// upstream output schema is widened with [lro.WidenOutputSchema], so the
// descriptor is valid under what the proxy advertises.
//
// # Data
//
// The proxy never alters upstream data. It forwards and offloads the bytes
// the upstream sent: the raw JSON of each result's structured content is
// captured below the go-sdk client, which would otherwise decode it into
// maps and float64s (reordering keys, rounding integers above 2^53). The
// records are found as [lro.Wrap] finds them: in the structured content when
// it is an array or has an array field, else in the text when it is one JSON
// document, else one record per text line ({"line": N, "text": "…"}).
// Structured content without an array, such as {"content": "…"} holding a
// whole file, is no list of records: the records are then found in the text
// content, and the structured content is returned as it was whenever the
// result goes out inline. When the records are the array field of an object,
// the object's other fields (a total, a cursor of the next page) would be
// lost with the object; the proxy adds them, as written, in a second text
// content after the descriptor.
//
// # Handshake
//
// The proxy identifies itself to the upstream as an LRO proxy by the key
// [lro.ProxyKey] ("io.github.zircote/lro", value {"proxy": true}), sent
// both as a client capability extension and in the _meta of every call; with
// an upstream speaking protocol 2026-07-28, which carries clientInfo in the
// _meta of every request, it also sends the specification's own carrier,
// clientInfo.proxy = true, there (go-sdk cannot send it in an initialize
// request). A server built with package lro that sees any of them returns
// full results inline (see [lro.IsProxyRequest]), so files land on the
// client's machine; other servers ignore them.
//
// # Failures
//
// [New] fails with [ErrUpstreamUnavailable], naming the URL or command, when
// the upstream cannot be reached. A call made while the upstream is gone
// fails with a tool error (isError) saying so, and the next call connects
// again (starting the command again for a stdio upstream), so the proxy
// recovers when the upstream is back. A call whose connection broke is made
// again, once, on a new connection when the upstream cannot have seen it
// (it answered that it no longer knows the session) or when the tool is
// annotated readOnlyHint or idempotentHint; other calls are never repeated. Upstream tool errors pass through as
// tool errors, and upstream protocol errors as the same protocol errors.
// When the upstream's tool list changes, the proxy lists it again and tells
// its client. Progress notifications of a call are relayed to the client.
//
// The proxy forwards tools only: upstream prompts, resources, sampling,
// elicitation and roots are not relayed.
package proxy
