// Package lro implements Large Result Offloading for MCP servers built with
// github.com/modelcontextprotocol/go-sdk: a tool result estimated above a
// token threshold is written to a JSONL file, and the client receives,
// instead of the result, a compact descriptor of the file (a summary, the
// file's absolute path, the JSON Schema of one record, ready-to-run jq
// recipes and guidance), so that the model reads only what it needs with a
// shell command. Within the threshold, a result goes out unchanged.
//
// # Where to start
//
// Decorate the tools that may return large results, in one of three ways:
//
//   - [AddTool] registers a typed tool, in place of [mcp.AddTool];
//   - [Wrap] decorates an [mcp.ToolHandler] (for a tool with an output
//     schema, install [Middleware] for it instead, which widens the schema);
//   - [Middleware] decorates every tool of a server, or a named set of them.
//
// A handler that returns a rendering or one page of a larger result set
// hands the full set over with [Provide]. [Options] configure all three; a
// nil *Options is the specification's defaults, and [LoadOptions] reads
// them from the specification's TOML file and environment variables.
// Files are deleted once their time to live has passed: registering a tool
// starts the automatic janitor of its folder or store, which sweeps at once
// and then at each expiry (see [Options.CleanupInterval]); package
// [github.com/zircote/lro-go/cleanup] runs a janitor of your own.
// [GuardNullArguments] keeps go-sdk from crashing on null arguments.
//
// # Behaviour
//
// A file is named {prefix}-{operation}-{ulid}.jsonl: a header line (the
// specification's fields and the tool result with its records taken out,
// so that nothing the tool returned is lost), then one record a line. The
// threshold is evaluated on everything the client would receive but images
// and audio. Errors and results that ask for more input pass through. When
// the file cannot be written, the call still succeeds with a truncated
// result within the threshold and a warning. A client that identifies
// itself as a local LRO proxy receives results inline. Replicas share a
// bucket, [Options.Store]. docs/how-it-works.md and docs/replicas.md tell
// the details.
//
// Clients without a shell query the files through the tools of package
// [github.com/zircote/lro-go/lro/extract], registered next to the server's
// own (see [Options.ExtractTools]); package
// [github.com/zircote/lro-go/lro/proxy] puts offloading in front of any MCP
// server; package [github.com/zircote/lro-go/lro/lrotest] checks that a
// running server conforms to the specification.
package lro
