package offload

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/lro/internal/describe"
	"github.com/zircote/lro-go/lro/internal/schema"
)

// tally gathers what the descriptor says of the records (the summary's
// figures, the recipes' sample, the line schema) in the one read of each.
type tally struct {
	schema     *schema.Inferrer // reads every record
	namespaces map[string]*int  // counted through a pointer: a name seen before is not copied
	minScore   float64
	maxScore   float64
	scores     int
	sample     []json.RawMessage
	// last is the last record read, for the preview: a slice of an array
	// run's document, or lastBuf, a copy.
	last, lastBuf []byte
	fieldFn       func(key string, value []byte) // field, bound once, not per record
	buf           []byte                         // for the records made as they are read (text lines)
	jq16          jq16Lines                      // the lines that jq 1.6 cannot parse
}

// add describes one record line, and fails when it is not one JSON value.
func (t *tally) add(line []byte) error {
	t.note(line)
	err := t.schema.AddFields(line, t.fieldFn)
	t.jq16.add(t.schema.JQ16())
	return err
}

// newTally returns an empty tally, whose empty line schema is that of a file
// of no records.
func newTally() *tally {
	t := &tally{schema: &schema.Inferrer{Fields: []string{"namespace", "score"}}}
	t.fieldFn = t.field
	return t
}

// maxNamespaces is how many distinct namespaces the summary counts, the
// first ones read, so that its memory stays flat whatever the records hold.
const maxNamespaces = 4096

// maxNamespaceBytes is the longest namespace the summary names, as the
// descriptor writes it (quoted, escaped).
const maxNamespaceBytes = 200

// note keeps the first SampleSize record lines for the recipes, and a copy
// of the last for the preview.
func (t *tally) note(rec []byte) {
	if len(t.sample) < SampleSize {
		t.sample = append(t.sample, json.RawMessage(bytes.Clone(rec)))
	}
	t.lastBuf = append(t.lastBuf[:0], rec...)
	t.last = t.lastBuf
}

// field notes the top-level members the summary reports (the Inferrer's
// Fields).
func (t *tally) field(key string, value []byte) {
	switch key {
	case "namespace":
		if jsontext.Value(value).Kind() != '"' {
			return
		}
		ns := value[1 : len(value)-1] // a string without escapes is itself
		if bytes.IndexByte(ns, '\\') >= 0 || !utf8.Valid(ns) {
			var err error
			if ns, err = jsontext.AppendUnquote(nil, value); err != nil {
				return
			}
		}
		if len(ns) == 0 || len(ns) > maxNamespaceBytes {
			return
		}
		if n, ok := t.namespaces[string(ns)]; ok { // no copy of a name seen before
			*n++
			return
		}
		if len(t.namespaces) == maxNamespaces || quotedLen(ns) > maxNamespaceBytes+2 {
			return
		}
		if t.namespaces == nil {
			t.namespaces = map[string]*int{}
		}
		n := 1
		t.namespaces[string(ns)] = &n
	case "score":
		if jsontext.Value(value).Kind() == '0' {
			if v, err := strconv.ParseFloat(string(value), 64); err == nil {
				t.addScore(v)
			}
		}
	}
}

// quotedLen returns the length of the JSON string of s as the descriptor
// writes it (describe.Marshal), escapes counted. It is asked once of each
// namespace the summary counts, at most maxNamespaces.
func quotedLen(s []byte) int {
	q, _ := describe.Marshal(string(s)) // a string: no error
	return len(q)
}

func (t *tally) addScore(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return // not a score a range can show (JSON has no such number)
	}
	if t.scores == 0 || f < t.minScore {
		t.minScore = f
	}
	if t.scores == 0 || f > t.maxScore {
		t.maxScore = f
	}
	t.scores++
}

// topNamespaces returns up to five namespaces, most frequent first.
func (t *tally) topNamespaces() []string {
	names := slices.AppendSeq(make([]string, 0, len(t.namespaces)), maps.Keys(t.namespaces))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(*t.namespaces[b], *t.namespaces[a]), cmp.Compare(a, b))
	})
	return names[:min(len(names), 5)]
}

func (t *tally) scoreRange() *[2]float64 {
	if t.scores == 0 {
		return nil
	}
	return &[2]float64{t.minScore, t.maxScore}
}

// jq16Lines collects the file lines of the records jq 1.6 cannot parse.
type jq16Lines struct {
	records int   // the records read
	lines   []int // the first few, 1-based lines of the file
	count   int
	reasons []string // distinct, in order of appearance
}

// maxNamedLines is how many unreadable lines the descriptor names.
const maxNamedLines = 5

// add notes why jq 1.6 cannot parse the next record line, if it cannot.
func (u *jq16Lines) add(reason string) {
	u.records++
	if reason == "" {
		return
	}
	u.count++
	if len(u.lines) < maxNamedLines {
		u.lines = append(u.lines, u.records+1) // the header is line 1
	}
	if !slices.Contains(u.reasons, reason) {
		u.reasons = append(u.reasons, reason)
	}
}

// warning returns the descriptor's sentence on the lines jq 1.6 cannot
// parse, or "".
func (u *jq16Lines) warning(native bool) string {
	if u.count == 0 {
		return ""
	}
	var lines strings.Builder
	for i, n := range u.lines {
		if i > 0 {
			lines.WriteString(", ")
		}
		fmt.Fprint(&lines, n)
	}
	if u.count > len(u.lines) {
		fmt.Fprintf(&lines, " and %d more", u.count-len(u.lines))
	}
	use := "jq 1.7 or later"
	if native {
		use = "lro_extract, or jq 1.7 or later"
	}
	return fmt.Sprintf("jq 1.6 cannot parse line %s (%s): use %s.", lines.String(), strings.Join(u.reasons, "; "), use)
}
