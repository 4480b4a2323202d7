// Package memory is the service layer of the example memory server: MIF-style
// memory objects, an in-memory [Store], the [RecallService], [SearchService]
// and [PromptIntegration] that the MCP tools call, a deterministic synthetic
// corpus ([Generate]) and a JSONL loader ([Load]).
//
// The package is plain Go. It knows nothing about MCP or Large Result
// Offloading: the offloading decorator sits in front of the tools, at the
// transport layer, and sees only what these services return. That is the
// separation the LRO specification asks for ("the service layer is unaware of
// offloading").
//
// # Detail levels
//
// A memory is shown to a model at one of three detail levels, chosen per call.
// [Project] turns a [Memory] into the [Record] of a level:
//
//   - light: id, memory_type, content (always the empty string), created,
//     modified, namespace, title, tags and status;
//   - medium: light with the real content, summary, and the provenance's
//     confidence flattened to a top-level "confidence";
//   - full: every field the memory has: the light and medium fields but
//     the top-level confidence, provenance (with the confidence), and those
//     of the optional MIF enrichment fields (entities, relationships,
//     wiki_links, embedding, temporal, extensions, blocks, citations) that
//     are not empty. There is no top-level "confidence".
//
// # Recall and search
//
// [RecallService.Recall] returns the memories in which every query term occurs;
// [SearchService.Search] returns those in which any term occurs and also looks
// at summaries and entity names. Both score hits in (0, 1] and order them best
// first; see their documentation for the exact rules.
package memory
