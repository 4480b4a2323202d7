package lrotest

import "fmt"

// Level is a conformance level of the specification.
type Level int

// The specification's conformance levels. Each includes the ones below it.
const (
	// Level1 (Basic): threshold detection and JSONL output; the descriptor
	// holds the file reference and summary statistics.
	Level1 Level = 1
	// Level2 (Standard): Level 1, the line schema, the standard jq recipe
	// library and custodial cleanup.
	Level2 Level = 2
	// Level3 (Full): Level 2, error fallback to inline truncation and
	// observability events.
	Level3 Level = 3
)

// String returns "1 (basic)", "2 (standard)" or "3 (full)".
func (l Level) String() string {
	switch l {
	case Level1:
		return "1 (basic)"
	case Level2:
		return "2 (standard)"
	case Level3:
		return "3 (full)"
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Strength says how strongly the specification asks for a requirement.
type Strength int

const (
	// Must is an absolute requirement (MUST, MUST NOT): a violation fails.
	Must Strength = iota
	// Should is a recommendation (SHOULD): a violation is reported as
	// [Warn] and does not fail.
	Should
)

// String returns "MUST" or "SHOULD".
func (s Strength) String() string {
	if s == Should {
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

// Requirement is one checked requirement of the specification.
type Requirement struct {
	// ID names the requirement: "L{level}.{subject}.{aspect}", such as
	// "L2.recipes.count".
	ID string
	// Level is the lowest conformance level that includes the requirement.
	Level Level
	// Strength is MUST or SHOULD.
	Strength Strength
	// Spec is the sentence of the specification that the requirement
	// checks, quoted or closely paraphrased.
	Spec string
	// How says how the kit checks it over the protocol.
	How string

	scope scope
}

// catalogue lists every requirement, in report order.
var catalogue = []Requirement{
	// Level 1: threshold detection, JSONL output, file reference and summary.
	{ID: "L1.inline.small", Level: Level1, scope: scopeSmall,
		Spec: "If estimated_tokens <= threshold_tokens, return results inline as usual.",
		How:  "Calls the tool with the small arguments: the result is neither an error nor an object with offloaded: true."},
	{ID: "L1.offload.large", Level: Level1,
		Spec: "If estimated_tokens > threshold_tokens, offload to JSONL and return an OffloadResponse.",
		How:  "Calls the tool with the large arguments (and at each detail level): the result is no error and carries a descriptor, a JSON object with offloaded or file_path, in structuredContent or a text content."},
	{ID: "L1.offload.threshold", Level: Level1,
		Spec: "Results estimated to exceed this threshold are offloaded to JSONL.",
		How:  "The header's estimated_tokens is above the threshold the server is configured with (Config.ThresholdTokens)."},
	{ID: "L1.estimate", Level: Level1,
		Spec: "Token estimation MUST use the same heuristic defined in Prompt Integration: tokens ~ characters / 4.",
		How:  "The header's estimated_tokens is within a factor of two of the record lines' characters / 4 (CJK runes may count one token each)."},
	{ID: "L1.descriptor.offloaded", Level: Level1,
		Spec: "offloaded: Indicates this is an offloaded result.",
		How:  "The descriptor's offloaded field is the JSON value true."},
	{ID: "L1.descriptor.file_path", Level: Level1,
		Spec: "file_path: Absolute path to the JSONL file.",
		How:  "file_path is a non-empty absolute path naming a regular file the kit can read (client and server share the file system), or, when the descriptor carries a handle (a server that keeps its results in a store), where a client that downloads the result keeps it: the kit then fetches the file with resources/read (see L1.descriptor.handle)."},
	{ID: "L1.descriptor.handle", Level: Level1,
		Spec: "Offer the result as an MCP resource_link too (served by resources/read), so clients that fetch resources can take it; across stateless calls, return an explicit handle with a bounded lifetime, and answer an unknown or expired handle with an error that says so.",
		How:  "When the descriptor has a handle: it is a non-empty string; the result holds a resource_link whose uri is lro://results/{handle}, with mimeType application/jsonl (and size, when given, the file's); resources/read of that uri returns one content of that uri and type whose bytes are the file (the same as file_path's when file_path is on this machine); resources/read of the handle with one character changed is an error saying the resource is unknown, not found or expired. Skipped for descriptors without a handle."},
	{ID: "L1.descriptor.output_schema", Level: Level1,
		Spec: "MCP: a tool that declares an outputSchema MUST return structured results that conform to it.",
		How:  "When tools/list gives the tool an outputSchema, the offloaded result has structuredContent valid under it (strict clients reject it otherwise)."},
	{ID: "L1.no_cursor", Level: Level1,
		Spec: "A result set MUST NOT simultaneously be offloaded to JSONL and have an active pagination cursor.",
		How:  "No key of the offloaded result (structuredContent, JSON text contents, _meta; line_schema excepted) names a cursor: *cursor*, next_offset, next_page, next_page_token, page_token, next_token."},
	{ID: "L1.file.name", Level: Level1,
		Spec: "Files MUST be written to a configurable output directory using the naming convention {output_dir}/atlatl-{operation}-{ulid}.jsonl.",
		How:  "The file's base name is {prefix}-{operation}-{ulid}.jsonl with a valid ULID whose time is the time of the call, or, when the descriptor has a handle, {prefix}-{operation}-{ulid}-{random}.jsonl with at least 32 lower-case hex digits (128 bits) of random; its folder is Config.OutputDir when set."},
	{ID: "L1.operation", Level: Level1,
		Spec: "operation: The operation that produced these results (header, summary and {operation} in the file name).",
		How:  "The header's operation, the summary's operation and the file name's {operation} are equal, and equal Config.Operation when set."},
	{ID: "L1.header.type", Level: Level1,
		Spec: "The first line is a metadata header conforming to OffloadHeader; type is always \"lro_header\".",
		How:  "Line 1 of the file is a JSON object whose type is \"lro_header\"."},
	{ID: "L1.header.fields", Level: Level1,
		Spec: "OffloadHeader: type, operation, query, count, schema_version, timestamp, estimated_tokens, detail.",
		How:  "The header has all eight fields with their types: strings, query a string or null, count and estimated_tokens non-negative integers."},
	{ID: "L1.header.timestamp", Level: Level1,
		Spec: "timestamp: ISO 8601 timestamp of when the file was written.",
		How:  "timestamp is RFC 3339 (an ISO 8601 profile) with a time zone, and is the time of the call."},
	{ID: "L1.header.count", Level: Level1,
		Spec: "count: Total number of memory lines following the header.",
		How:  "The header's count equals the number of lines after line 1."},
	{ID: "L1.header.query", Level: Level1,
		Spec: "query: The query string (if applicable).",
		How:  "When the call has a string query argument (Config.QueryArgument), the header's query equals it."},
	{ID: "L1.detail", Level: Level1,
		Spec: "The JSONL file MUST serialize memories at the detail level specified in the original tool call; if none is specified, the tool's default applies.",
		How:  "The header's and the summary's detail equal the detail argument of the call (or Config.DefaultDetail when the call has none, or each other when neither is known)."},
	{ID: "L1.records.jsonl", Level: Level1,
		Spec: "Offloaded results are written as line-delimited JSON (JSONL): a header line followed by one object per line.",
		How:  "Every line after the header is exactly one JSON value; no line is empty."},
	{ID: "L1.summary.fields", Level: Level1,
		Spec: "Level 1: the descriptor contains file reference and summary statistics (OffloadSummary).",
		How:  "summary is an object with count and estimated_tokens (non-negative integers), operation and detail (strings), top_namespaces (at most 5 distinct strings) and score_range (null or [min, max] with min <= max)."},
	{ID: "L1.summary.count", Level: Level1,
		Spec: "count: Total number of memories in the file.",
		How:  "summary.count equals the number of record lines in the file."},
	{ID: "L1.summary.tokens", Level: Level1,
		Spec: "estimated_tokens: Estimated total tokens saved by offloading.",
		How:  "summary.estimated_tokens is positive and at most the header's estimate of the whole result set."},
	{ID: "L1.summary.top_namespaces", Level: Level1,
		Spec: "top_namespaces: Top namespaces represented (up to 5).",
		How:  "top_namespaces are min(5, distinct) namespaces of the records, most frequent first; no namespace left out is more frequent than one listed."},

	// Level 2: schema, recipe library, guidance, cleanup.
	{ID: "L2.descriptor.fields", Level: Level2,
		Spec: "Implementations MUST include all fields per the struct definition.",
		How:  "The descriptor has line_schema, jq_recipes and guidance (Level 1 checks offloaded, file_path and summary)."},
	{ID: "L2.line_schema", Level: Level2,
		Spec: "line_schema: JSON Schema describing each memory line in the JSONL file.",
		How:  "line_schema is a JSON Schema object that resolves, and every record line of the file is valid under it."},
	{ID: "L2.recipes.count", Level: Level2,
		Spec: "Implementations MUST include exactly 10 recipes in every OffloadResponse.",
		How:  "jq_recipes is an array of exactly 10 elements."},
	{ID: "L2.recipes.fields", Level: Level2,
		Spec: "JqRecipe: description (what this recipe does) and command (the jq command to execute).",
		How:  "Every recipe is an object with a non-empty string description and command."},
	{ID: "L2.recipes.file", Level: Level2,
		Spec: "The {file} placeholder MUST be replaced with the actual file path from OffloadResponse.file_path.",
		How:  "No command contains {file}, and the file each command reads is exactly file_path (as a shell word, quoted or not)."},
	{ID: "L2.recipes.skip_header", Level: Level2,
		Spec: "All recipes use tail -n +2 to skip the header line.",
		How:  "Each command feeds jq from tail -n +2 of the file."},
	{ID: "L2.recipes.run", Level: Level2,
		Spec: "Ready-to-use jq recipes for common extraction patterns (recipes that run).",
		How:  "Each command, which must be tail -n +2 FILE | jq ... (or cat FILE | jq ..., jq ... FILE) of plain shell words, exits 0 with nothing on standard error, run with sh and jq when jq is installed, else in process with gojq (Report.Recipes says which)."},
	{ID: "L2.recipes.no_score", Level: Level2,
		Spec: "Recipes MUST NOT reference .score (which is a SearchHit field, never serialized into JSONL).",
		How:  "No command contains .score, and no jq filter indexes a field named score."},
	{ID: "L2.recipes.fields_exist", Level: Level2,
		Spec: "Recipes MUST only reference fields that exist at the given detail level.",
		How:  "Every field path a recipe's jq filter indexes from a record (.a.b, {a}) exists in at least one record of the file; keys the filter builds itself are exempt."},
	{ID: "L2.recipes.detail", Level: Level2,
		Spec: "Recipes 1-8 use only Light-level fields; 9-10 adapt to the detail level. At Full detail, confidence MUST be accessed via .provenance.confidence; at Medium detail, via the flattened .confidence field.",
		How:  "For memory records (id, title, namespace, memory_type): recipes 1-8 index only Light fields; at light, 9 uses namespace and 10 memory_type; at medium, 9 sorts by .confidence and 10 searches .content; at full, 9 sorts by .provenance.confidence and 10 searches .content; recipe 9's output is every record, by confidence descending."},
	{ID: "L2.guidance", Level: Level2,
		Spec: "The guidance field MUST contain a brief instruction block for the AI assistant.",
		How:  "guidance is a non-empty string."},
	{ID: "L2.guidance.template", Level: Level2, Strength: Should,
		Spec: "Implementations SHOULD use the template (count, tokens, path, detail level); the guidance prompt SHOULD note the active detail level.",
		How:  "guidance names the record count, the detail level and the file path (or, when the descriptor has a handle, the path or the handle)."},
	{ID: "L2.cleanup", Level: Level2, scope: scopeOnce,
		Spec: "Offloaded JSONL files are ephemeral and MUST be cleaned up after their TTL expires.",
		How:  "Needs Config.Cleanup: the kit plants a file named by the convention whose ULID time (and mtime) is older than the TTL, and an unrelated file; the planted file must be deleted within Config.Cleanup.Within, while the unrelated file and this run's fresh offloaded files stay. Skipped for results kept in a store the kit fetched them from, unless Config.Cleanup.Dir names the store's folder."},

	// Level 3: fallback and events.
	{ID: "L3.fallback.succeeds", Level: Level3, scope: scopeBackup,
		Spec: "Implementations MUST NOT fail the entire operation due to an LRO write failure.",
		How:  "Needs Config.FallbackSession, a server whose output folder cannot be written: the large call returns no error, no isError and no descriptor."},
	{ID: "L3.fallback.warning", Level: Level3, scope: scopeBackup,
		Spec: "Include a warning in the response indicating that LRO failed and results are truncated.",
		How:  "A text content of that result says that something failed (fail, error, could not, unable) and that the result is truncated (truncat, partial, omitted, showing N of M)."},
	{ID: "L3.fallback.truncated", Level: Level3, scope: scopeBackup,
		Spec: "Truncate the result set to fit within threshold_tokens.",
		How:  "The result's largest array of objects holds fewer records than the offloaded file of the same call, and their characters / 4 fit within the threshold (25% slack for the estimate)."},
	{ID: "L3.events", Level: Level3, scope: scopeNever,
		Spec: "Emit OffloadWriteFailed / OffloadFileExpired events for observability.",
		How:  "Not observable over MCP: events are server-internal. Always skipped; check them in-process (see lro's TestConformanceLevel3)."},
}

// byID indexes the catalogue.
var byID = func() map[string]int {
	m := make(map[string]int, len(catalogue))
	for i, r := range catalogue {
		if _, dup := m[r.ID]; dup {
			panic("lrotest: duplicate requirement " + r.ID)
		}
		m[r.ID] = i
	}
	return m
}()

// Requirements returns every requirement the kit checks, at every level, in
// report order. The slice is a copy.
func Requirements() []Requirement {
	return append([]Requirement(nil), catalogue...)
}
