package lrotest

import "slices"

// strength says how strongly the specification asks for a requirement: a
// violated MUST fails, a SHOULD not followed warns.
type strength bool

const (
	must   strength = false
	should strength = true
)

func (s strength) String() string { return map[strength]string{must: "MUST", should: "SHOULD"}[s] }

// scope says which calls a requirement is checked on.
type scope int

const (
	scopeLarge  scope = iota // every call with the large arguments
	scopeSmall               // the call with the small arguments
	scopeBackup              // the call to the fallback session
	scopeOnce                // once per run, after the calls
)

// need says what of a call a check reads: when it is missing, the check is
// skipped, naming the requirement that failed to give it (see view.blocked).
type need int

const (
	needCall    need = 1 << iota // what the call must give: a descriptor, or for the fallback an inline result
	needFile                     // the offloaded file
	needHeader                   // the file's header, an object
	needFields                   // the header, with the fields of OffloadHeader
	needRecipes                  // the descriptor's jq_recipes, an array
)

// requirement is one checked requirement of the specification: its ID
// "L{level}.{subject}" and the sentence of the specification it checks
// (docs/conformance.md says how the kit checks each).
type requirement struct {
	id       string
	level    int
	strength strength
	scope    scope
	need     need
	check    func(v *view)
	spec     string
}

var catalogue = slices.Concat(level1, level2, level3)
