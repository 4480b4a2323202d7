package describe

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/zircote/lro-go/internal/rawjson"
	sh "github.com/zircote/lro-go/internal/shell"
)

// Profile is the value of a descriptor.Profile: which fields a descriptor
// carries.
type Profile int

// The profiles, in the order of package lro/descriptor's.
const (
	Full Profile = iota
	NoRecipes
	NoSchema
	BarePointer
)

// Input is what a descriptor is made from: what the writer of the file
// gathered while it wrote it, and how to render it.
type Input struct {
	Path       string   // absolute path of the offload file, as the client sees it
	Handle     string   // the file's handle in a store; "" for none
	ExpiresAt  string   // when the file expires, RFC 3339; "" for unknown
	Summary             // nil TopNamespaces are written as []
	LineSchema any      // JSON Schema of one line (the engine's: a json.RawMessage)
	Recipes    []Recipe // the ten recipes
	// JqRecipes, when not nil, are the recipes as the descriptor lists
	// them, instead of Recipes run on Path.
	JqRecipes []JqRecipe
	// Saved is the estimate of the tokens the descriptor saves (what the
	// client would have received inline, less the descriptor), which the
	// guidance claims when it is positive; else it gives EstimatedTokens.
	Saved int
	// Native selects the guidance for a server with the extraction tools
	// ([Native]), which pass Handle when ByHandle; else the shell template.
	Native, ByHandle bool
	ToolPath         string // the file_path the extraction tools take; if empty, Path
	Noun             string // "memories" for memory records; if empty, "records"
	Redacted         int    // credentials replaced by markers, which the headline counts
	Warning          string // when not empty, the guidance's last line
	Beside           *Beside
	Preview          *Preview
}

// response is the descriptor, in the order and with the names of the
// specification's OffloadResponse, then the fields beyond it.
type response struct {
	Offloaded  bool       `json:"offloaded"`
	Summary    *Summary   `json:"summary,omitempty"`
	FilePath   string     `json:"file_path"`
	Handle     string     `json:"handle,omitempty"`
	ExpiresAt  string     `json:"expires_at,omitempty"`
	LineSchema any        `json:"line_schema,omitempty"`
	JqRecipes  []JqRecipe `json:"jq_recipes,omitempty"`
	Guidance   string     `json:"guidance,omitempty"`
	Beside     *Beside    `json:"beside,omitempty"`
	Preview    *Preview   `json:"preview,omitempty"`
}

// Summary is the specification's OffloadSummary.
type Summary struct {
	Count           int         `json:"count"`
	EstimatedTokens int         `json:"estimated_tokens"`
	Operation       string      `json:"operation"`
	TopNamespaces   []string    `json:"top_namespaces"`
	ScoreRange      *[2]float64 `json:"score_range"`
	Detail          string      `json:"detail"`
}

// JqRecipe is one ready-to-run extraction command of a descriptor.
type JqRecipe struct {
	Description string `json:"description"`
	Command     string `json:"command"` // the file path already in place
}

// Beside tells what a result held besides the records of its file, all of
// which the file's header keeps under "result".
type Beside struct {
	Values  json.RawMessage `json:"values,omitempty"` // the small scalars, keyed by their jq path below "result"
	Other   []string        `json:"other,omitempty"`  // the larger parts: their jq path and what they are
	Command string          `json:"command"`          // prints them all
}

// Preview shows a few of the file's records, cut down, and says so in
// Note.
type Preview struct {
	Records []json.RawMessage `json:"records"`
	Note    string            `json:"note"`
}

// Build returns the JSON of the descriptor of in under profile p, as the
// model reads it: <, > and & not escaped for HTML (which costs tokens,
// and recipes compare with them). The bare pointer carries offloaded,
// file_path and the handle only.
func Build(in *Input, p Profile) ([]byte, error) {
	resp := response{Offloaded: true, FilePath: in.Path, Handle: in.Handle}
	if p != BarePointer {
		s := in.Summary
		if resp.Summary = &s; s.TopNamespaces == nil {
			resp.Summary.TopNamespaces = []string{}
		}
		if p != NoSchema {
			resp.LineSchema = in.LineSchema
		}
		if p != NoRecipes {
			resp.JqRecipes = in.JqRecipes
			if resp.JqRecipes == nil {
				resp.JqRecipes = JqRecipes(in.Path, in.Recipes)
			}
		}
		if in.Native {
			resp.Guidance = Native(in)
		} else {
			resp.Guidance = shell(in, p != NoRecipes && len(resp.JqRecipes) > 0)
		}
		if in.Warning != "" {
			resp.Guidance += "\n" + in.Warning
		}
		if in.Beside != nil {
			b := *in.Beside
			b.Command = "head -n 1 " + sh.Word(in.Path) + " | jq .result"
			resp.Beside = &b
		}
		resp.ExpiresAt, resp.Preview = in.ExpiresAt, in.Preview
	}
	return Marshal(resp)
}

// Resaved returns data, the descriptor Build made of in under profile p, as
// Build makes it with in.Saved set to saved: only the headline of its
// guidance tells the tokens saved, and it is replaced in place, without
// building the rest again. The member "guidance" with a string value is the
// descriptor's own: the line schema's properties are objects, and quotes
// in strings are escaped.
func Resaved(data []byte, in *Input, p Profile, saved int) ([]byte, error) {
	out := *in
	out.Saved = saved
	old, headline := headline(in), headline(&out)
	if old == headline {
		return data, nil
	}
	const member = `"guidance":"`
	at := bytes.Index(data, []byte(member)) + len(member)
	if at < len(member) || !bytes.HasPrefix(data[at:], []byte(old)) || !asWritten(old) || !asWritten(headline) {
		return Build(&out, p)
	}
	return slices.Concat(data[:at], []byte(headline), data[at+len(old):]), nil
}

// asWritten reports whether the JSON string of s is s between quotes:
// every byte of s is printable ASCII, neither a quote nor a backslash.
func asWritten(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// Marshal returns the JSON of v as the model reads it: with <, > and &
// not escaped for HTML.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// JQKey returns the jq path step of an object member.
func JQKey(name string) string {
	ident := name != ""
	for i, r := range name {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			ident = false
			break
		}
	}
	if ident {
		return "." + name
	}
	return "[" + string(rawjson.AppendQuote(nil, name)) + "]"
}

// JqRecipes returns rs as the descriptor lists them: each with its command
// run on path.
func JqRecipes(path string, rs []Recipe) []JqRecipe {
	out := make([]JqRecipe, len(rs))
	for i, r := range rs {
		out[i] = JqRecipe{Description: r.Description, Command: r.Command(path)}
	}
	return out
}
