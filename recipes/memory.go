package recipes

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/internal/spec"
)

// memoryLibrary returns the specification's library for memory records at
// the given detail level (an unknown one is [Light]), its defaults taken
// from recs, which may be empty. A missing or null field never makes the
// filters fail. They index every record, as the specification's do, unless
// some of recs are not objects (memory records are only most of them):
// then they pass over the records that are not (objects, map(objects)).
// Likewise recipe 1 writes a title or namespace that is an array or an
// object as its JSON text (@tsv refuses them) when one of recs has such a
// title or namespace, and recipe 9 of Full passes over the confidence of a
// provenance that is not an object (.provenance.confidence?, whose
// records then sort last) when one of recs has such a provenance:
// otherwise the filters are the specification's.
func memoryLibrary(detail Detail, recs []record) []Recipe {
	rs := specLibrary(detail, recs)
	if slices.ContainsFunc(recs, func(r record) bool {
		return r.object && (isContainer(r.memory.Title) || isContainer(r.memory.Namespace))
	}) {
		rs[0].filter = `[(.title, .namespace) | if type == "array" or type == "object" then tojson else . end] | @tsv`
	}
	if detail == Full && slices.ContainsFunc(recs, func(r record) bool {
		k := r.memory.Provenance.Kind()
		return r.object && r.memory.Provenance != nil && k != '{' && k != 'n'
	}) {
		rs[8].filter = `sort_by(.provenance.confidence?) | reverse | .[]`
	}
	if slices.ContainsFunc(recs, func(r record) bool { return !r.object }) {
		for i, r := range rs {
			if strings.Contains(r.options, "s") {
				rs[i].filter = "map(objects) | " + r.filter
			} else {
				rs[i].filter = "objects | " + r.filter
			}
		}
	}
	return rs
}

// specLibrary returns the specification's library, for records that are
// all objects.
func specLibrary(detail Detail, recs []record) []Recipe {
	d := memoryDefaults(recs)
	rs := []Recipe{
		recipe("List titles with namespaces", "titles+namespaces", `[.title, .namespace] | @tsv`, "r"),
		recipe("Filter by namespace prefix", "filter namespace",
			`select(.namespace | strings | startswith($namespace))`, "c",
			param{spec.ParamNamespace, d.namespace, ""}),
		recipe("Search titles by keyword (case-insensitive regex)", "search titles",
			`select(.title | strings | test($keyword; "i"))`, "c",
			param{spec.ParamKeyword, d.titleWord, "title"}),
		recipe("Extract IDs and titles only", "IDs+titles", `{id, title, namespace}`, "c"),
		recipe("Filter by memory type", "filter type", `select(.memory_type == $memory_type)`, "c",
			param{spec.ParamMemoryType, d.memoryType, "memory_type"}),
		recipe("Count by namespace", "count by namespace",
			`group_by(.namespace) | map({namespace: .[0].namespace, count: length}) | .[]`, "sc"),
		recipe("Filter by tag", "filter tag", `select(any(.tags[]?; . == $tag))`, "c",
			param{spec.ParamTag, d.tag, ""}),
		recipe("Sort by created date, oldest first", "sort by date",
			`sort_by(.created) | .[]`, "sc"),
	}
	switch detail {
	case Medium, Full:
		path := ".confidence"
		if detail == Full {
			path = ".provenance.confidence"
		}
		rs = append(rs,
			recipe("Sort by confidence, highest first", "sort by confidence",
				"sort_by("+path+") | reverse | .[]", "sc"),
			recipe("Search content by keyword (case-insensitive regex)", "search content",
				`select(.content | strings | test($keyword; "i"))`, "c",
				param{spec.ParamKeyword, d.contentWord, "content"}))
	default:
		rs = append(rs,
			recipe("List unique namespaces", "unique namespaces",
				`map(.namespace | strings) | unique | .[]`, "sr"),
			recipe("Count by memory type", "count by type",
				`group_by(.memory_type) | map({memory_type: .[0].memory_type, count: length}) | .[]`, "sc"))
	}
	return rs
}

// isContainer reports whether raw, a valid JSON value or nil, is an array
// or an object.
func isContainer(raw jsontext.Value) bool {
	return raw != nil && (raw.Kind() == '[' || raw.Kind() == '{')
}

// isMemory reports whether more than half of recs, the records that are
// valid JSON, are objects carrying id, title, namespace and memory_type.
func isMemory(recs []record) bool {
	n := 0
	for _, r := range recs {
		if o := r.memory; r.object && o.ID != nil && o.Title != nil && o.Namespace != nil && o.MemoryType != nil {
			n++
		}
	}
	return n > 0 && 2*n > len(recs)
}

// memoryRecord is an object record with the values of the fields the
// library reads as written (the last of duplicate names, as with
// json.Unmarshal), nil for those it has not.
type memoryRecord struct {
	ID         jsontext.Value
	Title      jsontext.Value
	Namespace  jsontext.Value
	MemoryType jsontext.Value
	Tags       jsontext.Value
	Content    jsontext.Value
	Provenance jsontext.Value
}

// field returns the field of o that holds the member named quoted, a JSON
// string as written, or nil for a member the library does not read.
func (o *memoryRecord) field(quoted []byte) *jsontext.Value {
	switch name, _ := jsonString(quoted, true); name {
	case "id":
		return &o.ID
	case "title":
		return &o.Title
	case "namespace":
		return &o.Namespace
	case "memory_type":
		return &o.MemoryType
	case "tags":
		return &o.Tags
	case "content":
		return &o.Content
	case "provenance":
		return &o.Provenance
	}
	return nil
}

// appendStrs appends to ss the string elements of raw, a valid JSON value,
// if it is an array, as views of raw (see jsonString).
func appendStrs(ss []string, raw jsontext.Value) []string {
	if raw.Kind() == '[' {
		rawjson.SkipContainer(raw, 0, 0, func(_, value []byte) {
			if s, ok := jsonString(value, true); ok {
				ss = append(ss, s)
			}
		})
	}
	return ss
}

// defaults are the default parameter values of the memory library: the
// most common namespace prefix (before the first '/'), memory type and tag,
// and a distinctive word of the titles and contents, or else the
// specification's literals.
type defaults struct {
	namespace, titleWord, contentWord, memoryType, tag string
}

func memoryDefaults(recs []record) defaults {
	namespaces := map[string]int{}
	types := map[string]int{}
	tags := map[string]int{}
	var titles, contents keywords
	var ts []string
	// The keys counted are views of the sample; those kept are copied.
	for _, r := range recs {
		o := r.memory // nil values for a record that is not an object
		if ns, ok := jsonString(o.Namespace, true); ok && ns != "" {
			prefix, _, _ := strings.Cut(ns, "/")
			namespaces[cmp.Or(prefix, ns)]++
		}
		if t, ok := jsonString(o.MemoryType, true); ok && t != "" {
			types[t]++
		}
		ts = appendStrs(ts[:0], o.Tags)
		slices.Sort(ts)
		for _, t := range slices.Compact(ts) { // a tag counted once per record
			if t != "" {
				tags[t]++
			}
		}
		if t, ok := jsonString(o.Title, true); ok {
			titles.add(t)
		}
		if c, ok := jsonString(o.Content, true); ok {
			contents.add(c)
		}
	}
	return defaults{
		namespace:   cmp.Or(strings.Clone(mostCommon(maps.All(namespaces))), defaultNamespace),
		titleWord:   cmp.Or(titles.pick(), defaultKeyword),
		contentWord: cmp.Or(contents.pick(), defaultKeyword),
		memoryType:  cmp.Or(strings.Clone(mostCommon(maps.All(types))), defaultMemoryType),
		tag:         cmp.Or(strings.Clone(mostCommon(maps.All(tags))), defaultTag),
	}
}
