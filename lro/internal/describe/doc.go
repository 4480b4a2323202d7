// Package describe holds what the offload pipeline (package
// internal/offload) describes a file with, below the public descriptor
// types of package lro/descriptor: the line schema an [Inferrer] infers
// from the records as they are read, [Annotate], which adds what their Go
// type, reflected by [Reflect] with github.com/invopop/jsonschema, knows
// besides (formats, number types, descriptions); the guidance texts
// ([Shell], [Headline], [DetailLine]) made from plain values ([Input]).
// (lro.AddTool infers output schemas with
// github.com/google/jsonschema-go, as mcp.AddTool does: the schema the
// go-sdk validates with.)
package describe
