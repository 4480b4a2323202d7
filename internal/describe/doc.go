// Package describe holds what the offload pipeline (package
// internal/offload) describes a file with, below the public descriptor
// types of package lro/descriptor: the line schema an [Inferrer] infers
// from the records as they are read, [Annotate], which adds what their Go
// type, reflected by [Reflect], knows besides (formats, number types,
// descriptions); the guidance texts ([Shell], [Headline], [DetailLine])
// made from plain values ([Input]); and [ResponseSchema], the schema of a
// descriptor that output schemas are widened with.
//
// [Reflect] uses github.com/invopop/jsonschema, which gives time.Time its
// "date-time" format and reads both invopop's and the go-sdk's struct tags;
// lro.AddTool infers a tool's output schema with
// github.com/google/jsonschema-go, as mcp.AddTool does, so that it is the
// schema the go-sdk validates with.
package describe
