// Package recipes generates the jq recipes of an offload descriptor.
//
// The specification requires every offload descriptor to carry exactly
// 10 jq recipes. [Select] returns them for a sample of the records: the
// specification's library for memory records, whose recipes 9 and 10 adapt
// to the [Detail] level of the file, or 10 recipes derived from the fields
// of the records of any other tool.
//
// A [Recipe] is structured data, not a command line, so that the same recipe
// runs in two places with the same result: rendered by [Recipe.Command] as a
// shell command for agents that have a shell, or run in process, as the
// lro_extract tool does with github.com/itchyny/gojq, with the arguments of
// [Recipe.Args]; [Recipe.Label] names it in a few words and [Recipe.Field]
// the record field a parameter is matched against. [Projection] gives the
// fields of the records that the recipes list them by, for a preview. For
// example, recipe 2 of the memory library renders as
//
//	tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -c --arg namespace _semantic 'select(.namespace|strings|startswith($namespace))'
//
// Parameter values are never spliced into the jq program text: a filter
// refers to $namespace and the value travels separately (--arg in the shell
// command, a variable binding in process), so a caller can replace a value
// without any quoting, and a value cannot change the program. Defaults are
// taken from the sample, so that every recipe returns something on the file
// it was made for.
//
// Every recipe gives the same output under jq 1.6, 1.7.1 and 1.8 and gojq
// (the engine of lro_extract), and a missing, null or oddly typed field
// never makes one fail: docs/recipes.md in the repository lists what the
// filters keep to.
//
// All functions are pure and safe for concurrent use. The zero [Recipe] is
// not useful; recipes are made by [Select].
package recipes
