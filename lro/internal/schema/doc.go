// Package schema infers the line schema of an offload file: the JSON Schema
// of one record line that an [Inferrer] builds from the records as the
// offload engine (package lro/internal/offload) reads them, and
// [Annotate], which adds what their Go type, reflected by [Reflect] with
// github.com/invopop/jsonschema, knows besides (formats, number types,
// descriptions). (lro.AddTool infers output schemas with
// github.com/google/jsonschema-go, as mcp.AddTool does: the schema the
// go-sdk validates with.)
package schema
