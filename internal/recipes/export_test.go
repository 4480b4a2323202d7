package recipes

import "encoding/json"

// Test hooks for package recipes_test: the two libraries, and the choice
// between them, that users get from Select.

// Memory returns the memory library for the records of sample.
func Memory(detail Detail, sample []json.RawMessage) []Recipe {
	recs, _ := decodeMemories(sample)
	return memoryLibrary(detail, recs)
}

// Generic returns the generic library for the records of sample.
var Generic = genericRecipes

// For returns the recipes of Select.
func For(detail Detail, sample []json.RawMessage) []Recipe {
	rs, _ := Select(detail, sample)
	return rs
}

// IsMemory reports whether Select takes sample for memory records.
func IsMemory(sample []json.RawMessage) bool { return isMemory(decodeMemories(sample)) }
