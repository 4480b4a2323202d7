package lrotest

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

// catalogue lists every requirement, in report order.
var catalogue = []requirement{
	{"L1.inline.small", 1, must, scopeSmall, 0, checkInlineSmall,
		"If estimated_tokens <= threshold_tokens, return results inline as usual."},
	{"L1.offload.large", 1, must, scopeLarge, 0, checkOffloadLarge,
		"If estimated_tokens > threshold_tokens, offload to JSONL and return an OffloadResponse."},
	{"L1.offload.threshold", 1, must, scopeLarge, needFields, checkThreshold,
		"Results estimated to exceed this threshold are offloaded to JSONL."},
	{"L1.estimate", 1, must, scopeLarge, needFields, checkEstimate,
		"Token estimation MUST use the same heuristic defined in Prompt Integration: tokens ~ characters / 4."},
	{"L1.descriptor.offloaded", 1, must, scopeLarge, needCall, checkOffloadedFlag,
		"offloaded: Indicates this is an offloaded result."},
	{"L1.descriptor.file_path", 1, must, scopeLarge, needCall, checkFilePath,
		"file_path: Absolute path to the JSONL file."},
	{idHandle, 1, must, scopeLarge, needCall, checkHandle,
		"Offer the result as an MCP resource_link too (served by resources/read), so clients that fetch resources can take it; across stateless calls, return an explicit handle with a bounded lifetime, and answer an unknown or expired handle with an error that says so."},
	{"L1.descriptor.output_schema", 1, must, scopeLarge, needCall, checkOutputSchema,
		"MCP: a tool that declares an outputSchema MUST return structured results that conform to it."},
	{"L1.no_cursor", 1, must, scopeLarge, needCall, checkNoCursor,
		"A result set MUST NOT simultaneously be offloaded to JSONL and have an active pagination cursor."},
	{"L1.file.name", 1, must, scopeLarge, needCall, checkFileName,
		"Files MUST be written to a configurable output directory using the naming convention {output_dir}/atlatl-{operation}-{ulid}.jsonl."},
	{"L1.operation", 1, must, scopeLarge, needCall, checkOperation,
		"operation: The operation that produced these results (header, summary and {operation} in the file name)."},
	{"L1.header.type", 1, must, scopeLarge, needFile, checkHeaderType,
		"The first line is a metadata header conforming to OffloadHeader; type is always \"lro_header\"."},
	{"L1.header.fields", 1, must, scopeLarge, needHeader, checkHeaderFields,
		"OffloadHeader: type, operation, query, count, schema_version, timestamp, estimated_tokens, detail."},
	{"L1.header.timestamp", 1, must, scopeLarge, needFields, checkTimestamp,
		"timestamp: ISO 8601 timestamp of when the file was written."},
	{"L1.header.count", 1, must, scopeLarge, needFields, checkHeaderCount,
		"count: Total number of memory lines following the header."},
	{"L1.header.query", 1, must, scopeLarge, needFields, checkQuery,
		"query: The query string (if applicable)."},
	{"L1.detail", 1, must, scopeLarge, needCall, checkDetail,
		"The JSONL file MUST serialize memories at the detail level specified in the original tool call; if none is specified, the tool's default applies."},
	{"L1.records.jsonl", 1, must, scopeLarge, needFile, checkRecordLines,
		"Offloaded results are written as line-delimited JSON (JSONL): a header line followed by one object per line."},
	{"L1.summary.fields", 1, must, scopeLarge, needCall, checkSummaryFields,
		"Level 1: the descriptor contains file reference and summary statistics (OffloadSummary)."},
	{"L1.summary.count", 1, must, scopeLarge, needFile, checkSummaryCount,
		"count: Total number of memories in the file."},
	{"L1.summary.tokens", 1, must, scopeLarge, needFields, checkSummaryTokens,
		"estimated_tokens: Estimated total tokens saved by offloading."},
	{"L1.summary.top_namespaces", 1, must, scopeLarge, needFile, checkTopNamespaces,
		"top_namespaces: Top namespaces represented (up to 5)."},
	{"L2.descriptor.fields", 2, must, scopeLarge, needCall, checkLevel2Fields,
		"Implementations MUST include all fields per the struct definition."},
	{"L2.line_schema", 2, must, scopeLarge, needCall, checkLineSchema,
		"line_schema: JSON Schema describing each memory line in the JSONL file."},
	{"L2.recipes.count", 2, must, scopeLarge, needCall, checkRecipeCount,
		"Implementations MUST include exactly 10 recipes in every OffloadResponse."},
	{"L2.recipes.fields", 2, must, scopeLarge, needRecipes, checkRecipeFields,
		"JqRecipe: description (what this recipe does) and command (the jq command to execute)."},
	{"L2.recipes.file", 2, must, scopeLarge, needRecipes | needFile, checkRecipeFile,
		"The {file} placeholder MUST be replaced with the actual file path from OffloadResponse.file_path."},
	{"L2.recipes.skip_header", 2, must, scopeLarge, needRecipes, checkSkipHeader,
		"All recipes use tail -n +2 to skip the header line."},
	{"L2.recipes.run", 2, must, scopeLarge, needRecipes | needFile, checkRecipeRuns,
		"Ready-to-use jq recipes for common extraction patterns (recipes that run)."},
	{"L2.recipes.no_score", 2, must, scopeLarge, needRecipes, checkNoScore,
		"Recipes MUST NOT reference .score (which is a SearchHit field, never serialized into JSONL)."},
	{"L2.recipes.fields_exist", 2, must, scopeLarge, needRecipes | needFile, checkFieldsExist,
		"Recipes MUST only reference fields that exist at the given detail level."},
	{"L2.recipes.detail", 2, must, scopeLarge, needRecipes | needFile, checkDetailRecipes,
		"Recipes 1-8 use only Light-level fields; 9-10 adapt to the detail level. At Full detail, confidence MUST be accessed via .provenance.confidence; at Medium detail, via the flattened .confidence field."},
	{"L2.guidance", 2, must, scopeLarge, needCall, checkGuidance,
		"The guidance field MUST contain a brief instruction block for the AI assistant."},
	{"L2.guidance.template", 2, should, scopeLarge, needCall, checkGuidanceTemplate,
		"Implementations SHOULD use the template (count, tokens, path, detail level); the guidance prompt SHOULD note the active detail level."},
	{"L2.cleanup", 2, must, scopeOnce, 0, checkCleanup,
		"Offloaded JSONL files are ephemeral and MUST be cleaned up after their TTL expires."},
	{"L3.fallback.succeeds", 3, must, scopeBackup, 0, checkFallbackSucceeds,
		"Implementations MUST NOT fail the entire operation due to an LRO write failure."},
	{"L3.fallback.warning", 3, must, scopeBackup, needCall, checkFallbackWarning,
		"Include a warning in the response indicating that LRO failed and results are truncated."},
	{"L3.fallback.truncated", 3, must, scopeBackup, needCall, checkFallbackTruncated,
		"Truncate the result set to fit within threshold_tokens."},
	{"L3.events", 3, must, scopeOnce, 0, checkEvents,
		"Emit OffloadWriteFailed / OffloadFileExpired events for observability."},
}
