// Package recipes generates the jq recipes of an offload descriptor.
//
// The specification requires every offload descriptor to carry exactly
// 10 jq recipes. [Select] returns them for a sample of the
// records: the specification's library for memory records, whose recipes 9
// and 10 adapt to the [Detail] level of the file, or 10 recipes derived from
// the fields of the records of any other tool.
//
// # One recipe, two ways to run it
//
// A [Recipe] is structured data, not a command line, so that the same recipe
// runs in two places with the same result:
//
//   - rendered by [Recipe.Command] as a shell command for agents that have a
//     shell;
//   - run in-process, as the lro_extract tool does, by a jq implementation
//     such as github.com/itchyny/gojq, with the arguments of [Recipe.Args]:
//     the records after the header line are the inputs (collected into one
//     array with -s), each --arg name value is bound as the jq variable
//     $name ($namespace, $keyword, ...), and string results are printed raw
//     with -r.
//
// For example, recipe 2 of the memory library renders as
//
//	tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -c --arg namespace _semantic 'select(.namespace | strings | startswith($namespace))'
//
// Parameter values are never spliced into the jq program text: a filter
// refers to $keyword and the value travels separately (--arg keyword 'value'
// in the shell command, a variable binding in process). A caller can therefore
// replace a value without any quoting, and a value cannot change the program.
// Every piece of a shell command that comes from data (the file path, the
// parameter values and the filter itself) is one shell word: left as it is
// when it is a plain word no shell changes, in single quotes otherwise.
//
// Default parameter values are taken from a sample of the records, so that
// every recipe returns something on the file it was made for: the most common
// namespace prefix, tag and memory type, and a word that occurs in some but
// not all titles. Keywords are made of ASCII letters only, so they mean the
// same thing as a regular expression in jq (Oniguruma) and in gojq (RE2).
//
// # Every jq
//
// Every recipe gives the same output under jq 1.6 (Debian bookworm), jq
// 1.7.1, jq 1.8 and gojq (the engine of lro_extract); the tests run them
// all on the same files (jq 1.7.1 and 1.8.2 as WebAssembly, npm jq-wasm:
// see internal/jqengines). The filters keep to what the four share:
//
//   - paths .a, .["a b"], .[n], .[m:n], [] and []?; objects, strings,
//     numbers, arrays; select, map, any(gen; cond), has, keys, length, add,
//     min, max, unique, group_by, sort_by (stable in all four), reverse,
//     tostring on strings, booleans and integers of up to 15 digits,
//     tonumber on the canonical text of a number, ascii_downcase,
//     startswith and ltrimstr on strings only, @tsv on rows of strings,
//     string interpolation, if-then-else-end, //, reduce and path(..);
//   - regular expressions with test, match and scan whose patterns mean
//     the same in Oniguruma (jq) and RE2 (gojq): literals, classes of ASCII
//     characters, alternation, groups (?:...), ^ and $, repetition, and the
//     flag "i" on ASCII keywords. Not \b, \w or \s, which Oniguruma applies
//     to all of Unicode and RE2 to ASCII only (a log level is found between
//     characters that are not capitals instead), nor look-around or
//     backreferences, which RE2 lacks; no flag but "i";
//   - the options -s, -r, -c and --arg (parameters are strings; a number is
//     read with tonumber).
//
// Not used, because one of them lacks it or differs: limit(0; f) (one
// output in 1.6), pick, abs, .a.[0] and if without else (1.7 on), trim
// (1.8 on), ltrimstr and startswith on other values (an error in 1.8 and
// gojq), tonumber on " 12" (likewise), keys_unsorted (gojq sorts),
// [last(empty)] ([null] before 1.8), tostring of non-integers (1.0 prints
// differently), $__loc__ and input_line_number (not in gojq).
//
// # Robustness
//
// A missing or null field never makes a recipe fail: string tests go through
// strings and iteration uses ?. The generic recipes also tolerate records of
// any shape (a string among objects, a field of an unexpected type): they
// guard object access with objects and check types before comparing numbers.
// No recipe references .score, which is not part of a memory record.
//
// All functions are pure and safe for concurrent use. The zero [Recipe] is
// not useful; recipes are made by [Select].
package recipes
