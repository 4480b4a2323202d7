// Package lrotest checks that a live MCP server implements Large Result
// Offloading (LRO) as the specification requires, in the spirit of
// testing/slogtest: it talks to the server only over the protocol (and the
// file system it shares with the server, the premise of LRO), so it tests
// any implementation, in any language, over any transport.
//
// Give [Run] (in a test) or [Check] a connected [*mcp.ClientSession] and a
// [Config] naming a tool, arguments whose result is offloaded and arguments
// whose result is inline. The kit calls the tool, reads the file each
// descriptor points to (fetching it with resources/read when the descriptor
// has a handle and the file is not on this machine), runs every jq recipe
// (with jq, or in process with gojq; only commands like "tail -n +2 FILE |
// jq ..." made of plain shell words ever run), and reports every
// requirement at once: pass, FAIL, warn (a SHOULD not followed) or skip,
// with the reasons.
// A requirement that depends on something that failed is skipped, naming
// it. The command examples/conform runs the kit from a command line.
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
// Each requirement has an ID "L{level}.{subject}"; the table Check writes
// quotes the sentence of the specification each one checks:
//
// Level 1 (basic): L1.inline.small, L1.offload.large, L1.offload.threshold,
// L1.estimate, L1.descriptor.offloaded, L1.descriptor.file_path,
// L1.descriptor.handle, L1.descriptor.output_schema, L1.no_cursor,
// L1.file.name, L1.operation, L1.header.type, L1.header.fields,
// L1.header.timestamp, L1.header.count, L1.header.query, L1.detail,
// L1.records.jsonl, L1.summary.fields, L1.summary.count, L1.summary.tokens,
// L1.summary.top_namespaces.
//
// Level 2 (standard): L2.descriptor.fields, L2.line_schema,
// L2.recipes.count, L2.recipes.fields, L2.recipes.file,
// L2.recipes.skip_header, L2.recipes.run, L2.recipes.no_score,
// L2.recipes.fields_exist, L2.recipes.detail, L2.guidance,
// L2.guidance.template (SHOULD), L2.cleanup.
//
// Level 3 (full): L3.fallback.succeeds, L3.fallback.warning,
// L3.fallback.truncated, L3.events.
//
// L2.cleanup needs Config.Server.CleanupInterval, L3.fallback.* need
// Config.Fallback, and L3.events, not observable over the protocol, is
// always skipped. docs/conformance.md tells how each is checked.
package lrotest
