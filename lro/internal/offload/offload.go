package offload

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/internal/redact"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/recipes"
)

// SampleSize is how many leading record lines of a file its recipes are
// made from, by the descriptor and by lro_extract alike.
const SampleSize = 16

// Config is one offloading configuration with every default applied. It is
// read-only once made and safe for concurrent use.
type Config struct {
	Threshold     int                       // offload when the estimate is above it
	Dir           string                    // absolute output folder
	Prefix        string                    // first part of file names
	SchemaVersion string                    // the header's schema_version
	Profile       descriptor.Profile        // which descriptor fields to carry
	Tokenizer     estimate.Tokenizer        // never nil
	Observer      event.Observer            // may be nil
	Now           func() time.Time          // never nil
	WrapWriter    func(io.Writer) io.Writer // fault injection; may be nil
	RecordsField  string                    // the array member that holds the records; "" finds it
	Native        bool                      // the guidance points to the extraction tools, not the shell
	Always        bool                      // offload every result, whatever its size
	ClientDir     string                    // Dir as the client sees it, for the descriptor's paths; "" means Dir
	// Preview is how many records the descriptor previews (up to
	// MaxPreview): if zero, DefaultPreview; if negative, none.
	Preview int
	// SchemaDescriptions gives the line schema the descriptions of the
	// record type's fields.
	SchemaDescriptions bool
	// Store, if not nil, is where files are written instead of Dir, under
	// names that are handles (Dir, Prefix and WrapWriter are then not
	// used). For a bucket store (Store.Bucket() != nil), file_path is where a
	// client that downloads the object keeps it (see clientPath), and the
	// guidance is the native one, by handle.
	Store *store.Store
	// TTL is how long a file lives once complete: a file in a folder
	// records its expiry, Now() + TTL at the commit (disk.RecordExpiry).
	// A Store records the expiry itself.
	TTL time.Duration
	// Create starts the file of an operation; if nil, a file in Dir. For
	// fault injection. Not used with a Store.
	Create func(operation string) (*jsonl.Writer, error)
	// Redactor, if not nil, replaces the credentials of a result to be
	// offloaded by markers, before anything reads it (see redactResult).
	Redactor *redact.Redactor
	// Accepts, if not nil, reports whether the tool's output schema accepts
	// a fallback's structured content, the tool's own with fewer records
	// (which a minItems may refuse); when it does not, the fallback sends
	// {"offloaded":false} instead.
	Accepts func(structured []byte) bool
}

// New returns c with every default applied: Threshold [spec.DefaultThreshold],
// Prefix the Store's or [spec.DefaultPrefix], Tokenizer
// [Heuristic] and Now [time.Now]. It checks nothing: its callers
// validate their options.
func New(c Config) *Config {
	c.Threshold = cmp.Or(c.Threshold, spec.DefaultThreshold)
	if c.Prefix == "" {
		c.Prefix = spec.DefaultPrefix
		if c.Store != nil {
			c.Prefix = c.Store.Prefix()
		}
	}
	if c.Tokenizer == nil {
		c.Tokenizer = Heuristic{}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return &c
}

// Heuristic is the default [estimate.Tokenizer]: [estimate.Tokens], which
// the engine also calls on a string without copying it.
type Heuristic struct{}

// Tokens returns estimate.Tokens of b, without copying b.
func (Heuristic) Tokens(b []byte) int {
	return estimate.Tokens(rawjson.String(b)) // read only
}

// Outcome is what [Config.Apply] did with a result.
type Outcome struct {
	Offloaded  bool   // the result was written to a file and is now its descriptor
	Fallback   bool   // the file could not be written: the result is now truncated, with a warning
	Descriptor []byte // when Offloaded, the descriptor's JSON: the structured content and first text item
	Path       string // when Offloaded, the file's path; "" for an object in a bucket
	Handle     string // when Offloaded to a Store, the file's handle
}

// Changed reports whether Apply rewrote the result: offloaded it, or fell
// back.
func (o Outcome) Changed() bool { return o.Offloaded || o.Fallback }

// Call is what the header and the descriptor record of the call.
type Call struct {
	Tool       string         // the tool's name
	Operation  string         // for the header and file name; "" means Tool
	Query      *string        // the header's query, nil for none
	Detail     recipes.Detail // detail level of the records
	RecordType reflect.Type   // the Go type of one record, when known: it annotates the line schema
}

// Set is a full result set handed over beside the handler's own result
// (lro.Provide): when it is above the threshold, it is offloaded and the
// handler's own result is discarded.
type Set struct {
	Records    [][]byte     // each one JSON value
	Scores     []float64    // the records' scores, for the summary; nil for none
	RecordType reflect.Type // the records' Go type, when known
}

// Apply evaluates res against the threshold and, above it, offloads it and
// rewrites its Content and StructuredContent (then a json.RawMessage or nil).
// describe is called only when the result is offloaded. structured is the
// JSON of res.StructuredContent when the caller has it, else nil; set is the
// full result set handed over with Provide, or nil. Errors and results that
// are not complete (input requests) are never touched.
func (c *Config) Apply(ctx context.Context, describe func() Call, res *mcp.CallToolResult, structured []byte, set *Set) Outcome {
	if res == nil || res.IsError || res.InputRequests != nil || res.NeedsInput() || res.RequestState != "" {
		return Outcome{}
	}
	var redacted redact.Counts // what redactResult and redactSet redacted
	describeCall := func() Call {
		call := describe()
		call.Operation = cmp.Or(call.Operation, call.Tool)
		c.redactCall(&call, redacted)
		return call
	}
	if set != nil {
		if o, ok := c.applySet(ctx, describeCall, res, structured, set, &redacted); ok {
			return o
		}
	}
	r, tokens, err := c.read(res, structured, false)
	if err != nil || !c.above(tokens) {
		return Outcome{}
	}
	redacted = c.redactResult(r)
	p, err := c.plan(ctx, r)
	if p != nil {
		p.redacted, p.tokens = redacted, tokens
	}
	if ctx.Err() != nil && p != nil {
		// Canceled while finding the records: the fallback, of what was found.
		c.fallback(ctx, describeCall(), res, r, p, err)
		return Outcome{Fallback: true}
	}
	if err != nil {
		return Outcome{} // structured content that is not JSON: not ours to judge
	}
	return c.offloadOrFallback(ctx, describeCall(), res, r, p)
}

// applySet offloads a provided set when it, or the handler's own result, is
// above the threshold: the handler's own result is then discarded (as the
// specification says of inject_context) but for its images and audio. ok is
// false otherwise, or when a record is not one JSON value.
func (c *Config) applySet(ctx context.Context, describe func() Call, res *mcp.CallToolResult, structured []byte, set *Set, redacted *redact.Counts) (o Outcome, ok bool) {
	// The set is the whole result: its records are the document itself.
	ru := &run{
		Placement: Placement{As: asArray, Count: len(set.Records)},
		rows:      make([][]byte, len(set.Records)),
	}
	p := &plan{
		scores: set.Scores,
		runs:   []*run{ru},
		t:      newTally(),
	}
	for i, rec := range set.Records {
		rec = trimSpace(rec)
		if !jsontext.Value(rec).IsValid(rawjson.DecodeOptions...) {
			return Outcome{}, false
		}
		ru.rows[i], _ = compactLine(rec, new([]byte)) // valid
		p.tokens += c.Tokenizer.Tokens(ru.rows[i])
	}
	r, inline, err := c.read(res, structured, true)
	if err != nil {
		r, inline = &result{}, 0
	}
	if !c.above(max(p.tokens, inline)) {
		return Outcome{}, false
	}
	p.inline = inline
	*redacted = c.redactRows(ru.rows) // the handler's own result is discarded
	p.redacted = *redacted
	_ = ru.each(nil, p.t.add) // valid: read above
	call := describe()
	if set.RecordType != nil {
		call.RecordType = set.RecordType
	}
	return c.offloadOrFallback(ctx, call, res, r, p), true
}

// textTokens estimates the tokens of s, without copying it for the built-in
// heuristic.
func (c *Config) textTokens(s string) int {
	if _, ok := c.Tokenizer.(Heuristic); ok {
		return estimate.Tokens(s)
	}
	return c.Tokenizer.Tokens([]byte(s))
}

// offloadOrFallback writes the file and puts its descriptor in res, or, when
// the write fails, the fallback.
func (c *Config) offloadOrFallback(ctx context.Context, call Call, res *mcp.CallToolResult, r *result, p *plan) Outcome {
	o, link, done, err := c.write(ctx, call, r, p)
	if err != nil {
		c.fallback(ctx, call, res, r, p, err)
		return Outcome{Fallback: true}
	}
	// Emitted outside write, whose panics make a fallback: a panic of the
	// Observer is its own, not a failed write of a file that is whole.
	emit(ctx, c.Observer, done)
	d := o.Descriptor
	content := []mcp.Content{&mcp.TextContent{Text: string(d)}}
	if link != nil {
		content = append(content, link)
	}
	res.Content = withMedia(content, r)
	res.StructuredContent = json.RawMessage(d)
	return o
}

// withMedia returns content and, after it, the images and audio of r, which
// stay in the response.
func withMedia(content []mcp.Content, r *result) []mcp.Content {
	for _, it := range r.items {
		if it.media {
			content = append(content, it.item)
		}
	}
	return content
}

// emit delivers e to o. A nil o discards the event.
func emit(ctx context.Context, o event.Observer, e event.Event) {
	if o != nil {
		o.Observe(ctx, e)
	}
}
