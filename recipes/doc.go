// Package recipes generates the jq recipes of an offload descriptor.
//
// The specification requires every offload descriptor to carry exactly
// 10 jq recipes. [Select] returns them for a sample of the records: the
// specification's library for memory records, whose recipes 9 and 10 adapt
// to the [Detail] level of the file, or 10 recipes derived from the fields
// of the records of any other tool. A [Recipe] runs as a shell command
// ([Recipe.Command]) or in process, as lro_extract runs it with
// github.com/itchyny/gojq, from its jq arguments ([Recipe.Args]):
//
//	tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -c --arg namespace _semantic 'select(.namespace|strings|startswith($namespace))'
//
// A filter refers to its parameters as $name and their values travel
// separately (--arg, or a variable binding), so that a value is replaced
// without quoting and cannot change the program; defaults are taken from
// the sample. Every recipe gives the same output under jq 1.6, 1.7.1, 1.8
// and gojq, and a missing, null or oddly typed field never makes one fail:
// docs/recipes.md in the repository describes both libraries and what the
// filters keep to.
//
// All functions are pure and safe for concurrent use.
package recipes
