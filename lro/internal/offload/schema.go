package offload

import (
	"bytes"
	"fmt"
	"iter"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/lro/internal/describe"
	"github.com/zircote/lro-go/lro/internal/schema"
)

// trimmings yields the encodings of line schemas trimmed from schema that fit
// in room tokens, most detailed first: objects and arrays from each depth
// down described by their type alone, the deepest first; then the record's
// properties halved in turn (see rankNames); then the record's type alone.
// Each says in a "$comment" what it leaves out.
func trimmings(schema map[string]any, order []string, room int, fits func([]byte) bool) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		ranked := rankNames(schema, order)
		// try yields the trimming if it fits, and reports whether to go on.
		try := func(depth, width int) bool {
			t := trimmer{depth: depth, width: width, ranked: ranked}
			s := t.trim(schema, "", 0)
			s["$comment"] = t.comment()
			raw, err := describe.Marshal(s)
			return err != nil || !fits(raw) || yield(raw)
		}
		for depth := schemaDepth(schema) - 1; depth >= 1; depth-- {
			if !try(depth, -1) {
				return
			}
		}
		// A width of more properties than room has tokens is not tried, so
		// that records of very many properties cost them about once.
		for width := len(ranked) / 2; width > 0; width /= 2 {
			if width <= room && !try(1, width) {
				return
			}
		}
		try(0, -1)
	}
}

// rankNames returns the names of the record's properties in the order a
// trimming keeps them: the required ones first, each group in the order of
// order (the first record's names), then by name.
func rankNames(schema map[string]any, order []string) []string {
	props, _ := schema["properties"].(map[string]any)
	required, _ := schema["required"].([]string)
	isRequired := make(map[string]bool, len(required))
	for _, name := range required {
		isRequired[name] = true
	}
	names := make([]string, 0, len(props))
	seen := make(map[string]bool, len(order))
	for _, name := range order {
		if _, ok := props[name]; ok && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	inOrder := len(names)
	for name := range props {
		if !seen[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names[inOrder:])
	ranked := make([]string, 0, len(names))
	for _, want := range []bool{true, false} {
		for _, name := range names {
			if isRequired[name] == want {
				ranked = append(ranked, name)
			}
		}
	}
	return ranked
}

// schemaDepth returns how many levels of properties and items schema
// describes.
func schemaDepth(schema map[string]any) int {
	d := 0
	if props, ok := schema["properties"].(map[string]any); ok {
		for _, p := range props {
			if ps, ok := p.(map[string]any); ok {
				d = max(d, 1+schemaDepth(ps))
			}
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		d = max(d, 1+schemaDepth(items))
	}
	return d
}

// trimmer trims a line schema below depth, and to width properties of the
// record when width is not negative.
type trimmer struct {
	depth, width int
	ranked       []string // names of the record's properties, the first kept first (rankNames)
	cut          string   // the jq path of the first object or array described by its type alone
	unnamed      int      // properties of the record not named
	more         bool     // the record has more properties than its schema names (schema.Inferrer's bound)
	named        int      // properties of the record named
}

// trim returns a copy of s, the schema at the jq path path, depth levels
// into the record, trimmed.
func (t *trimmer) trim(s map[string]any, path string, depth int) map[string]any {
	out := make(map[string]any, len(s))
	for k, v := range s {
		if k != "properties" && k != "required" && k != "items" {
			out[k] = v
		}
	}
	items, hasItems := s["items"].(map[string]any)
	props, hasProps := s["properties"].(map[string]any)
	if depth >= t.depth {
		if t.cut == "" && (s["properties"] != nil || s["items"] != nil) {
			t.cut = path
		}
		return out
	}
	if hasItems {
		out["items"] = t.trim(items, path+"[]", depth+1)
	}
	if !hasProps {
		return out
	}
	required, _ := s["required"].([]string)
	isRequired := make(map[string]bool, len(required))
	for _, name := range required {
		isRequired[name] = true
	}
	var names []string
	if depth == 0 && t.width >= 0 && len(t.ranked) > t.width {
		t.unnamed = len(t.ranked) - t.width
		names = t.ranked[:t.width]
	} else {
		names = slices.Sorted(maps.Keys(props)) // the same example path in the comment every time
	}
	if depth == 0 {
		t.named = len(names)
		t.more = s["additionalProperties"] == true
	}
	kept := make(map[string]any, len(names))
	var keptRequired []string
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		kept[name] = t.trim(p, path+describe.JQKey(name), depth+1)
		if isRequired[name] {
			keptRequired = append(keptRequired, name)
		}
	}
	out["properties"] = kept
	if len(keptRequired) > 0 {
		out["required"] = keptRequired
	}
	return out
}

// memberNames returns the names of the members of the object rec, in order,
// up to the last that props holds, so that a record of very many members is
// read no further.
func memberNames(rec []byte, props map[string]any) []string {
	var names []string
	dec := jsontext.NewDecoder(bytes.NewReader(rec), rawjson.DecodeOptions...)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil
	}
	found := map[string]bool{}
	for len(found) < len(props) && dec.PeekKind() == '"' {
		tok, err := dec.ReadToken()
		if err != nil {
			break
		}
		name := tok.String()
		if _, ok := props[name]; ok {
			found[name] = true
		}
		names = append(names, name)
		if err := dec.SkipValue(); err != nil {
			break
		}
	}
	return names
}

// comment says what the trimming left out.
func (t *trimmer) comment() string {
	var b strings.Builder
	b.WriteString("Trimmed to keep the descriptor small:")
	switch {
	case t.depth == 0:
		b.WriteString(" the records' contents are not described.")
	case t.cut != "":
		levels := "levels"
		if t.depth == 1 {
			levels = "level"
		}
		fmt.Fprintf(&b, " objects and arrays %d %s into a record (such as %s) are described by their type alone.", t.depth, levels, t.cut)
	}
	switch {
	case t.unnamed > 0 && t.more:
		fmt.Fprintf(&b, " %d of the record's more than %d properties are named, required ones first; the others are allowed and not described.", t.named, t.named+t.unnamed)
	case t.unnamed > 0:
		fmt.Fprintf(&b, " %d of the record's %d properties are named, required ones first; the others are allowed and not described.", t.named, t.named+t.unnamed)
	}
	b.WriteString(" Line 2 of the file is a whole record.")
	return b.String()
}

var reflectedSchemas sync.Map // reflect.Type -> map[string]any

// reflectedSchema returns the schema of the struct type t (through
// pointers), reflected once, or nil. It is only read.
func reflectedSchema(t reflect.Type) map[string]any {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	if s, ok := reflectedSchemas.Load(t); ok {
		return s.(map[string]any)
	}
	s, _ := schema.Reflect(t) // nil when it fails
	reflectedSchemas.Store(t, s)
	return s
}
