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
// Files are deleted once their time to live has passed: the first offload
// to a folder or store starts its sweeper, which runs as long as files are
// left there (see [Options.CleanupInterval]); nothing needs to be started
// or stopped. [StartJanitor] sweeps on a schedule of its own.
// [GuardNullArguments] keeps go-sdk from crashing on null arguments and on
// resources/read of a uri holding a control character.
//
// # The file
//
// A file is named {prefix}-{operation}-{ulid}.jsonl. Its first line is a
// header: the specification's fields, then "result", the tool result with
// its records taken out, and "records_at", which says where they were, so
// that nothing the tool returned is lost. Every further line is one record,
// so that tail -n +2 FILE | jq reads the records. The records are found in
// the structured content or in each text item (a JSON document, rows
// printed as text, or lines of text); docs/how-it-works.md gives the rules.
//
// # Behaviour
//
// The threshold is evaluated on everything the client would receive: every
// text item, the structured content and every other item but images and
// audio, which stay in the response beside the descriptor. Errors
// (IsError) and results that ask for more input pass through untouched. When
// the file cannot be written, the call still succeeds with a truncated
// result within the threshold and a warning, and nothing is left on disk.
// Every offload and every write failure is reported to [Options.Observer]
// (see package [github.com/zircote/lro-go/lro/event]). A client that
// identifies itself as a local LRO proxy receives results inline (see
// [Options.IgnoreProxy]).
//
// A server run as several replicas behind a load balancer writes its files
// to a bucket that all of them share, [Options.Store] (see
// docs/replicas.md): each descriptor then gives the file's handle, which
// the extraction tools take on any replica.
//
// Clients without a shell query the files through the tools of package
// [github.com/zircote/lro-go/lro/extract], registered next to the server's
// own (see [Options.ExtractTools]); package
// [github.com/zircote/lro-go/lro/proxy] puts offloading in front of any MCP
// server; package [github.com/zircote/lro-go/lro/lrotest] checks that a
// running server conforms to the specification.
//
// The decorated handlers, and the middleware, are safe for concurrent use
// if the handlers they decorate are. Options are copied on entry.
package lro
