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
// know), so resources, prompts, completions, logging, progress,
// cancellation, sampling, elicitation, roots, list changes, the 2026-07-28
// protocol's discovery and input_required results and the tasks extension
// all work as they would without the proxy, and so will features added to
// MCP later.
//
// # What the proxy changes
//
//   - tools/call results above the threshold are offloaded, with
//     [lro.Wrap]'s rules and the proxy's [lro.Options]: the whole result
//     goes to a JSONL file on the proxy's machine, where the client's shell
//     can read it, and the client receives the descriptor. The proxy hands
//     the core the bytes the upstream sent (go-sdk's client would decode the
//     structured content into float64s, rewriting 1.50 and failing on
//     1e400), and keeps every other member of the result as written.
//     Errors and results that are not complete (input_required) pass as
//     they are.
//   - tools/list results: an output schema is widened with
//     the schema of a descriptor (as lro.AddTool does), so that the descriptor is valid under what
//     the client was told; the local tools ([Options.RegisterLocalTools],
//     such as lro_extract, lro_read and lro_search) are added on the last
//     page, and their calls are answered by the proxy. If there are local
//     tools, the initialize result advertises tools.
//   - The proxy identifies itself to the upstream as an LRO proxy: in the
//     client's initialize request, by the capability extension
//     "io.github.zircote/lro" ({"proxy": true}) and the specification's
//     clientInfo.proxy = true; in every tools/call, by the same key in
//     _meta (and clientInfo.proxy in the clientInfo a client of protocol
//     2026-07-28 sends there). A server built with package lro then returns full results
//     inline (see lro.Options.IgnoreProxy), so files land on the client's
//     machine; other servers ignore them.
//
// # Transports
//
// A stdio upstream is read by a connection of the proxy's own: a line that
// is no JSON-RPC message (a library printing to stdout) is logged and
// skipped, and a message may be up to [Options.MaxMessageBytes] (256 MiB by
// default; go-sdk's CommandTransport stops at 16 MiB). An HTTP upstream is
// reached with go-sdk's [mcp.StreamableClientTransport]; the relay adds
// what go-sdk's client session would otherwise tell that connection: the
// negotiated protocol version header, and, before protocol 2026-07-28, the
// standalone stream of the server's own messages (GET).
//
// From a stdio upstream to a stdio client ([mcp.StdioTransport] or
// [mcp.IOTransport], whose messages the relay writes itself), the proxy
// holds a message about twice at most: the line read, and the text an
// offload unquotes from it. Over HTTP, go-sdk's client, which reads the
// upstream's replies, holds copies of its own.
//
// # Failures
//
// A session connects when its client's first request arrives; a request
// that cannot reach the upstream gets an error that starts "proxy: upstream
// unavailable" and names the URL or command: a tool error (isError) for tools/call, which
// the model reads, a JSON-RPC error for other requests. When the upstream's
// connection ends (the process exits, the HTTP server goes away), the
// requests in flight get that error, and the next request connects again:
// the proxy replays the client's initialize, so the client's session goes
// on. A request the upstream cannot have seen (its HTTP session was gone)
// is sent again, once, on the new connection. After the client cancels a
// request, no response to it reaches the client.
//
// A reply of the upstream that cannot be passed on (not JSON, nested more
// than 10,000 levels deep, cut short, above [Options.MaxMessageBytes], its
// id of the wrong type) answers the request it replies to with an error
// that says why, in the same form; from a stdio upstream, the connection
// goes on. Over HTTP, go-sdk's client reads the replies: it refuses JSON
// nested more than 1,000 levels deep, and ends the connection on a reply it
// cannot read, as above.
package proxy
