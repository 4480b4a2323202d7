package offload

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	pathpkg "path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/internal/describe"
	"github.com/zircote/lro-go/lro/internal/schema"
	"github.com/zircote/lro-go/recipes"
)

// describe returns the JSON of the descriptor of a written file, which the
// resource link, when not nil, follows.
func (c *Config) describe(in describe.Input, call Call, t *tally, p *plan, link *mcp.ResourceLink) ([]byte, error) {
	if p.scores != nil {
		t.scores = 0
		for _, s := range p.scores {
			t.addScore(s)
		}
	}
	in.TopNamespaces = t.topNamespaces()
	in.ScoreRange = t.scoreRange()
	in.Native, in.ByHandle = c.Native || c.remote(), c.remote()
	in.Warning = p.jq16.warning(in.Native)
	in.Beside = besideOf(p)
	in.ExpiresAt = c.expires()
	if c.Native && !c.remote() && c.ClientDir != "" {
		// lro_extract reads the file in Dir, where the client's path does
		// not lead; it takes the bare name too.
		in.ToolPath = pathpkg.Base(in.Path)
	}
	var ls map[string]any
	if c.Profile == descriptor.ProfileFull || c.Profile == descriptor.ProfileNoRecipes {
		// The schema of the lines themselves, annotated from their Go type.
		ls = t.schema.Schema()
		schema.Annotate(ls, reflectedSchema(call.RecordType), c.SchemaDescriptions)
		raw, err := describe.Marshal(ls) // once, not with each encoding below
		if err != nil {
			return nil, err
		}
		in.LineSchema = json.RawMessage(raw)
	}
	var isMemory bool
	var fields [][]string // what a preview shows of each record
	var rs []recipes.Recipe
	rs, isMemory = recipes.Select(recipes.Detail(in.Detail), t.sample)
	in.Recipes, fields = describe.Recipes(rs), recipes.Projection(rs)
	if isMemory {
		in.Noun = "memories"
	}
	inline := cmp.Or(p.inline, p.tokens)
	linkTokens := 0
	if link != nil {
		l, err := json.Marshal(link)
		if err != nil {
			return nil, err
		}
		linkTokens = c.Tokenizer.Tokens(l)
	}
	// encode returns the descriptor of in and its size in tokens. What is
	// saved is what the client would have received inline less what it
	// receives instead: the descriptor twice (as the text item and as the
	// structured content) and the resource link, measured with the first
	// estimate in its guidance.
	encode := func(in describe.Input, profile descriptor.Profile) ([]byte, int, error) {
		in.Saved = inline
		data, err := describe.Build(&in, describe.Profile(profile))
		if err != nil {
			return nil, 0, err
		}
		if profile != descriptor.ProfileBarePointer { // with a guidance
			in.Saved = inline - 2*c.Tokenizer.Tokens(data) - linkTokens
			if data, err = describe.Build(&in, describe.Profile(profile)); err != nil {
				return nil, 0, err
			}
		}
		return data, c.Tokenizer.Tokens(data), nil
	}
	// The preview, of fewer records, then none, while the descriptor
	// stays within the threshold (and the bound of every descriptor).
	limit := min(c.Threshold, maxDescriptorTokens)
	count := p.count()
	n := min(c.preview(), count)
	var ps *previews
	if n > 0 && c.Profile != descriptor.ProfileBarePointer {
		noun := p.noun()
		if in.Noun == "memories" {
			noun = in.Noun
		}
		ps = newPreviews(t, count, n, fields, noun)
	}
	if _, ok := c.Tokenizer.(Heuristic); ok && ps != nil {
		// The descriptor with the whole preview mostly fits: it is made
		// first. When it fits, so does the one without it (the heuristic
		// counts no more tokens of fewer bytes), which fit would then
		// return as it is, and the loop below would return this one.
		if whole := ps.take(n); whole != nil {
			with := in
			with.Preview = whole
			d, tokens, err := encode(with, c.Profile)
			if err != nil {
				return nil, err
			}
			if tokens <= limit {
				return d, nil
			}
		}
	}
	in, profile, data, err := c.fit(in, t, ls, encode)
	if err != nil || profile == descriptor.ProfileBarePointer || ps == nil {
		return data, err
	}
	for ; n > 0; n-- {
		if in.Preview = ps.take(n); in.Preview == nil {
			break
		}
		d, tokens, err := encode(in, profile)
		if err != nil {
			return nil, err
		}
		if tokens <= limit {
			return d, nil
		}
	}
	return data, nil
}

// fit returns the descriptor of in within the threshold when all of it but
// the line schema fits there, else within maxDescriptorTokens, built with
// encode, and in and the profile it was built with: as it is; with the
// line schema (schema, when not nil) trimmed; or, still too large, the
// bare pointer.
func (c *Config) fit(in describe.Input, t *tally, schema map[string]any, encode func(describe.Input, descriptor.Profile) ([]byte, int, error)) (describe.Input, descriptor.Profile, []byte, error) {
	data, tokens, err := encode(in, c.Profile)
	if err != nil {
		return in, c.Profile, data, err
	}
	// The descriptor is kept within the threshold whenever all of it but
	// the line schema fits there (not under a threshold too small for any
	// descriptor), and within maxDescriptorTokens always.
	limit, rest := maxDescriptorTokens, tokens
	if schema != nil {
		rest -= c.Tokenizer.Tokens(in.LineSchema.(json.RawMessage))
		if rest < c.Threshold {
			limit = min(c.Threshold, maxDescriptorTokens)
		}
	}
	if tokens <= limit {
		return in, c.Profile, data, err
	}
	if schema != nil {
		// Too large with the whole line schema (records of many nested
		// objects or of many properties): the schema trimmed, so that the
		// recipes stay.
		room := limit - rest
		var first []byte
		if len(t.sample) > 0 {
			first = t.sample[0]
		}
		fits := func(s []byte) bool { return c.Tokenizer.Tokens(s) <= room }
		props, _ := schema["properties"].(map[string]any)
		for trimmed := range trimmings(schema, memberNames(first, props), room, fits) {
			in.LineSchema = json.RawMessage(trimmed)
			if data, tokens, err = encode(in, c.Profile); err != nil || tokens <= limit {
				return in, c.Profile, data, err
			}
		}
	}
	// Still too large (names or values too long to show in the recipes or
	// the summary): the bare pointer.
	data, err = describe.Build(&in, describe.BarePointer)
	return in, descriptor.ProfileBarePointer, data, err
}

// preview returns how many records the descriptor previews: Preview, or
// DefaultPreview when it is zero, or none when it is negative.
func (c *Config) preview() int {
	switch {
	case c.Preview < 0:
		return 0
	case c.Preview == 0:
		return DefaultPreview
	}
	return min(c.Preview, MaxPreview)
}

// expires returns when a file written now expires, in RFC 3339 to the
// second, rounded down: the expiry recorded once it is written is later.
// It is "" when the TTL is not known.
func (c *Config) expires() string {
	ttl := c.TTL
	if ttl <= 0 && c.Store != nil {
		ttl = c.Store.TTL()
	}
	if ttl <= 0 {
		return ""
	}
	return c.Now().Add(ttl).UTC().Truncate(time.Second).Format(time.RFC3339)
}

// noun names the records of p in a preview's note: lines of text, rows
// of a table, or records.
func (p *plan) noun() string {
	noun := ""
	for _, ru := range p.runs {
		n := "records"
		switch ru.As {
		case asLines:
			n = "lines"
		case asArray, asValue:
		default:
			n = "rows"
		}
		if noun != "" && noun != n {
			return "records"
		}
		noun = n
	}
	return cmp.Or(noun, "records")
}

// maxDescriptorTokens bounds a descriptor, about three times the largest of
// the profiles on ordinary records.
const maxDescriptorTokens = 4096

// trimmings yields the encodings of line schemas trimmed from schema that
// fit, within room tokens, most detailed first: schema with the objects and arrays from each
// depth down, the deepest first, described by their type alone; then with
// the record's properties halved in turn, the required ones first, each
// group in the order of order (the first record's names), then by name;
// then the record's type alone. Each validates every line schema does, and
// says in a "$comment" what it leaves out.
func trimmings(schema map[string]any, order []string, room int, fits func([]byte) bool) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		ranked := rankNames(schema, order)
		// try yields the trimming to depth and width if it fits, and
		// reports whether to go on.
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
		// The names are ranked once; each try encodes only those it keeps,
		// and a width of more properties than room has tokens (each takes
		// more than one) is not tried, so that records of very many
		// properties cost them about once.
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
// order (the first record's names), then by name. It sorts only the names
// that order does not hold, so that records of very many properties cost
// one pass and one sort.
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

// trimmer trims a line schema: below depth, objects and arrays are
// described by their type alone; the record's properties beyond width,
// when width is not negative, are not named.
type trimmer struct {
	depth, width int
	ranked       []string // names of the record's properties, the first kept first (rankNames)
	cut          string   // the jq path of the first object or array described by its type alone
	unnamed      int      // properties of the record not named
	more         bool     // the record has more properties than its schema names (schema.Inferrer's bound)
	named        int      // properties of the record named
}

// trim returns a copy of s, the schema of the values at the jq path path,
// depth levels into the record, trimmed.
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

// memberNames returns the names of the members of rec, in order, when it
// is an object, up to the last that props holds: the names a ranking of
// props needs, so that a record of very many members whose schema names
// some (schema.Inferrer's bound) is read that far.
func memberNames(rec []byte, props map[string]any) []string {
	var names []string
	dec := jsontext.NewDecoder(bytes.NewReader(rec), decodeOptions...)
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

// comment says what the trimming left out, and where to see it.
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

// The bounds of what the descriptor shows beside the records: strings and
// numbers longer are named, and values beyond maxShownValues (and as many
// named) are counted, so that it stays small whatever the result holds.
const (
	maxShownChars  = 80
	maxShownDigits = 32
	maxShownValues = 8
)

// besideOf returns what the descriptor says of the parts of the result kept
// beside the records, or nil when there are none.
func besideOf(p *plan) *describe.Beside {
	if len(p.beside) == 0 {
		return nil
	}
	b := &describe.Beside{}
	var values []byte
	shown, more := 0, 0
	for _, v := range p.beside {
		switch {
		case v.raw != nil && shown < maxShownValues:
			values = append(append(values, ','), quote(v.path)...)
			values = append(append(values, ':'), v.raw...)
			shown++
		case len(b.Other) < maxShownValues:
			what := v.what
			if v.raw != nil {
				what = describeKind(v.raw)
			}
			b.Other = append(b.Other, v.path+": "+what)
		default:
			more++
		}
	}
	if values != nil {
		values[0] = '{'
		b.Values = json.RawMessage(append(values, '}'))
	}
	if more > 0 {
		b.Other = append(b.Other, fmt.Sprintf("and %d more", more))
	}
	return b
}

// besideMembers returns the members of the object document of ru other than
// its records, each below path.
func besideMembers(path string, ru *run) []besideValue {
	if !ru.member {
		return nil
	}
	var out []besideValue
	ms, _ := members(ru.doc)
	for _, m := range ms {
		if m.end != ru.end { // not the records
			out = append(out, describeValue(path+describe.JQKey(m.name), ru.doc[m.start:m.end]))
		}
	}
	return out
}

// describeValue returns v itself when it is a small scalar, else what it is.
func describeValue(path string, v []byte) besideValue {
	switch jsontext.Value(v).Kind() {
	case 'n', 't', 'f':
		return besideValue{path: path, raw: v}
	case '0':
		if len(v) <= maxShownDigits && !decodable(string(v)) {
			return besideValue{path: path, raw: quote(string(v))} // as its text: clients fail on it
		}
		if len(v) <= maxShownDigits {
			return besideValue{path: path, raw: v}
		}
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil && utf8.RuneCountInString(s) <= maxShownChars {
			return besideValue{path: path, raw: v}
		}
	}
	return besideValue{path: path, what: describeKind(v)}
}

// describeText returns a text item's text when it is short, else what it is.
func describeText(path, text string) besideValue {
	if n := utf8.RuneCountInString(text); n > maxShownChars {
		return besideValue{path: path, what: fmt.Sprintf("string of %d characters", n)}
	}
	return besideValue{path: path, raw: quote(text)}
}

// describeKind says what the JSON value v is, in a few words.
func describeKind(v []byte) string {
	n := 0
	switch jsontext.Value(v).Kind() {
	case '[':
		_ = eachElement(v, func([]byte) error { n++; return nil })
		return fmt.Sprintf("array of %d", n)
	case '{':
		ms, _ := members(v)
		return fmt.Sprintf("object of %d members", len(ms))
	case '"':
		var s string
		_ = json.Unmarshal(v, &s)
		return fmt.Sprintf("string of %d characters", utf8.RuneCountInString(s))
	}
	return fmt.Sprintf("%d bytes of JSON", len(v))
}

var reflectedSchemas sync.Map // reflect.Type -> map[string]any

// reflectedSchema returns the schema of records of Go type t, a struct type
// (through pointers), reflected once and cached, which annotates the line
// schema; nil for another type or one that cannot be reflected. It is only
// read.
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

// RemoteClientDir is the folder of a descriptor's file_path for a file kept
// in a bucket when ClientDir is empty: where a client that downloads the
// object would keep it.
const RemoteClientDir = "/tmp"

// clientPath returns the path of the file of w as the client sees it: in
// ClientDir, when set, under the same name; for a file in a bucket, where
// a client that downloads it would keep it, under the specification's name
// without the handle's random part, which would cost tokens in each recipe
// (the handle stays in the descriptor's handle).
func (c *Config) clientPath(w *jsonl.Writer) string {
	switch {
	case c.remote():
		name := pathpkg.Base(w.Path())
		if op, id, ok := disk.ParseName(name, c.Store.Prefix()); ok {
			name = disk.Name(c.Store.Prefix(), op, id)
		}
		return pathpkg.Join(cmp.Or(c.ClientDir, RemoteClientDir), name)
	case c.ClientDir == "":
		return w.Path()
	}
	return pathpkg.Join(c.ClientDir, filepath.Base(w.Path()))
}
