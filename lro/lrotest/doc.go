// Package lrotest checks that a live MCP server implements Large Result
// Offloading (LRO) as the specification requires, in the spirit of
// testing/slogtest: it talks to the server only over the protocol, so it
// tests any implementation, in any language, over any transport.
//
// Give [Run] (in a test) or [Check] a connected [*mcp.ClientSession] and a
// [Config] naming a tool, arguments whose result set is large (above the
// server's threshold) and arguments whose result set is small. The kit
// calls the tool, reads the offloaded JSONL file the descriptor points to
// (client and server share the file system: that is the premise of LRO),
// runs every jq recipe of the descriptor, and reports every requirement at
// once: pass, FAIL, warn (a SHOULD not followed) or skip, with the reasons.
// A requirement that depends on something that failed is skipped, naming
// it. The command examples/conform runs the kit against a server started
// from a command line or reached at a URL.
//
//	func TestLRO(t *testing.T) {
//		cs := connect(t) // a session to the server under test
//		lrotest.Run(t, cs, &lrotest.Config{
//			Tool:    "recall_memories",
//			Large:   map[string]any{"query": "semantic", "limit": 300},
//			Small:   map[string]any{"query": "redis", "limit": 3},
//			Details: []string{"light", "medium", "full"},
//		})
//	}
//
// # Requirements
//
// Each requirement has an ID "L{level}.{subject}"; the table Check writes
// quotes the sentence of the specification each one checks. By level:
//
// Level 1 (basic: threshold detection, JSONL output, file reference and
// summary): L1.inline.small, L1.offload.large, L1.offload.threshold,
// L1.estimate, L1.descriptor.offloaded, L1.descriptor.file_path,
// L1.descriptor.handle, L1.descriptor.output_schema, L1.no_cursor,
// L1.file.name, L1.operation, L1.header.type, L1.header.fields,
// L1.header.timestamp, L1.header.count, L1.header.query, L1.detail,
// L1.records.jsonl, L1.summary.fields, L1.summary.count, L1.summary.tokens,
// L1.summary.top_namespaces.
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
// A server that keeps its results in a store (lro.Options.Store with
// package lro/extract) gives each descriptor a handle and follows it with an
// MCP resource_link to lro://results/{handle}; file_path is then where a
// client that downloads the result keeps it. When file_path is not on this
// machine, the kit fetches the file with resources/read of that link into a
// private temporary folder (removed before Check returns) and checks that
// copy as a local file; a recipe that reads file_path runs on the copy.
// L1.descriptor.handle checks the link, the read, and that a handle the
// server never gave is an error saying so.
//
// # Recipes that run
//
// The commands come from the server under test, so the kit runs only
// commands of the form the specification gives, "tail -n +2 FILE | jq
// [options] FILTER" (or "cat FILE | jq ...", or "jq ... FILTER FILE"), made
// of plain shell words (read with mvdan.cc/sh/v3/syntax: quotes and
// escapes, no expansion, redirection or other command). Any other command
// fails L2.recipes.run unrun. Each runs with sh -c and the jq installed on
// the machine, and must exit 0 with nothing on standard error; without jq
// (or with [Config].InProcess) the kit runs the filter in process with
// github.com/itchyny/gojq, mirroring jq's -s, -r, -j, -c, -n, -e, --arg and
// --argjson. The field paths a filter indexes are read from its jq syntax
// tree: each must exist in at least one record, and for memory records
// (id, title, namespace, memory_type) recipes 9 and 10 must follow the
// specification's detail table.
//
// # What the protocol cannot show
//
// Custodial cleanup (L2.cleanup) needs Config.Server.CleanupInterval: the
// kit plants in the output folder a file named by the convention whose ULID
// time and modification time lie the TTL plus one minute in the past, plus
// an unrelated file, and waits that long for the server to delete the
// first, and only it: this run's files must survive. The write-failure
// fallback (L3.fallback.*) needs [Config].Fallback, a session to a second
// instance of the server whose output folder cannot be written. Events
// (L3.events) are emitted inside the server and always skipped; lro's
// TestConformanceLevel3 checks them in process.
package lrotest
