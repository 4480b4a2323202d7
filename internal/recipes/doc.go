// Package recipes generates the jq recipes of an offload descriptor: the
// engine behind the public package github.com/zircote/lro-go/recipes, whose
// documentation describes what the recipes are and which jq they run under.
//
// A [Recipe] here carries what the offloader and lro_extract need to run it
// in process and to state its conditions without jq: its Filter, its Slurp,
// Raw and Compact flags and its [Param]s (the Param* constants name them).
// [ShellWord] and [ShellQuote] quote the pieces of its shell command.
//
// All functions are pure and safe for concurrent use.
package recipes
