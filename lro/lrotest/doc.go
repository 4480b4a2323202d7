// Package lrotest checks that a live MCP server implements Large Result
// Offloading (LRO) as the specification requires, in the spirit of
// testing/slogtest: it talks to the server only over the protocol (and the
// file system it shares with the server, the premise of LRO), so it tests
// any implementation, in any language, over any transport.
//
// Give [Run] (in a test) or [Check] a connected [*mcp.ClientSession] and a
// [Config] naming a tool, arguments whose result is offloaded and arguments
// whose result is inline. The kit calls the tool, reads the file each
// descriptor points to (or fetches it with resources/read of its handle),
// runs every jq recipe (with jq and no shell, or in process with gojq), and
// reports every requirement at once: pass, FAIL, warn (a SHOULD not
// followed) or skip, with the reasons.
//
//	func TestLRO(t *testing.T) {
//		cs := connect(t) // a session to the server under test
//		lrotest.Run(t, cs, &lrotest.Config{
//			Tool:  "recall_memories",
//			Large: map[string]any{"query": "semantic", "limit": 300},
//			Small: map[string]any{"query": "redis", "limit": 3},
//		})
//	}
//
// docs/conformance.md lists the requirements, 39 over three levels, and
// how each is checked; the command examples/conform runs the kit from a
// command line.
package lrotest
