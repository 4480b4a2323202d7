// Package equiv is a tool, not a test: it records what the module hands an
// agent (tool results, offloaded files, extraction answers) over the
// real-shapes corpus, the memory example server and the proxy, as a
// directory tree, so that two commits can be compared byte for byte with
// diff -r. It drives the module through its public API only, so that the
// same source runs on every commit of the issue-35 restructuring.
//
// Run it with
//
//	go test ./lro/internal/testing/equiv -equiv.out DIR
//
// Without -equiv.out its only test skips: that skip is correct, since there is
// nothing to check, only a tree to write (README.md says how to compare).
package equiv
