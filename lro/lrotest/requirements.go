package lrotest

// strength says how strongly the specification asks for a requirement: a
// violated MUST fails, a SHOULD not followed warns.
type strength bool

const (
	must   strength = false
	should strength = true
)

func (s strength) String() string {
	if s == should {
		return "SHOULD"
	}
	return "MUST"
}

// scope says which calls a requirement is checked on.
type scope int

const (
	scopeLarge  scope = iota // every call with the large arguments
	scopeOnce                // once per run
	scopeNever               // not observable over the protocol
	scopeSmall               // the call with the small arguments
	scopeBackup              // the call to the fallback session
)

// requirement is one checked requirement of the specification: its ID
// "L{level}.{subject}", the sentence of the specification it checks (spec)
// and how the kit checks it over the protocol (how).
type requirement struct {
	id        string
	level     int
	strength  strength
	scope     scope
	spec, how string
}

// catalogue lists every requirement, in report order.
var catalogue = []requirement{
	{"L1.inline.small", 1, must, scopeSmall,
		"If estimated_tokens <= threshold_tokens, return results inline as usual.",
		"Calls the tool with the small arguments: the result is neither an error nor an object with offloaded: true."},
	{"L1.offload.large", 1, must, scopeLarge,
		"If estimated_tokens > threshold_tokens, offload to JSONL and return an OffloadResponse.",
		"Calls the tool with the large arguments (and at each detail level): the result is no error and carries a descriptor, a JSON object with offloaded or file_path, in structuredContent or a text content."},
	{"L1.offload.threshold", 1, must, scopeLarge,
		"Results estimated to exceed this threshold are offloaded to JSONL.",
		"The header's estimated_tokens is above the threshold the server is configured with (Config.Server.ThresholdTokens)."},
	{"L1.estimate", 1, must, scopeLarge,
		"Token estimation MUST use the same heuristic defined in Prompt Integration: tokens ~ characters / 4.",
		"The header's estimated_tokens is within a factor of two of the record lines' characters / 4 (CJK runes may count one token each)."},
	{"L1.descriptor.offloaded", 1, must, scopeLarge,
		"offloaded: Indicates this is an offloaded result.",
		"The descriptor's offloaded field is the JSON value true."},
	{"L1.descriptor.file_path", 1, must, scopeLarge,
		"file_path: Absolute path to the JSONL file.",
		"file_path is a non-empty absolute path naming a regular file the kit can read (client and server share the file system), or, when the descriptor carries a handle (a server that keeps its results in a store), where a client that downloads the result keeps it: the kit then fetches the file with resources/read (see L1.descriptor.handle)."},
	{"L1.descriptor.handle", 1, must, scopeLarge,
		"Offer the result as an MCP resource_link too (served by resources/read), so clients that fetch resources can take it; across stateless calls, return an explicit handle with a bounded lifetime, and answer an unknown or expired handle with an error that says so.",
		"When the descriptor has a handle: it is a non-empty string; the result holds a resource_link whose uri is lro://results/{handle}, with mimeType application/jsonl (and size, when given, the file's); resources/read of that uri returns one content of that uri and type whose bytes are the file (the same as file_path's when file_path is on this machine); resources/read of the handle with one character changed is an error saying the resource is unknown, not found or expired. Skipped for descriptors without a handle."},
	{"L1.descriptor.output_schema", 1, must, scopeLarge,
		"MCP: a tool that declares an outputSchema MUST return structured results that conform to it.",
		"When tools/list gives the tool an outputSchema, the offloaded result has structuredContent valid under it (strict clients reject it otherwise)."},
	{"L1.no_cursor", 1, must, scopeLarge,
		"A result set MUST NOT simultaneously be offloaded to JSONL and have an active pagination cursor.",
		"No key of the offloaded result (structuredContent, JSON text contents, _meta; line_schema excepted) names a cursor: *cursor*, next_offset, next_page, next_page_token, page_token, next_token."},
	{"L1.file.name", 1, must, scopeLarge,
		"Files MUST be written to a configurable output directory using the naming convention {output_dir}/atlatl-{operation}-{ulid}.jsonl.",
		"The file's base name is {prefix}-{operation}-{ulid}.jsonl with a valid ULID whose time is the time of the call, or, when the descriptor has a handle, {prefix}-{operation}-{ulid}-{random}.jsonl with at least 32 lower-case hex digits (128 bits) of random; its folder is Config.Server.ClientDir or else OutputDir when set."},
	{"L1.operation", 1, must, scopeLarge,
		"operation: The operation that produced these results (header, summary and {operation} in the file name).",
		"The header's operation, the summary's operation and the file name's {operation} are equal, and equal Config.Server.Operation when set."},
	{"L1.header.type", 1, must, scopeLarge,
		"The first line is a metadata header conforming to OffloadHeader; type is always \"lro_header\".",
		"Line 1 of the file is a JSON object whose type is \"lro_header\"."},
	{"L1.header.fields", 1, must, scopeLarge,
		"OffloadHeader: type, operation, query, count, schema_version, timestamp, estimated_tokens, detail.",
		"The header has all eight fields with their types: strings, query a string or null, count and estimated_tokens non-negative integers."},
	{"L1.header.timestamp", 1, must, scopeLarge,
		"timestamp: ISO 8601 timestamp of when the file was written.",
		"timestamp is RFC 3339 (an ISO 8601 profile) with a time zone, and is the time of the call."},
	{"L1.header.count", 1, must, scopeLarge,
		"count: Total number of memory lines following the header.",
		"The header's count equals the number of lines after line 1."},
	{"L1.header.query", 1, must, scopeLarge,
		"query: The query string (if applicable).",
		"When the call has a string query argument (Config.Server.QueryArgument), the header's query equals it."},
	{"L1.detail", 1, must, scopeLarge,
		"The JSONL file MUST serialize memories at the detail level specified in the original tool call; if none is specified, the tool's default applies.",
		"The header's and the summary's detail equal the detail argument of the call (or Config.Server.DefaultDetail when the call has none, or each other when neither is known)."},
	{"L1.records.jsonl", 1, must, scopeLarge,
		"Offloaded results are written as line-delimited JSON (JSONL): a header line followed by one object per line.",
		"Every line after the header is exactly one JSON value; no line is empty."},
	{"L1.summary.fields", 1, must, scopeLarge,
		"Level 1: the descriptor contains file reference and summary statistics (OffloadSummary).",
		"summary is an object with count and estimated_tokens (non-negative integers), operation and detail (strings), top_namespaces (at most 5 distinct strings) and score_range (null or [min, max] with min <= max)."},
	{"L1.summary.count", 1, must, scopeLarge,
		"count: Total number of memories in the file.",
		"summary.count equals the number of record lines in the file."},
	{"L1.summary.tokens", 1, must, scopeLarge,
		"estimated_tokens: Estimated total tokens saved by offloading.",
		"summary.estimated_tokens is positive and at most the header's estimate of the whole result set."},
	{"L1.summary.top_namespaces", 1, must, scopeLarge,
		"top_namespaces: Top namespaces represented (up to 5).",
		"top_namespaces are min(5, distinct) namespaces of the records, most frequent first; no namespace left out is more frequent than one listed."},
	{"L2.descriptor.fields", 2, must, scopeLarge,
		"Implementations MUST include all fields per the struct definition.",
		"The descriptor has line_schema, jq_recipes and guidance (Level 1 checks offloaded, file_path and summary)."},
	{"L2.line_schema", 2, must, scopeLarge,
		"line_schema: JSON Schema describing each memory line in the JSONL file.",
		"line_schema is a JSON Schema object that resolves, and every record line of the file is valid under it."},
	{"L2.recipes.count", 2, must, scopeLarge,
		"Implementations MUST include exactly 10 recipes in every OffloadResponse.",
		"jq_recipes is an array of exactly 10 elements."},
	{"L2.recipes.fields", 2, must, scopeLarge,
		"JqRecipe: description (what this recipe does) and command (the jq command to execute).",
		"Every recipe is an object with a non-empty string description and command."},
	{"L2.recipes.file", 2, must, scopeLarge,
		"The {file} placeholder MUST be replaced with the actual file path from OffloadResponse.file_path.",
		"No command contains {file}, and the file each command reads is exactly file_path (as a shell word, quoted or not)."},
	{"L2.recipes.skip_header", 2, must, scopeLarge,
		"All recipes use tail -n +2 to skip the header line.",
		"Each command feeds jq from tail -n +2 of the file."},
	{"L2.recipes.run", 2, must, scopeLarge,
		"Ready-to-use jq recipes for common extraction patterns (recipes that run).",
		"Each command, which must be tail -n +2 FILE | jq ... (or cat FILE | jq ..., jq ... FILE) of plain shell words, exits 0 with nothing on standard error, run with sh and jq when jq is installed, else in process with gojq (the report says which)."},
	{"L2.recipes.no_score", 2, must, scopeLarge,
		"Recipes MUST NOT reference .score (which is a SearchHit field, never serialized into JSONL).",
		"No command contains .score, and no jq filter indexes a field named score."},
	{"L2.recipes.fields_exist", 2, must, scopeLarge,
		"Recipes MUST only reference fields that exist at the given detail level.",
		"Every field path a recipe's jq filter indexes from a record (.a.b, {a}) exists in at least one record of the file; keys the filter builds itself are exempt."},
	{"L2.recipes.detail", 2, must, scopeLarge,
		"Recipes 1-8 use only Light-level fields; 9-10 adapt to the detail level. At Full detail, confidence MUST be accessed via .provenance.confidence; at Medium detail, via the flattened .confidence field.",
		"For memory records (id, title, namespace, memory_type): recipes 1-8 index only Light fields; at light, 9 uses namespace and 10 memory_type; at medium, 9 sorts by .confidence and 10 searches .content; at full, 9 sorts by .provenance.confidence and 10 searches .content; recipe 9's output is every record, by confidence descending."},
	{"L2.guidance", 2, must, scopeLarge,
		"The guidance field MUST contain a brief instruction block for the AI assistant.",
		"guidance is a non-empty string."},
	{"L2.guidance.template", 2, should, scopeLarge,
		"Implementations SHOULD use the template (count, tokens, path, detail level); the guidance prompt SHOULD note the active detail level.",
		"guidance names the record count, the detail level and the file path (or, when the descriptor has a handle, the path or the handle)."},
	{"L2.cleanup", 2, must, scopeOnce,
		"Offloaded JSONL files are ephemeral and MUST be cleaned up after their TTL expires.",
		"Needs Config.Server.CleanupInterval: the kit plants a file named by the convention whose ULID time (and mtime) is older than the TTL, and an unrelated file; the planted file must be deleted within Config.Server.CleanupInterval, while the unrelated file and this run's fresh offloaded files stay. Skipped for results kept in a store the kit fetched them from, unless Config.Server.OutputDir names the store's folder."},
	{"L3.fallback.succeeds", 3, must, scopeBackup,
		"Implementations MUST NOT fail the entire operation due to an LRO write failure.",
		"Needs Config.Fallback, a server whose output folder cannot be written: the large call returns no error, no isError and no descriptor."},
	{"L3.fallback.warning", 3, must, scopeBackup,
		"Include a warning in the response indicating that LRO failed and results are truncated.",
		"A text content of that result says that something failed (fail, error, could not, unable) and that the result is truncated (truncat, partial, omitted, showing N of M)."},
	{"L3.fallback.truncated", 3, must, scopeBackup,
		"Truncate the result set to fit within threshold_tokens.",
		"The result's largest array of objects holds fewer records than the offloaded file of the same call, and their characters / 4 fit within the threshold (25% slack for the estimate)."},
	{"L3.events", 3, must, scopeNever,
		"Emit OffloadWriteFailed / OffloadFileExpired events for observability.",
		"Not observable over MCP: events are server-internal. Always skipped; check them in-process (see lro's TestConformanceLevel3)."},
}
