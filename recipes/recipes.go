// Package recipes generates the jq recipes of an offload descriptor.
package recipes

import "encoding/json"

// Count is the number of recipes in every library: exactly 10.
const Count = 10

// Detail is the detail level of memory records.
type Detail string

// The detail levels of the specification.
const (
	Light  Detail = "light"
	Medium Detail = "medium"
	Full   Detail = "full"
)

// ParseDetail parses a detail level name.
func ParseDetail(s string) (Detail, error) { panic("TODO") }

// Param is a named jq variable of a recipe.
type Param struct {
	Name        string // jq variable name, without the '$'
	Value       string // value used in Command
	Description string // what the parameter means
}

// Recipe is one jq recipe.
type Recipe struct {
	Number      int     // 1 to 10
	Description string  // what it does
	Filter      string  // jq program, reading one record per input
	Slurp       bool    // run with -s
	Raw         bool    // run with -r
	Params      []Param // jq variables the Filter uses
}

// Command renders the shell command for file.
func (r Recipe) Command(file string) string { panic("TODO") }

// Memory returns the specification's library for memory records.
func Memory(detail Detail, sample []json.RawMessage) []Recipe { panic("TODO") }

// Generic returns 10 recipes derived from the fields of the sample records.
func Generic(sample []json.RawMessage) []Recipe { panic("TODO") }

// IsMemory reports whether the sample records look like memory records.
func IsMemory(sample []json.RawMessage) bool { panic("TODO") }

// For returns Memory(detail, sample) when IsMemory(sample), else Generic(sample).
func For(detail Detail, sample []json.RawMessage) []Recipe { panic("TODO") }

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string { panic("TODO") }
