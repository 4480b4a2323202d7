package extract

// Test hooks: the names of the tools and the defaults of Options, which
// users find in the package documentation and on the fields.
const (
	ToolExtract = toolExtract
	ToolRead    = toolRead
	ToolSearch  = toolSearch

	DefaultTimeout        = defaultTimeout
	DefaultMaxInputBytes  = defaultMaxInputBytes
	DefaultMaxRecordBytes = defaultMaxRecordBytes
	DefaultMaxOutputBytes = defaultMaxOutputBytes
	DefaultMaxResults     = defaultMaxOutputBytes / resultCost
	DefaultMaxMemoryBytes = defaultMaxMemoryBytes
	DefaultWorkers        = defaultWorkers
)
