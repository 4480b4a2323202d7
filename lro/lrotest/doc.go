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
// (with jq and no shell, or in process with gojq; only commands like
// "tail -n +2 FILE | jq ..." made of plain shell words), and reports every
// requirement at once: pass, FAIL, warn (a SHOULD not followed) or skip,
// with the reasons. A requirement that depends on something that failed is
// skipped, naming it. The command examples/conform runs the kit from a
// command line.
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
// quotes the sentence of the specification each one checks, and
// docs/conformance.md lists them all and how each is checked: 22 at
// Level 1 (basic), 13 at Level 2 (standard) and 4 at Level 3 (full).
// L2.cleanup needs Config.Server.CleanupInterval, L3.fallback.* need
// Config.Fallback, and L3.events, not observable over the protocol, is
// always skipped.
package lrotest
