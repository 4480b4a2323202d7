package offload

import (
	"cmp"
	"encoding/json"
	"fmt"
	pathpkg "path"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/rawjson"
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
	in.Warning = t.jq16.warning(in.Native)
	in.Beside, _ = besideOf(p, nil)
	in.ExpiresAt = c.expires()
	if c.Native && !c.remote() && c.ClientDir != "" {
		// lro_extract reads the file in Dir: the bare name.
		in.ToolPath = pathpkg.Base(in.Path)
	}
	var ls func() map[string]any // the line schema, to be trimmed
	if c.Profile == descriptor.ProfileFull || c.Profile == descriptor.ProfileNoRecipes {
		// The schema of the lines themselves, annotated from their Go type.
		reflected := reflectedSchema(call.RecordType)
		ls = func() map[string]any {
			s := t.schema.Schema()
			schema.Annotate(s, reflected, c.SchemaDescriptions)
			return s
		}
		raw := t.schema.AppendJSON(nil) // once, not with each encoding below
		if reflected != nil {
			var err error
			if raw, err = describe.Marshal(ls()); err != nil {
				return nil, err
			}
		}
		in.LineSchema = json.RawMessage(raw)
	}
	rs, isMemory := recipes.Select(recipes.Detail(in.Detail), t.sample)
	in.Recipes = describe.Recipes(rs)
	in.JqRecipes = describe.JqRecipes(in.Path, in.Recipes) // once, not with each encoding below
	fields := recipes.Projection(rs)                       // what a preview shows of each record
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
	// encode returns the descriptor of in and its tokens. What is saved is
	// what the client would have received inline less the descriptor twice
	// (text and structured content) and the link.
	encode := func(in describe.Input, profile descriptor.Profile) ([]byte, int, error) {
		in.Saved = inline
		data, err := describe.Build(&in, describe.Profile(profile))
		if err != nil {
			return nil, 0, err
		}
		if profile != descriptor.ProfileBarePointer { // with a guidance
			saved := inline - 2*c.Tokenizer.Tokens(data) - linkTokens
			if data, err = describe.Resaved(data, &in, describe.Profile(profile), saved); err != nil {
				return nil, 0, err
			}
		}
		return data, c.Tokenizer.Tokens(data), nil
	}
	// The preview, of fewer records, then none, while the descriptor fits.
	limit := min(c.Threshold, maxDescriptorTokens)
	count := p.count()
	n := min(c.preview(), count)
	var ps *previews
	if n > 0 && c.Profile != descriptor.ProfileBarePointer {
		ps = newPreviews(t, count, n, fields, cmp.Or(in.Noun, p.noun()))
	}
	// withPreview returns the descriptor of in with the preview of n records
	// when there is one and it fits, else nil.
	withPreview := func(in describe.Input, profile descriptor.Profile, n int) ([]byte, error) {
		if in.Preview = ps.take(n); in.Preview == nil {
			return nil, nil
		}
		d, tokens, err := encode(in, profile)
		if err != nil || tokens > limit {
			return nil, err
		}
		return d, nil
	}
	if _, ok := c.Tokenizer.(Heuristic); ok && ps != nil {
		// The descriptor with the whole preview mostly fits: it is made
		// first. When it fits, so does the one without it (the heuristic
		// counts no more tokens of fewer bytes), which fit would then
		// return as it is, and the loop below would return this one.
		if d, err := withPreview(in, c.Profile, n); d != nil || err != nil {
			return d, err
		}
	}
	// The beside within maxBesideTokens, or nil when it is already.
	bounded := func() *describe.Beside {
		used := 0
		b, left := besideOf(p, func(entry []byte) bool {
			n := c.Tokenizer.Tokens(entry)
			if used+n > maxBesideTokens {
				return false
			}
			used += n
			return true
		})
		if !left {
			return nil
		}
		return b
	}
	in, profile, data, err := c.fit(in, t, ls, bounded, encode)
	if err != nil || profile == descriptor.ProfileBarePointer || ps == nil {
		return data, err
	}
	for ; n > 0; n-- { // fewer records while a preview has any
		if d, err := withPreview(in, profile, n); d != nil || err != nil {
			return d, err
		}
	}
	return data, nil
}

// fit returns the descriptor of in, built with encode, and in and the
// profile it was built with: as it is; with the line schema trimmed; or, still
// too large, the bare pointer. It is kept within the threshold whenever all of
// it but the line schema fits there once its beside is bounded, and within
// maxDescriptorTokens always. bounded returns the beside within
// maxBesideTokens, or nil when it is already.
func (c *Config) fit(in describe.Input, t *tally, lineSchema func() map[string]any, bounded func() *describe.Beside, encode func(describe.Input, descriptor.Profile) ([]byte, int, error)) (describe.Input, descriptor.Profile, []byte, error) {
	data, tokens, err := encode(in, c.Profile)
	if err != nil {
		return in, c.Profile, data, err
	}
	schemaTokens := 0
	if lineSchema != nil {
		schemaTokens = c.Tokenizer.Tokens(in.LineSchema.(json.RawMessage))
	}
	limit, rest := maxDescriptorTokens, tokens-schemaTokens
	if rest >= c.Threshold && in.Beside != nil {
		// What the result holds besides its records (long names, values
		// of escapes) bounded, when the rest then fits the threshold.
		if b := bounded(); b != nil {
			less := in
			less.Beside = b
			d, n, err := encode(less, c.Profile)
			if err != nil {
				return in, c.Profile, d, err
			}
			if n-schemaTokens < c.Threshold {
				in, data, tokens, rest = less, d, n, n-schemaTokens
			}
		}
	}
	if lineSchema != nil {
		if rest < c.Threshold {
			limit = min(c.Threshold, maxDescriptorTokens)
		}
	}
	if tokens <= limit {
		return in, c.Profile, data, err
	}
	if lineSchema != nil {
		// The schema trimmed, so that the recipes stay.
		schema := lineSchema()
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
	data, err = describe.Build(&in, describe.BarePointer)
	return in, descriptor.ProfileBarePointer, data, err
}

// maxDescriptorTokens bounds a descriptor, about three times the largest of
// the profiles on ordinary records.
const maxDescriptorTokens = 4096

// preview returns how many records the descriptor previews.
func (c *Config) preview() int {
	return min(max(cmp.Or(c.Preview, DefaultPreview), 0), MaxPreview)
}

// expires returns when a file written now expires, in RFC 3339 to the
// second, rounded down (the expiry recorded at the commit is later); "" when
// the TTL is not known.
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

// noun names the records of p in a preview's note.
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

// The bounds of what the descriptor shows beside the records, so that it
// stays small whatever the result holds.
const (
	maxShownChars  = 80
	maxShownDigits = 32
	maxShownValues = 8
	// maxBesideTokens bounds the tokens of the values and parts shown when
	// the descriptor would otherwise pass the threshold: those beyond it
	// (long member names, values of escapes) are counted, not shown. About
	// twice the largest in the real shapes (543 bytes).
	maxBesideTokens = 256
)

// besideValue is a part of the result kept beside the records, for the
// descriptor.
type besideValue struct {
	path string // jq path below .result
	raw  []byte // the value as written, for a small scalar
	what string // otherwise, what it is
}

// besideOf returns what the descriptor says of the parts of the result kept
// beside the records, or nil. When fits is not nil, a value or part is shown
// only if fits reports so of its JSON, else counted; left reports that one
// was.
func besideOf(p *plan, fits func(entry []byte) bool) (_ *describe.Beside, left bool) {
	if len(p.beside) == 0 {
		return nil, false
	}
	b := &describe.Beside{}
	var values, entry []byte
	shown, more := 0, 0
	for _, v := range p.beside {
		switch {
		case v.raw != nil && shown < maxShownValues:
			entry = append(append(append(entry[:0], ','), rawjson.AppendQuote(nil, v.path)...), ':')
			if entry = append(entry, v.raw...); fits != nil && !fits(entry) {
				more, left = more+1, true
				continue
			}
			values = append(values, entry...)
			shown++
		case len(b.Other) < maxShownValues:
			what := v.what
			if v.raw != nil {
				what = describeKind(v.raw)
			}
			if fits != nil && !fits(rawjson.AppendQuote(entry[:0], v.path+": "+what)) {
				more, left = more+1, true
				continue
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
	return b, left
}

// besideMembers returns the members of the object document of ru other than
// its records.
func besideMembers(path string, ru *run) []besideValue {
	var out []besideValue
	for _, m := range ru.members { // none unless the records are a member
		if m.end != ru.end { // not the records
			out = append(out, describeValue(path+describe.JQKey(m.name), ru.doc[m.start:m.end]))
		}
	}
	return out
}

// describeValue returns v when it is a small scalar, else what it is.
func describeValue(path string, v []byte) besideValue {
	switch jsontext.Value(v).Kind() {
	case 'n', 't', 'f':
		return besideValue{path: path, raw: v}
	case '0':
		if len(v) <= maxShownDigits && !decodable(string(v)) {
			return besideValue{path: path, raw: rawjson.AppendQuote(nil, string(v))} // as its text: clients fail on it
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

// describeText returns a short text, else what it is.
func describeText(path, text string) besideValue {
	if n := utf8.RuneCountInString(text); n > maxShownChars {
		return besideValue{path: path, what: fmt.Sprintf("string of %d characters", n)}
	}
	return besideValue{path: path, raw: rawjson.AppendQuote(nil, text)}
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

// RemoteClientDir is the folder of file_path for a file in a bucket when
// ClientDir is empty.
const RemoteClientDir = "/tmp"

// clientPath returns the path of the file of w as the client sees it: in
// ClientDir, when set; for a file in a bucket, where a client that downloads
// it would keep it, named without the handle's random part, which would cost
// tokens in each recipe.
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
