package lro

// Test hooks for package lro_test.

// OffloadVsWrite runs an offload benchmark against marshal-and-write (see
// offloadVsWrite).
var OffloadVsWrite = offloadVsWrite

// OffloadRequest is the call of the offload benchmarks.
var OffloadRequest = offloadRequest

// BenchMemory is the record of the offload benchmarks.
type BenchMemory = benchMemory

// BenchMemories returns n records of the offload benchmarks.
var BenchMemories = benchMemories

// The defaults of Options, as their documentation gives them.
const (
	DefaultThresholdTokens = defaultThresholdTokens
	DefaultSchemaVersion   = defaultSchemaVersion
)

// Sources say where LoadOptionsFrom reads configuration: a file, and an
// environment of the test's.
type Sources = sources

// LoadOptionsFrom is LoadOptions with the environment of src.
func LoadOptionsFrom(explicit *Options, src *Sources) (*Options, error) {
	return loadOptions(explicit, src)
}
