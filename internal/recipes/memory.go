package recipes

import (
	"bytes"
	"cmp"
	stdjson "encoding/json"
	"maps"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The parameters of the memory library: jq variables, and the keys of an
// lro_extract params object.
const (
	ParamNamespace  = "namespace"   // namespace prefix, recipe 2
	ParamKeyword    = "keyword"     // case-insensitive regular expression, recipes 3 and 10
	ParamMemoryType = "memory_type" // memory type, recipe 5
	ParamTag        = "tag"         // tag, recipe 7
)

// memoryLibrary returns the specification's library for memory records at
// the given detail level (an unknown one is [Light]), numbered, its
// parameters' defaults taken from recs, the decoded sample, which may be
// empty. The filters assume that every record is an object, as memory
// records are; a missing or null field never makes them fail.
func memoryLibrary(detail Detail, recs []memoryRecord) []Recipe {
	d := memoryDefaults(recs)
	rs := []Recipe{
		recipe("List titles with namespaces", "titles+namespaces", `[.title, .namespace] | @tsv`, "r"),
		recipe("Filter by namespace prefix", "filter namespace",
			`select(.namespace | strings | startswith($namespace))`, "c",
			Param{ParamNamespace, d.namespace, "namespace prefix, for example _semantic or _semantic/decisions", ""}),
		recipe("Search titles by keyword (case-insensitive regex)", "search titles",
			`select(.title | strings | test($keyword; "i"))`, "c",
			Param{ParamKeyword, d.titleWord, "keyword or regular expression, matched case-insensitively against the title", "title"}),
		recipe("Extract IDs and titles only", "IDs+titles", `{id, title, namespace}`, "c"),
		recipe("Filter by memory type", "filter type", `select(.memory_type == $memory_type)`, "c",
			Param{ParamMemoryType, d.memoryType, "memory type, for example semantic, episodic or procedural", "memory_type"}),
		recipe("Count by namespace", "count by namespace",
			`group_by(.namespace) | map({namespace: .[0].namespace, count: length}) | .[]`, "sc"),
		recipe("Filter by tag", "filter tag", `select(any(.tags[]?; . == $tag))`, "c",
			Param{ParamTag, d.tag, "tag, matched exactly", ""}),
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
				Param{ParamKeyword, d.contentWord, "keyword or regular expression, matched case-insensitively against the content", "content"}))
	default:
		rs = append(rs,
			recipe("List unique namespaces", "unique namespaces",
				`map(.namespace | strings) | unique | .[]`, "sr"),
			recipe("Count by memory type", "count by type",
				`group_by(.memory_type) | map({memory_type: .[0].memory_type, count: length}) | .[]`, "sc"))
	}
	return number(rs)
}

// number sets the Number of each recipe to its position, from 1.
func number(rs []Recipe) []Recipe {
	for i := range rs {
		rs[i].Number = i + 1
	}
	return rs
}

// isMemory reports whether more than half of the records that are valid
// JSON (valid) are objects carrying id, title, namespace and memory_type.
func isMemory(recs []memoryRecord, valid int) bool {
	n := 0
	for _, o := range recs {
		if o.ID != nil && o.Title != nil && o.Namespace != nil && o.MemoryType != nil {
			n++
		}
	}
	return n > 0 && 2*n > valid
}

// memoryRecord is an object record with the values of the fields the
// library reads as written (the last of duplicate names, as with
// json.Unmarshal), nil for those it has not.
type memoryRecord struct {
	ID         jsontext.Value `json:"id"`
	Title      jsontext.Value `json:"title"`
	Namespace  jsontext.Value `json:"namespace"`
	MemoryType jsontext.Value `json:"memory_type"`
	Tags       jsontext.Value `json:"tags"`
	Content    jsontext.Value `json:"content"`
}

// decodeOptions make json v2 accept exactly what json.Valid accepts
// (duplicate member names, strings that are not valid UTF-8) and match
// member names exactly.
var decodeOptions = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// decodeMemories decodes the object records of the bounded sample and
// counts the records that are valid JSON.
func decodeMemories(sample []stdjson.RawMessage) (recs []memoryRecord, valid int) {
	for _, raw := range bounded(sample) {
		var o memoryRecord
		if bytes.HasPrefix(bytes.TrimLeft(raw, " \t\r\n"), []byte("{")) && json.Unmarshal(raw, &o, decodeOptions) == nil {
			recs = append(recs, o)
			valid++
		} else if stdjson.Valid(raw) {
			valid++
		}
	}
	return recs, valid
}

// strs returns the string elements of raw, if it is an array.
func strs(raw jsontext.Value) []string {
	var vs []jsontext.Value
	if len(raw) == 0 || raw[0] != '[' || json.Unmarshal(raw, &vs, decodeOptions) != nil {
		return nil
	}
	var ss []string
	for _, e := range vs {
		if s, ok := jsonString(e); ok {
			ss = append(ss, s)
		}
	}
	return ss
}

// jsonString decodes raw, a valid JSON value, if it is a string. A string
// without escapes whose bytes are UTF-8 is its own decoding; others are
// decoded by encoding/json, which replaces bytes that are not UTF-8.
func jsonString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if body := raw[1 : len(raw)-1]; bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) {
		return string(body), true
	}
	var s string
	err := stdjson.Unmarshal(raw, &s) // before s is read: operand order is unspecified
	return s, err == nil
}

// defaults are the default parameter values of the memory library: the
// most common namespace prefix (before the first '/'), memory type and tag,
// and a distinctive word of the titles and contents, or else the
// specification's literals.
type defaults struct {
	namespace, titleWord, contentWord, memoryType, tag string
}

func memoryDefaults(recs []memoryRecord) defaults {
	namespaces := map[string]int{}
	types := map[string]int{}
	tags := map[string]int{}
	var titles, contents keywords
	for _, o := range recs {
		if ns, ok := jsonString(o.Namespace); ok && ns != "" {
			prefix, _, _ := strings.Cut(ns, "/")
			if prefix == "" {
				prefix = ns
			}
			namespaces[prefix]++
		}
		if t, ok := jsonString(o.MemoryType); ok && t != "" {
			types[t]++
		}
		seen := map[string]bool{}
		for _, t := range strs(o.Tags) {
			if t != "" && !seen[t] {
				seen[t] = true
				tags[t]++
			}
		}
		if t, ok := jsonString(o.Title); ok {
			titles.add(t)
		}
		if c, ok := jsonString(o.Content); ok {
			contents.add(c)
		}
	}
	return defaults{
		namespace:   cmp.Or(mostCommon(maps.All(namespaces)), defaultNamespace),
		titleWord:   cmp.Or(titles.pick(), defaultKeyword),
		contentWord: cmp.Or(contents.pick(), defaultKeyword),
		memoryType:  cmp.Or(mostCommon(maps.All(types)), defaultMemoryType),
		tag:         cmp.Or(mostCommon(maps.All(tags)), defaultTag),
	}
}
