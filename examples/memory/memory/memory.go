package memory

import (
	"fmt"
	"strings"
	"time"
)

// MemoryType is the MIF type of a memory.
type MemoryType string

// The memory types of MIF.
const (
	Semantic   MemoryType = "semantic"   // facts, decisions, architecture
	Episodic   MemoryType = "episodic"   // sessions, incidents, things that happened
	Procedural MemoryType = "procedural" // runbooks, patterns, how to do things
)

// Valid reports whether t is one of [Semantic], [Episodic] and [Procedural].
func (t MemoryType) Valid() bool {
	return t == Semantic || t == Episodic || t == Procedural
}

// Memory is one MIF memory object. Its JSON form is the full-detail record.
//
// The core fields (id through status), summary and provenance are always
// serialized; the enrichment fields (entities, relationships, wiki_links,
// embedding, temporal, extensions, blocks, citations) are optional in MIF and
// left out when empty.
//
// A Memory returned by a [Store] shares its slices and maps with the store:
// treat it as read-only.
type Memory struct {
	ID            string         `json:"id" jsonschema:"unique identifier of the memory, a UUID"`
	MemoryType    MemoryType     `json:"memory_type" jsonschema:"semantic, episodic or procedural"`
	Content       string         `json:"content" jsonschema:"the text of the memory"`
	Created       time.Time      `json:"created" jsonschema:"when the memory was created, RFC 3339"`
	Modified      time.Time      `json:"modified" jsonschema:"when the memory was last modified, RFC 3339"`
	Namespace     string         `json:"namespace" jsonschema:"slash-separated namespace, for example _semantic/decisions"`
	Title         string         `json:"title" jsonschema:"short title"`
	Tags          []string       `json:"tags" jsonschema:"free-form tags"`
	Status        string         `json:"status" jsonschema:"lifecycle status: active, draft, superseded or archived"`
	Entities      []Entity       `json:"entities,omitempty" jsonschema:"named entities the memory mentions"`
	Relationships []Relationship `json:"relationships,omitempty" jsonschema:"typed links to other memories"`
	WikiLinks     []string       `json:"wiki_links,omitempty" jsonschema:"wiki-style link targets"`
	Embedding     []float32      `json:"embedding,omitempty" jsonschema:"small dense embedding vector"`
	Summary       string         `json:"summary" jsonschema:"one-sentence summary of the content"`
	Provenance    *Provenance    `json:"provenance" jsonschema:"where the memory came from and how much to trust it"`
	Temporal      *Temporal      `json:"temporal,omitempty" jsonschema:"decay, time to live and validity window"`
	Extensions    map[string]any `json:"extensions,omitempty" jsonschema:"vendor extensions"`
	Blocks        []Block        `json:"blocks,omitempty" jsonschema:"structured content blocks"`
	Citations     []Citation     `json:"citations,omitempty" jsonschema:"sources the memory cites"`
}

// Entity is a named entity mentioned by a memory.
type Entity struct {
	Name string `json:"name" jsonschema:"name of the entity"`
	Type string `json:"type" jsonschema:"kind of entity, for example component or technology"`
}

// Relationship is a typed link from a memory to another one.
type Relationship struct {
	Type   string `json:"type" jsonschema:"relationship type, for example relates_to or supersedes"`
	Target string `json:"target" jsonschema:"id of the target memory"`
}

// Provenance says where a memory came from.
type Provenance struct {
	Confidence float64 `json:"confidence" jsonschema:"confidence in the memory, between 0 and 1"`
	TrustLevel string  `json:"trust_level" jsonschema:"high, medium or low"`
	SourceType string  `json:"source_type" jsonschema:"conversation, document, observation or inference"`
	Agent      string  `json:"agent" jsonschema:"agent that recorded the memory"`
}

// Temporal holds a memory's decay configuration and state, its time to live
// and its validity window.
type Temporal struct {
	Decay      *Decay     `json:"decay,omitempty" jsonschema:"decay configuration and current state"`
	TTL        string     `json:"ttl,omitempty" jsonschema:"time to live as an ISO 8601 duration, for example P90D"`
	ValidFrom  *time.Time `json:"valid_from,omitempty" jsonschema:"start of validity, RFC 3339"`
	ValidUntil *time.Time `json:"valid_until,omitempty" jsonschema:"end of validity, RFC 3339"`
}

// Decay is the decay configuration (model, half life) and state (strength) of
// a memory.
type Decay struct {
	Model        string  `json:"model" jsonschema:"decay model, for example exponential"`
	HalfLifeDays float64 `json:"half_life_days" jsonschema:"half life in days"`
	Strength     float64 `json:"strength" jsonschema:"current strength, between 0 and 1"`
}

// Block is a structured content block, such as a code snippet.
type Block struct {
	Type string `json:"type" jsonschema:"block type, for example code or checklist"`
	Text string `json:"text" jsonschema:"block text"`
}

// Citation is a source a memory cites.
type Citation struct {
	Title string `json:"title" jsonschema:"title of the source"`
	URL   string `json:"url" jsonschema:"address of the source"`
}

// Confidence returns the provenance's confidence, or 0 without provenance.
func (m *Memory) Confidence() float64 {
	if m.Provenance == nil {
		return 0
	}
	return m.Provenance.Confidence
}

// Detail is the detail level of a [Record].
type Detail string

// The detail levels. See the package documentation for the fields of each.
const (
	Light  Detail = "light"
	Medium Detail = "medium"
	Full   Detail = "full"
)

// ParseDetail parses a detail level name: "light", "medium" or "full". Case
// and surrounding space are ignored.
func ParseDetail(s string) (Detail, error) {
	switch d := Detail(strings.ToLower(strings.TrimSpace(s))); d {
	case Light, Medium, Full:
		return d, nil
	}
	return "", fmt.Errorf("unknown detail level %q (want light, medium or full)", s)
}

// Record is a memory serialized at one detail level. Its JSON form holds
// exactly the fields of that level (see the package documentation); build
// one with [Project]. Content, tags and the other light fields are always
// present (content is "" at light detail); summary and confidence are
// pointers, present only at the levels that carry them; the enrichment
// fields are nil below full detail and, as in [Memory], left out when empty.
type Record struct {
	ID            string         `json:"id" jsonschema:"unique identifier of the memory, a UUID"`
	MemoryType    MemoryType     `json:"memory_type" jsonschema:"semantic, episodic or procedural"`
	Content       string         `json:"content" jsonschema:"the text of the memory; empty at light detail"`
	Created       time.Time      `json:"created" jsonschema:"when the memory was created, RFC 3339"`
	Modified      time.Time      `json:"modified" jsonschema:"when the memory was last modified, RFC 3339"`
	Namespace     string         `json:"namespace" jsonschema:"slash-separated namespace, for example _semantic/decisions"`
	Title         string         `json:"title" jsonschema:"short title"`
	Tags          []string       `json:"tags" jsonschema:"free-form tags"`
	Status        string         `json:"status" jsonschema:"lifecycle status: active, draft, superseded or archived"`
	Confidence    *float64       `json:"confidence,omitzero" jsonschema:"confidence between 0 and 1; medium detail only (at full detail see provenance.confidence)"`
	Entities      []Entity       `json:"entities,omitempty" jsonschema:"named entities the memory mentions; full detail only"`
	Relationships []Relationship `json:"relationships,omitempty" jsonschema:"typed links to other memories; full detail only"`
	WikiLinks     []string       `json:"wiki_links,omitempty" jsonschema:"wiki-style link targets; full detail only"`
	Embedding     []float32      `json:"embedding,omitempty" jsonschema:"small dense embedding vector; full detail only"`
	Summary       *string        `json:"summary,omitzero" jsonschema:"one-sentence summary; medium and full detail"`
	Provenance    *Provenance    `json:"provenance,omitzero" jsonschema:"where the memory came from; full detail only"`
	Temporal      *Temporal      `json:"temporal,omitempty" jsonschema:"decay, time to live and validity window; full detail only"`
	Extensions    map[string]any `json:"extensions,omitempty" jsonschema:"vendor extensions; full detail only"`
	Blocks        []Block        `json:"blocks,omitempty" jsonschema:"structured content blocks; full detail only"`
	Citations     []Citation     `json:"citations,omitempty" jsonschema:"sources the memory cites; full detail only"`
}

// Project returns m's record at detail level d. An unknown level is treated
// as [Light]. The record shares m's slices and maps.
func Project(m *Memory, d Detail) Record {
	r := Record{
		ID:         m.ID,
		MemoryType: m.MemoryType,
		Created:    m.Created,
		Modified:   m.Modified,
		Namespace:  m.Namespace,
		Title:      m.Title,
		Tags:       nonNil(m.Tags),
		Status:     m.Status,
	}
	switch d {
	case Medium:
		r.Content = m.Content
		r.Summary = &m.Summary
		c := m.Confidence()
		r.Confidence = &c
	case Full:
		r.Content = m.Content
		r.Summary = &m.Summary
		r.Entities = m.Entities
		r.Relationships = m.Relationships
		r.WikiLinks = m.WikiLinks
		r.Embedding = m.Embedding
		r.Provenance = m.Provenance
		if r.Provenance == nil {
			r.Provenance = &Provenance{}
		}
		r.Temporal = m.Temporal
		r.Extensions = m.Extensions
		r.Blocks = m.Blocks
		r.Citations = m.Citations
	}
	return r
}

// ProjectAll projects every memory of ms at detail level d.
func ProjectAll(ms []Memory, d Detail) []Record {
	rs := make([]Record, len(ms))
	for i := range ms {
		rs[i] = Project(&ms[i], d)
	}
	return rs
}

// Memory converts a record back to a memory. A top-level confidence (a
// medium-detail record) becomes the provenance's confidence when the record
// has no provenance. The result is normalized like the memories of a [Store]:
// its tags are not nil and it has a provenance.
func (r *Record) Memory() Memory {
	m := Memory{
		ID:            r.ID,
		MemoryType:    r.MemoryType,
		Content:       r.Content,
		Created:       r.Created,
		Modified:      r.Modified,
		Namespace:     r.Namespace,
		Title:         r.Title,
		Tags:          r.Tags,
		Status:        r.Status,
		Entities:      r.Entities,
		Relationships: r.Relationships,
		WikiLinks:     r.WikiLinks,
		Embedding:     r.Embedding,
		Provenance:    r.Provenance,
		Temporal:      r.Temporal,
		Extensions:    r.Extensions,
		Blocks:        r.Blocks,
		Citations:     r.Citations,
	}
	if r.Summary != nil {
		m.Summary = *r.Summary
	}
	if m.Provenance == nil && r.Confidence != nil {
		m.Provenance = &Provenance{Confidence: *r.Confidence}
	}
	return normalize(m)
}

// normalize gives m non-nil tags and a provenance, so that its JSON form
// always has "tags" as an array and "provenance" as an object.
func normalize(m Memory) Memory {
	m.Tags = nonNil(m.Tags)
	if m.Provenance == nil {
		m.Provenance = &Provenance{}
	}
	return m
}

// nonNil returns s, or an empty non-nil slice when s is nil, so that it
// serializes as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
