// Package offload is the one offload pipeline of this module: package lro
// and package lro/extract make their configuration with [New] and hand each
// tool result to [Config.Apply]. A result within the threshold is left as it
// is; above it, it goes whole and losslessly to a JSONL file (or, with
// [Config.Store], a bucket object) and is rewritten into its descriptor; when
// the file cannot be written, into a truncated result with a warning.
// [Rebuild] puts a file back together. The stages, in files: measure.go,
// redact.go, records.go, spacing.go, write.go, summary.go, preview.go,
// schema.go, describe.go, fallback.go, rebuild.go; docs/how-it-works.md
// shows the shapes.
package offload
