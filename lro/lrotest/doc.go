// Package lrotest checks that a live MCP server implements Large Result
// Offloading (LRO) as the specification requires, in the spirit of
// testing/slogtest: it talks to the server only over the protocol, so it
// tests any implementation, in any language, over any transport.
//
// Give [Check] a connected [*mcp.ClientSession] and a [Config] naming a tool,
// arguments whose result set is large (above the server's threshold) and
// arguments whose result set is small, and the conformance level to check.
// Check calls the tool, reads the offloaded JSONL file the descriptor points
// to (client and server share the file system: that is the premise of LRO;
// for a server that keeps its results in a store, see below), runs every
// jq recipe of the descriptor, and returns a [Report] with one
// [Result] per requirement: pass, FAIL, warn (a SHOULD not followed) or skip,
// with the reasons. It reports every violation at once and never stops at the
// first; a requirement that depends on something that failed is skipped,
// naming it. [Run] does the same inside a test, reporting each failure with
// t.Errorf. The command examples/conform runs the kit against a server started
// from a command line or reached at a URL and prints the table.
//
//	rep, err := lrotest.Check(ctx, session, &lrotest.Config{
//		Tool:    "recall_memories",
//		Large:   map[string]any{"query": "semantic", "limit": 300},
//		Small:   map[string]any{"query": "redis", "limit": 3},
//		Details: []string{"light", "medium", "full"},
//	})
//	if err != nil { ... }  // the check could not run: bad Config, unknown tool
//	rep.WriteTable(os.Stdout)
//
// # Requirements
//
// Each requirement has an ID "L{level}.{subject}", the specification's
// sentence it checks ([Requirement].Spec) and how it is checked
// ([Requirement].How); [Requirements] lists them all. By level:
//
// Level 1 (basic: threshold detection, JSONL output, file reference and
// summary): L1.inline.small, L1.offload.large, L1.offload.threshold,
// L1.estimate, L1.descriptor.offloaded, L1.descriptor.file_path,
// L1.descriptor.handle, L1.descriptor.output_schema, L1.no_cursor, L1.file.name, L1.operation,
// L1.header.type, L1.header.fields, L1.header.timestamp, L1.header.count,
// L1.header.query, L1.detail, L1.records.jsonl, L1.summary.fields,
// L1.summary.count, L1.summary.tokens, L1.summary.top_namespaces.
//
// Level 2 (standard: line schema, the recipe library, guidance, cleanup):
// L2.descriptor.fields, L2.line_schema, L2.recipes.count, L2.recipes.fields,
// L2.recipes.file, L2.recipes.skip_header, L2.recipes.run,
// L2.recipes.no_score, L2.recipes.fields_exist, L2.recipes.detail,
// L2.guidance, L2.guidance.template (SHOULD), L2.cleanup.
//
// Level 3 (full: fallback and events): L3.fallback.succeeds,
// L3.fallback.warning, L3.fallback.truncated, L3.events.
//
// The calls with the large arguments run once as given and once per
// [Config].Details level; every Level 1 and Level 2 requirement but
// L1.inline.small and L2.cleanup is checked on each of them.
//
// # Results kept on the server
//
// A server that keeps its results in a store, such as a bucket that its
// replicas share (lro.Options.Store with package lro/extract), gives each
// descriptor a handle and follows it with an MCP resource_link to
// lro://results/{handle}; file_path is then where a client that downloads
// the result keeps it. When file_path is not on this machine and the
// descriptor has a handle, the kit fetches the file with resources/read of
// that link into a private temporary folder (removed before Check returns;
// the kit writes nothing at file_path) and checks that copy as it checks a
// local file: header, records, summary, line schema, recipes. A recipe
// that reads exactly file_path runs on the copy: the same command, its
// words quoted for sh, with file_path replaced by the copy's path.
// [Report].Files says how the files were read.
//
// L1.descriptor.handle checks the handle and its link when there is one:
// the link's uri and mimeType (application/jsonl) and size, that
// resources/read returns the file (the same bytes as file_path's, for a
// store in a folder the client reads), and that a handle the server never
// gave is an error saying so. With a handle, L1.file.name accepts a random
// part in the name ({prefix}-{operation}-{ulid}-{random}.jsonl, at least
// 128 bits in hex) and L2.guidance.template the handle in place of the
// path. L2.cleanup cannot plant an expired file in a bucket: it is skipped,
// saying why, unless [Cleanup].Dir names the store's folder.
//
// # Recipes that run
//
// The commands come from the server under test, so the kit runs only
// commands of the form the specification gives, "tail -n +2 FILE | jq
// [options] FILTER" (or "cat FILE | jq ...", or "jq ... FILTER FILE"), made
// of plain shell words (quotes and escapes; no expansions, redirections or
// other commands). Any other command fails L2.recipes.run unrun, with the
// reason. Each accepted command runs as given with sh -c and the jq
// installed on the machine, and must exit 0 with nothing on standard error.
// Without jq (or with [Config].InProcess), the kit runs the filter in process
// with github.com/itchyny/gojq on the file's lines, mirroring tail -n +2 and
// jq's -s, -r, -j, -c, -n and -e and its --arg and --argjson variables
// (gojq prints object keys sorted; the checks compare values, not text).
// [Report].Recipes says which runner ran.
//
// The field paths a recipe's filter indexes (.a.b, {a}) are read from its
// jq syntax tree. L2.recipes.fields_exist requires each to exist in at least
// one record of the file; keys that the filter builds itself ({count:
// length} | ... .count) are exempt. L2.recipes.detail applies the
// specification's detail table to memory records (objects with id, title,
// namespace and memory_type): at light, recipe 9 lists namespaces and 10
// counts memory types; at medium, 9 sorts by .confidence and 10 searches
// .content; at full, 9 sorts by .provenance.confidence and 10 searches
// .content; recipe 9's output must hold every record, by confidence
// descending; recipes 1 to 8 may index only Light fields.
//
// # What the protocol cannot show
//
// Some requirements live inside the server. The kit checks them with the
// server's cooperation where an honest protocol-level check exists, and skips
// them, saying why, where none does:
//
//   - Custodial cleanup (L2.cleanup) needs [Config].Cleanup: the kit plants
//     in the output folder a file named by the convention whose ULID time
//     and modification time lie the TTL plus one minute in the past, plus an
//     unrelated file, and waits [Cleanup].Within for the server to delete the
//     first. The server must sweep at least that often (the specification's
//     default schedule is hourly; the example memory server has
//     -cleanup-interval). The unrelated file and this run's own offloaded
//     files must survive. The kit removes what it planted.
//   - The write-failure fallback (L3.fallback.*) needs
//     [Config].FallbackSession, a session to a second instance of the server
//     whose output folder cannot be written, for example one started with
//     ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR naming a folder that is then
//     replaced by a regular file.
//     The large call there must succeed, warn that offloading failed and the
//     result is truncated, and hold fewer records than the offloaded file,
//     within the threshold.
//   - Observability events (L3.events) are emitted inside the server and are
//     not visible over MCP: the requirement is always skipped. Check them in
//     process with the server's own observer, as lro's TestConformanceLevel3
//     does.
//
// The kit cannot know the server's configuration: give [Config].ThresholdTokens
// (default 1,600, the specification's), [Config].Prefix (default "atlatl"),
// and, to check them, [Config].Operation, [Config].OutputDir and
// [Config].DefaultDetail.
//
// Check is safe to call concurrently on different sessions. It does not
// change the Config it is given.
package lrotest
