package descriptor

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/zircote/lro-go/internal/jsonscan"
)

// SchemaDialect is the JSON Schema dialect of every schema this package makes.
const SchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// maxInferDepth bounds how deep [Infer] describes nested values; deeper
// values are described by their type alone.
const maxInferDepth = 6

// Reflect returns the JSON Schema of one value of Go type t, reflected with
// github.com/invopop/jsonschema and inlined (no $ref), so that it stands alone
// as a line schema.
//
// Struct tags of both conventions are honoured: invopop's
// `jsonschema:"title=…,description=…"` and the go-sdk's plain
// `jsonschema:"a description"`, which the go-sdk uses for tool schemas. A tag
// that holds no key=value pair and no invopop keyword is taken as a go-sdk
// description, whole, commas included.
func Reflect(t reflect.Type) (map[string]any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	r := &jsonschema.Reflector{
		DoNotReference: true,
		ExpandedStruct: true,
		LookupComment:  goSDKDescription,
	}
	s := r.ReflectFromType(t)
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	delete(m, "$id")
	m["$schema"] = SchemaDialect
	return m, nil
}

// goSDKDescription is an invopop LookupComment hook that returns the go-sdk
// style description of a struct field (the whole `jsonschema` tag) when the tag
// is not in invopop's key=value syntax.
func goSDKDescription(t reflect.Type, fieldName string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return ""
	}
	f, ok := t.FieldByName(fieldName)
	if !ok {
		return ""
	}
	tag, ok := f.Tag.Lookup("jsonschema")
	if !ok || tag == "" || tag == "-" || isInvopopTag(tag) {
		return ""
	}
	return tag
}

// invopopKeywords are the bare (valueless) keywords of invopop's tag syntax.
var invopopKeywords = map[string]bool{
	"required": true, "nullable": true, "uniqueItems": true, "readOnly": true, "writeOnly": true,
}

func isInvopopTag(tag string) bool {
	for _, part := range strings.Split(tag, ",") {
		part = strings.TrimSpace(part)
		if invopopKeywords[part] {
			return true
		}
		if k, _, ok := strings.Cut(part, "="); ok && !strings.ContainsAny(k, " \t") {
			return true
		}
	}
	return false
}

// Infer returns a JSON Schema that every record in sample satisfies; see
// [Inferrer]. Records that are not valid JSON are skipped. An empty sample
// gives the empty schema {}, which any line satisfies.
func Infer(sample []json.RawMessage) map[string]any {
	var in Inferrer
	for _, rec := range sample {
		if json.Valid(rec) {
			in.Add(rec)
		}
	}
	return in.Schema()
}

// Inferrer infers the JSON Schema of a stream of records, one [Inferrer.Add]
// at a time, without decoding them: for object records, the union of their
// properties, each with the types seen, and as required the properties present
// in every record. Nested objects and array items are described the same way,
// down to a bounded depth. The zero value is ready to use. An Inferrer is not
// safe for concurrent use.
type Inferrer struct {
	root node
}

// Add describes one more record, which should be valid JSON. The record
// is validated as it is described; if it is not valid, the schema may not
// describe it, but Add does not panic.
func (in *Inferrer) Add(rec []byte) {
	in.AddFields(rec, nil)
}

// AddFields is [Inferrer.Add] that also calls field with each top-level
// member of an object record, so a caller that needs a few fields of every
// record gets them from the same walk.
func (in *Inferrer) AddFields(rec []byte, field func(key, value []byte)) {
	rec = bytes.TrimSpace(rec)
	w := walker{data: rec, field: field}
	w.value(&in.root, 0, 0)
}

// Element is a record as [Inferrer.AddElements] hands it over.
type Element struct {
	// Value is the record, byte for byte.
	Value []byte
	// Offset is where Value starts in the array's data.
	Offset int
	// Multiline is true when Value has a line break (white space between
	// tokens, the only place a valid record can have one), so that a caller
	// writing records as lines knows which need compacting.
	Multiline bool
	// ASCII is true when every byte of Value is below 0x80, so that a
	// caller counting characters knows it is the number of bytes.
	ASCII bool
}

// AddElements validates data, which must be a JSON array, exactly as
// [json.Valid] does (fuzzed against it), describes each element as a record,
// as [Inferrer.AddFields] does, and calls each with it after describing it.
// It reads data once: validating, describing and finding where each record
// ends are one walk, so that a caller checking a tool's output, measuring
// its records and inferring their schema reads it once.
//
// AddElements returns [ErrInvalidRecords] when data is not a valid JSON
// array, and otherwise stops at and returns the first error of each. In
// either case each may have been called, and the Inferrer may describe
// records, before the error was found: discard it.
func (in *Inferrer) AddElements(data []byte, field func(key, value []byte), each func(e Element) error) error {
	_, err := in.AddElementsUntil(data, -1, field, each)
	return err
}

// AddElementsUntil is [Inferrer.AddElements] for the elements of the array
// data that start before offset stop. It reports whether an element starts
// at stop, where it stops. When none does (stop was inside a string or a
// nested value, or past the end), it goes on as AddElements, to the end of
// data, and reports false.
//
// With [Inferrer.AddElementsFrom] on another Inferrer for the rest, and
// [Inferrer.Merge], it splits one walk over a large array into two that run
// at once; [SplitPoint] guesses a stop.
func (in *Inferrer) AddElementsUntil(data []byte, stop int, field func(key, value []byte), each func(e Element) error) (split bool, err error) {
	w := walker{data: data, field: field, outer: 1}
	i := w.space(0)
	if i >= len(data) || data[i] != '[' {
		return false, ErrInvalidRecords
	}
	i = w.space(i + 1)
	if i < len(data) && data[i] == ']' {
		if w.space(i+1) != len(data) {
			return false, ErrInvalidRecords
		}
		return false, nil
	}
	if i == stop {
		return true, nil
	}
	return in.elements(&w, i, stop, each)
}

// AddElementsFrom is [Inferrer.AddElements] for the elements of the array
// data from the one that starts at offset from to the end, where
// [Inferrer.AddElementsUntil] split it: from must be the start of an
// element, which AddElementsUntil confirms (until it does, an error or
// success of AddElementsFrom means nothing). Element offsets are offsets in
// data.
func (in *Inferrer) AddElementsFrom(data []byte, from int, field func(key, value []byte), each func(e Element) error) error {
	w := walker{data: data, field: field, outer: 1}
	_, err := in.elements(&w, from, -1, each)
	return err
}

// elements describes the elements of the array w.data from the one at
// offset i to the end, stopping before the one that starts at stop (and
// reporting true) if one does.
func (in *Inferrer) elements(w *walker, i, stop int, each func(e Element) error) (split bool, err error) {
	data := w.data
	for {
		w.ascii, w.multiline = true, false
		end := w.value(&in.root, i, 0)
		if end < 0 {
			return false, ErrInvalidRecords
		}
		if err := each(Element{data[i:end], i, w.multiline, w.ascii}); err != nil {
			return false, err
		}
		if i = w.space(end); i >= len(data) {
			return false, ErrInvalidRecords
		}
		switch data[i] {
		case ',':
			if i = w.space(i + 1); i == stop {
				return true, nil
			}
		case ']':
			if w.space(i+1) != len(data) {
				return false, ErrInvalidRecords
			}
			return false, nil
		default:
			return false, ErrInvalidRecords
		}
	}
}

// SplitPoint guesses where the JSON array data can be split for two walks
// at once (see [Inferrer.AddElementsUntil]): the offset, near the middle,
// of what looks like the start of an element, or -1 when it finds none. It
// looks for the first element's opening as written (for an object, up to
// and with its first key), after a comma. The guess is cheap and may be
// wrong: a string can hold anything.
func SplitPoint(data []byte) int {
	i := jsonscan.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return -1
	}
	first := jsonscan.SkipSpace(data, i+1)
	if first >= len(data) || data[first] != '{' {
		return -1 // only records that are objects have an opening to find
	}
	colon := bytes.IndexByte(data[first:min(len(data), first+maxSplitPrefix)], ':')
	if colon < 0 {
		return -1
	}
	prefix := data[first : first+colon+1]
	mid := len(data) / 2
	for from := mid; from < len(data); {
		k := bytes.Index(data[from:], prefix)
		if k < 0 {
			return -1
		}
		at := from + k
		j := at - 1
		for j > first && isSpace(data[j]) {
			j--
		}
		if data[j] == ',' {
			return at
		}
		from = at + 1
	}
	return -1
}

// maxSplitPrefix bounds the opening SplitPoint looks for.
const maxSplitPrefix = 64

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Merge adds what other describes to in, as if the records added to other
// had been added to in after its own. other must not be used afterwards.
func (in *Inferrer) Merge(other *Inferrer) { in.root.merge(&other.root) }

// merge adds what o describes to n, o's values seen after n's.
func (n *node) merge(o *node) {
	n.seen += o.seen
	n.types |= o.types
	n.objects += o.objects
	if o.props != nil {
		if n.props == nil {
			n.props = make(map[string]*node, len(o.props))
		}
		for i, k := range o.order {
			if p, ok := n.props[k]; ok {
				p.merge(o.nodes[i])
				continue
			}
			n.props[k] = o.nodes[i]
			n.order = append(n.order, k)
			n.nodes = append(n.nodes, o.nodes[i])
		}
	}
	if o.items != nil {
		if n.items == nil {
			n.items = o.items
		} else {
			n.items.merge(o.items)
		}
	}
}

// ErrInvalidRecords is returned by [Inferrer.AddElements] when the records
// are not a valid JSON array.
var ErrInvalidRecords = errors.New("descriptor: records are not a valid JSON array")

// Schema returns the schema of every record added so far.
func (in *Inferrer) Schema() map[string]any {
	s := in.root.schema()
	s["$schema"] = SchemaDialect
	return s
}

// node accumulates what is seen at one place in the records.
type node struct {
	seen    int              // values added
	types   typeSet          // JSON Schema types seen
	objects int              // object values added
	props   map[string]*node // properties of object values
	order   []string         // property names, first seen first
	nodes   []*node          // the nodes of order, in the same order
	items   *node            // elements of array values
}

// typeSet is a set of JSON Schema type names, one bit each.
type typeSet uint8

const (
	typeArray typeSet = 1 << iota
	typeBoolean
	typeInteger
	typeNull
	typeNumber
	typeObject
	typeString
)

// typeNames are the names of the bits of a typeSet, in bit order, which is
// alphabetical order.
var typeNames = [...]string{"array", "boolean", "integer", "null", "number", "object", "string"}

// walker validates and describes one record.
type walker struct {
	data  []byte
	field func(key, value []byte) // called with the members of an object record
	// outer is the number of arrays and objects open around the record in
	// the document, which count towards the nesting limit.
	outer int
	// multiline is set when white space with a line break is seen; ascii
	// is cleared when a string with a byte >= 0x80 is seen.
	multiline, ascii bool
}

// space returns the offset of the first byte at or after i that is not
// white space, noting line breaks.
func (w *walker) space(i int) int {
	data := w.data
	for i < len(data) {
		switch data[i] {
		case ' ', '\t':
		case '\n', '\r':
			w.multiline = true
		default:
			return i
		}
		i++
	}
	return i
}

// value validates and describes into n the JSON value that starts at
// data[i], depth levels into the record, and returns the offset just past
// it, or -1 when no valid value starts there. Each byte is read once.
// Values deeper than maxInferDepth are validated by jsonscan, not
// described. Validation is that of jsonscan.Valid: jsonscan checks strings,
// numbers and deep values, and this walk checks the rest of the grammar.
func (w *walker) value(n *node, i, depth int) int {
	data := w.data
	n.seen++
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case 'n':
		n.types |= typeNull
		return literal(data, i, "null")
	case 't':
		n.types |= typeBoolean
		return literal(data, i, "true")
	case 'f':
		n.types |= typeBoolean
		return literal(data, i, "false")
	case '"':
		n.types |= typeString
		end, ascii, _ := jsonscan.ValidString(data, i)
		w.ascii = w.ascii && ascii
		return end
	case '[':
		n.types |= typeArray
		if depth >= maxInferDepth {
			return w.deep(i, depth)
		}
		if w.outer+depth >= jsonscan.MaxDepth {
			return -1
		}
		if n.items == nil {
			n.items = &node{}
		}
		i = w.space(i + 1)
		if i < len(data) && data[i] == ']' {
			return i + 1
		}
		for {
			if i = w.value(n.items, i, depth+1); i < 0 {
				return -1
			}
			if i = w.space(i); i >= len(data) {
				return -1
			}
			switch data[i] {
			case ',':
				i = w.space(i + 1)
			case ']':
				return i + 1
			default:
				return -1
			}
		}
	case '{':
		n.types |= typeObject
		n.objects++
		if depth >= maxInferDepth {
			return w.deep(i, depth)
		}
		if w.outer+depth >= jsonscan.MaxDepth {
			return -1
		}
		if n.props == nil {
			n.props = map[string]*node{}
		}
		i = w.space(i + 1)
		if i < len(data) && data[i] == '}' {
			return i + 1
		}
		for member := 0; ; member++ {
			ke, ascii, escaped := jsonscan.ValidString(data, i)
			if ke < 0 {
				return -1
			}
			w.ascii = w.ascii && ascii
			key := data[i+1 : ke-1]
			if escaped {
				var s string
				if json.Unmarshal(data[i:ke], &s) != nil {
					return -1
				}
				key = []byte(s)
			}
			if i = w.space(ke); i >= len(data) || data[i] != ':' {
				return -1
			}
			vs := w.space(i + 1)
			ve := w.value(n.prop(key, member), vs, depth+1)
			if ve < 0 {
				return -1
			}
			if depth == 0 && w.field != nil {
				w.field(key, data[vs:ve])
			}
			if i = w.space(ve); i >= len(data) {
				return -1
			}
			switch data[i] {
			case ',':
				i = w.space(i + 1)
			case '}':
				return i + 1
			default:
				return -1
			}
		}
	default:
		end := jsonscan.ValidNumber(data, i)
		if end < 0 {
			return -1
		}
		// An integer unless it has a fraction or an exponent.
		t := typeInteger
		for _, c := range data[i:end] {
			if c == '.' || c == 'e' || c == 'E' {
				t = typeNumber
				break
			}
		}
		n.types |= t
		return end
	}
}

// deep validates the value at data[i], too deep to be described, and
// returns the offset just past it, or -1.
func (w *walker) deep(i, depth int) int {
	end, ascii := jsonscan.ValidValue(w.data, i, w.outer+depth)
	if end < 0 {
		return -1
	}
	w.ascii = w.ascii && ascii
	if bytes.IndexByte(w.data[i:end], '\n') >= 0 || bytes.IndexByte(w.data[i:end], '\r') >= 0 {
		w.multiline = true
	}
	return end
}

// literal returns the offset just past lit (null, true or false) at
// data[i], or -1 if lit is not there.
func literal(data []byte, i int, lit string) int {
	if i+len(lit) > len(data) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// prop returns the node of property key, the i-th member of an object.
// Records mostly list the same properties in the same order, so the i-th
// property seen first is tried before the map.
func (n *node) prop(key []byte, i int) *node {
	if i < len(n.order) && n.order[i] == string(key) {
		return n.nodes[i]
	}
	if p, ok := n.props[string(key)]; ok {
		return p
	}
	p := &node{}
	k := string(key)
	n.props[k] = p
	n.order = append(n.order, k)
	n.nodes = append(n.nodes, p)
	return p
}

func (n *node) schema() map[string]any {
	s := map[string]any{}
	if n.seen == 0 {
		return s
	}
	types := n.types
	if types&typeInteger != 0 && types&typeNumber != 0 {
		// Every integer is a number: say number once.
		types &^= typeInteger
	}
	var names []string
	for i, name := range typeNames {
		if types&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	if len(names) == 1 {
		s["type"] = names[0]
	} else if len(names) > 1 {
		s["type"] = names
	}
	if n.props != nil {
		props := make(map[string]any, len(n.props))
		var required []string
		for i, k := range n.order {
			p := n.nodes[i]
			props[k] = p.schema()
			if p.seen == n.objects {
				required = append(required, k)
			}
		}
		s["properties"] = props
		if len(required) > 0 {
			sort.Strings(required)
			s["required"] = required
		}
	}
	if n.items != nil && n.items.seen > 0 {
		s["items"] = n.items.schema()
	}
	return s
}

// ResponseSchema returns the JSON Schema of what offloading may put in a
// tool's structured content: an [OffloadResponse] as any profile serializes
// it (offloaded is true and file_path is set), or, when the file could not
// be written and the tool's own structured content cannot be shown in part,
// {"offloaded": false}. Tools that may return a descriptor advertise it in
// their output schema (see [WidenOutputSchema]). Each call returns a fresh
// value.
func ResponseSchema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	integer := func(desc string) map[string]any {
		return map[string]any{"type": "integer", "minimum": 0, "description": desc}
	}
	return map[string]any{
		"type":        "object",
		"description": "Large Result Offloading descriptor: the full result set was written to a JSONL file (line 1 a header, then one record per line).",
		"required":    []any{"offloaded"},
		"properties": map[string]any{
			"offloaded": map[string]any{"type": "boolean", "description": "True: the result was offloaded to file_path. False: writing the file failed and the text content holds a truncated result."},
			"summary": map[string]any{
				"type":     "object",
				"required": []any{"count", "estimated_tokens", "operation", "top_namespaces", "detail"},
				"properties": map[string]any{
					"count":            integer("Records in the file."),
					"estimated_tokens": integer("Estimated tokens of the full result set."),
					"operation":        str("Operation that produced the records."),
					"top_namespaces":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": 5},
					"score_range": map[string]any{
						"type": []any{"array", "null"}, "items": map[string]any{"type": "number"}, "minItems": 2, "maxItems": 2,
					},
					"detail": str("Detail level of the records."),
				},
			},
			"file_path":   str("Absolute path of the JSONL file."),
			"line_schema": map[string]any{"type": "object", "description": "JSON Schema of one record line."},
			"jq_recipes": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type":     "object",
					"required": []any{"description", "command"},
					"properties": map[string]any{
						"description": str("What the recipe does."),
						"command":     str("Shell command to run."),
					},
				},
			},
			"guidance": str("Advisory instructions for the assistant."),
			"beside": map[string]any{
				"type":        "object",
				"description": "What the result held besides its records, all of it kept in the file's header under \"result\".",
				"properties": map[string]any{
					"values":  map[string]any{"type": "object", "description": "Small values, by their jq path below the header's result."},
					"other":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
					"command": str("Prints them all."),
				},
			},
		},
		"if":   map[string]any{"properties": map[string]any{"offloaded": map[string]any{"const": true}}},
		"then": map[string]any{"required": []any{"file_path"}},
	}
}

// WidenOutputSchema returns an output schema that accepts both what schema
// accepts and an [OffloadResponse], so that clients validating structured
// content against a tool's advertised schema accept an offloaded result. A
// nil schema gives nil: a tool without an output schema needs none. $defs of
// schema are hoisted to the top so that its references still resolve.
func WidenOutputSchema(schema any) (map[string]any, error) {
	if schema == nil {
		return nil, nil
	}
	var orig map[string]any
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &orig); err != nil {
		return nil, err
	}
	if isWidened(orig) {
		return orig, nil
	}
	widened := map[string]any{}
	for _, k := range []string{"$defs", "definitions"} {
		if v, ok := orig[k]; ok {
			widened[k] = v
			delete(orig, k)
		}
	}
	if d, ok := orig["$schema"]; ok {
		widened["$schema"] = d
		delete(orig, "$schema")
	}
	if orig["type"] == "object" {
		widened["type"] = "object"
	}
	widened["anyOf"] = []any{orig, ResponseSchema()}
	// Round-trip once more so the result holds only JSON types (float64,
	// []any), whatever the input held: widening is idempotent.
	data, err = json.Marshal(widened)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func isWidened(s map[string]any) bool {
	branches, ok := s["anyOf"].([]any)
	if !ok || len(branches) != 2 {
		return false
	}
	last, ok := branches[1].(map[string]any)
	if !ok {
		return false
	}
	props, _ := last["properties"].(map[string]any)
	_, hasPath := props["file_path"]
	_, hasFlag := props["offloaded"]
	return hasPath && hasFlag
}
