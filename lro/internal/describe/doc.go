// Package describe makes descriptors: [Build] writes the JSON of the
// descriptor of an offload file (summary, line schema, recipes, guidance,
// what the result held beside its records, preview) from the values its
// writer gathered ([Input]); the guidance in either rendering, the
// specification's template for a client with a shell or [Native]'s for
// a server with the extraction tools. The offload engine (package
// lro/internal/offload) gathers the values, and calls Build while it fits
// the descriptor within the threshold; package lro/descriptor's Build,
// for users, calls it too.
package describe
