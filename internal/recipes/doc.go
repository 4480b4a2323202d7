// Package recipes generates the jq recipes of an offload descriptor: the
// engine of the public package github.com/zircote/lro-go/recipes, whose
// documentation describes them. Its [Recipe] also carries what the
// offloader and lro_extract need to run it in process: its Filter, flags
// and [Param]s. All functions are pure and safe for concurrent use.
package recipes
