// Package describe holds what the offload pipeline (package
// internal/offload) describes a file with, below the public descriptor
// types of package lro/descriptor: the line schema inferred from the
// records by an [Inferrer], one record at a time or, with
// [Inferrer.AddElements], the elements of an array in one read, which also
// validates them, so that it lists exactly the fields the lines hold;
// [Annotate], which adds what their Go type, reflected by [Reflect], knows
// besides (formats, number types, descriptions); the guidance texts
// ([Shell], [Headline], [DetailLine]) made from plain values ([Input]); and
// [ResponseSchema], the schema of a descriptor that output schemas are
// widened with.
//
// It imports neither package descriptor nor the pipeline: data flows one
// way, from the pipeline down to it.
//
// Two JSON Schema reflectors are used in this module, for two jobs:
// [Reflect] uses github.com/invopop/jsonschema, which gives time.Time its
// "date-time" format and reads both the invopop and the go-sdk struct tag
// conventions, to annotate line schemas; lro.AddTool infers a tool's output
// schema with github.com/google/jsonschema-go, as mcp.AddTool does, so that
// the schema a typed tool advertises is the one the go-sdk validates with.
// The latter gives time.Time no format and rejects invopop's tags.
package describe
