package recipes

import (
	"encoding/json"
	"strings"

	"github.com/zircote/lro-go/internal/shell"
	"github.com/zircote/lro-go/internal/spec"
)

// Test hooks for package recipes_test.

// Count is the number of recipes of every library.
const Count = spec.RecipeCount

// ShellQuote is the quoting of Command.
var ShellQuote = shell.Quote

// Data is a Recipe with every field readable, as the tests read recipes.
type Data struct {
	Number      int
	Description string
	Label       string
	Filter      string
	Slurp       bool
	Raw         bool
	Params      []Param
	Compact     bool
}

// Param is a param with every field readable.
type Param struct {
	Name  string
	Value string
	Field string
}

// DataOf returns rs as Data.
func DataOf(rs []Recipe) []Data {
	ds := make([]Data, len(rs))
	for i, r := range rs {
		ds[i] = Data{Number: i + 1, Description: r.Description, Label: r.Label, Filter: r.filter,
			Slurp: strings.Contains(r.options, "s"), Raw: strings.Contains(r.options, "r"), Compact: strings.Contains(r.options, "c")}
		for _, p := range r.params {
			ds[i].Params = append(ds[i].Params, Param{p.name, p.value, p.field})
		}
	}
	return ds
}

// recipe returns d as a Recipe.
func (d Data) recipe() Recipe {
	r := Recipe{Description: d.Description, Label: d.Label, filter: d.Filter}
	for i, on := range [...]bool{d.Slurp, d.Raw, d.Compact} {
		if on {
			r.options += "src"[i : i+1]
		}
	}
	for _, p := range d.Params {
		r.params = append(r.params, param{p.Name, p.Value, p.Field})
	}
	return r
}

// Args is Recipe.Args.
func (d Data) Args() []string { return d.recipe().Args() }

// Command is Recipe.Command.
func (d Data) Command(file string) string { return d.recipe().Command(file) }

// Memory returns the memory library for the records of sample.
func Memory(detail Detail, sample []json.RawMessage) []Data {
	return DataOf(memoryLibrary(detail, readSample(sample)))
}

// Generic returns the generic library for the records of sample.
func Generic(sample []json.RawMessage) []Data {
	rs, _ := genericOf(analyze(values(readSample(sample))))
	return DataOf(rs)
}

// For returns the recipes of Select.
func For(detail Detail, sample []json.RawMessage) []Data {
	rs, _ := Select(detail, sample)
	return DataOf(rs)
}

// IsMemory reports whether Select takes sample for memory records.
func IsMemory(sample []json.RawMessage) bool { return isMemory(readSample(sample)) }
