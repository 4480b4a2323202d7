package recipes

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

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
	ID         jsontext.Value
	Title      jsontext.Value
	Namespace  jsontext.Value
	MemoryType jsontext.Value
	Tags       jsontext.Value
	Content    jsontext.Value
}

// member returns the field of o that holds the member named quoted, a JSON
// string as written, or nil for a member the library does not read.
func (o *memoryRecord) member(quoted []byte) *jsontext.Value {
	name := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(name, '\\') >= 0 {
		s, _ := jsonString(quoted)
		name = []byte(s)
	}
	fields := [...]*jsontext.Value{&o.ID, &o.Title, &o.Namespace, &o.MemoryType, &o.Tags, &o.Content}
	for i, n := range [...]string{"id", "title", "namespace", "memory_type", "tags", "content"} {
		if string(name) == n {
			return fields[i]
		}
	}
	return nil
}

// decodeOptions make jsontext accept exactly what json.Valid accepts:
// duplicate member names and strings that are not valid UTF-8.
var decodeOptions = []jsontext.Options{
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
}

// decodeMemories decodes the object records of the bounded sample and
// counts the records that are valid JSON.
func decodeMemories(sample []json.RawMessage) (recs []memoryRecord, valid int) {
	var buf bytes.Buffer
	dec := jsontext.NewDecoder(&buf)
	for _, raw := range bounded(sample) {
		buf = *bytes.NewBuffer(raw) // read in place, not copied
		dec.Reset(&buf, decodeOptions...)
		var o memoryRecord
		if object, err := decodeMemory(dec, raw, &o); err == nil {
			valid++
			if object {
				recs = append(recs, o)
			}
		}
	}
	return recs, valid
}

// decodeMemory reads the record raw with dec, which reads raw, into o if it
// is an object, and reports whether it is. The error is not nil when raw is
// not one valid JSON value.
func decodeMemory(dec *jsontext.Decoder, raw []byte, o *memoryRecord) (object bool, err error) {
	if dec.PeekKind() != '{' {
		err = dec.SkipValue()
	} else if _, err = dec.ReadToken(); err == nil {
		object = true
		for err == nil && dec.PeekKind() != '}' {
			var name, v jsontext.Value
			if name, err = dec.ReadValue(); err != nil {
				break
			}
			field := o.member(name)
			if v, err = dec.ReadValue(); err == nil && field != nil {
				// v as a slice of raw, which outlives dec's reads.
				end := int(dec.InputOffset())
				*field = jsontext.Value(raw[end-len(v) : end : end])
			}
		}
		if err == nil {
			_, err = dec.ReadToken() // '}'
		}
	}
	if err == nil {
		// One value: nothing may follow.
		if _, err = dec.ReadToken(); err == io.EOF {
			err = nil
		} else if err == nil {
			err = errors.New("more than one value")
		}
	}
	return object, err
}

// strs returns the string elements of raw, if it is an array.
func strs(raw jsontext.Value) []string {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewBuffer(raw), decodeOptions...)
	if _, err := dec.ReadToken(); err != nil {
		return nil
	}
	var ss []string
	for dec.PeekKind() != ']' {
		e, err := dec.ReadValue()
		if err != nil {
			break // raw is valid: not reached
		}
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
	err := json.Unmarshal(raw, &s) // before s is read: operand order is unspecified
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
			namespaces[cmp.Or(prefix, ns)]++
		}
		if t, ok := jsonString(o.MemoryType); ok && t != "" {
			types[t]++
		}
		ts := strs(o.Tags)
		slices.Sort(ts)
		for _, t := range slices.Compact(ts) { // a tag counted once per record
			if t != "" {
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
