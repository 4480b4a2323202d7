// Package redact replaces credentials in text and JSON by markers that
// name their kind, as [REDACTED:github-pat]: the copy of a result that
// offloading keeps at rest holds no secret.
//
// Only high-confidence shapes are redacted (docs/redaction.md lists the
// kinds), with RE2 expressions: a pass is linear in its input, and a string
// that holds none of the rules' keywords costs one scan.
//
//	r, _ := redact.New(nil)
//	n := redact.Counts{}
//	s := r.String("token ghp_...", n)
//
// A Redactor is safe for concurrent use; a Counts is not.
package redact

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unsafe"

	"github.com/zircote/lro-go/internal/rawjson"
)

// Counts is how many values of each kind were redacted.
type Counts map[string]int

// Total returns the number of values redacted, of every kind.
func (n Counts) Total() (t int) {
	for _, v := range n {
		t += v
	}
	return t
}

// CustomKind is the kind of a match of an extra pattern without a named
// group.
const CustomKind = "custom"

// Redactor finds and replaces credentials. The zero value is not usable:
// make one with [New].
type Redactor struct {
	// The keywords of the built-in rules are found by one of two pairs of
	// bytes that follow each other, at k and k+1 in the keyword, whichever
	// starts at an even offset (a keyword has 3 bytes or more), so that the
	// scan reads every second pair only; k is where those pairs are rarest
	// in text (see anchor). bits holds the pairs of every keyword (each case
	// of a folded one); pairs maps each to 1 + the index in groups of the
	// keywords that hold it.
	bits   *[1 << 16 / 64]uint64
	pairs  []uint16
	groups [][]keyword
	custom []rule // extra patterns: run on every string
	// onRead, when not nil, is told how many bytes each expression reads
	// (set by this package's tests on a Redactor of their own).
	onRead func(n int)
}

// keyword is a keyword of a rule, found by its pair of bytes at off; the
// byte at other, beside the pair, is compared first.
type keyword struct {
	text       string
	fold       bool
	rule       int
	off, other int
}

// New returns a Redactor of the built-in rules and of the extra patterns
// (RE2 syntax). The secret of an extra pattern is its first named group,
// whose name is then the kind, else its whole match, of kind [CustomKind].
func New(extra []string) (*Redactor, error) {
	r := &Redactor{bits: new([1 << 16 / 64]uint64), pairs: make([]uint16, 1<<16), groups: [][]keyword{nil}}
	for i, ru := range builtin {
		for _, k := range ru.keywords {
			if ru.fold {
				k = strings.ToLower(k)
			}
			at := anchor(k)
			for off := at; off < at+2; off++ {
				other := at + 2 // the byte after the first pair, before the second
				if off > at {
					other = at
				}
				for _, p := range pairsOf(k[off:off+2], ru.fold) {
					g := r.pairs[p]
					if g == 0 {
						r.groups = append(r.groups, nil)
						g = uint16(len(r.groups) - 1)
						r.pairs[p] = g
						r.bits[p/64] |= 1 << (p % 64)
					}
					r.groups[g] = append(r.groups[g], keyword{text: k, fold: ru.fold, rule: i, off: off, other: other})
				}
			}
		}
	}
	for _, p := range extra {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("redact: pattern %q: %w", p, err)
		}
		ru := rule{kind: CustomKind, re: re, multiline: true, group: -1}
		names := re.SubexpNames()
		if g := slices.IndexFunc(names, func(name string) bool { return name != "" }); g > 0 {
			ru.kind, ru.group = names[g], g
		}
		r.custom = append(r.custom, ru)
	}
	return r, nil
}

// anchor returns where in the keyword k (3 bytes or more, lower case when
// folded) its two pairs, at anchor and anchor+1, are rarest in text, as
// charWeight estimates: the scan of text without a credential stops at
// few pairs.
func anchor(k string) int {
	best, cost := 0, 0.0
	for at := 0; at+2 < len(k); at++ {
		c := charWeight(k[at+1]) * (charWeight(k[at]) + charWeight(k[at+2]))
		if at == 0 || c < cost {
			best, cost = at, c
		}
	}
	return best
}

// charWeight is about how often the byte c appears in text, JSON and
// prose: lower-case letters by their frequency in English, JSON's
// punctuation often, the rest seldom.
func charWeight(c byte) float64 {
	switch {
	case c >= 'a' && c <= 'z':
		return letterWeights[c-'a']
	case c >= 'A' && c <= 'Z':
		return letterWeights[c-'A'] / 10
	case c >= '0' && c <= '9':
		return 1
	}
	switch c {
	case '"', ':', ',', ' ':
		return 10
	case '_', '-', '.', '/':
		return 1
	}
	return 0.1
}

// letterWeights are the frequencies of the letters a to z in English, in
// percent.
var letterWeights = [26]float64{8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.15, 0.8, 4.0, 2.4, 6.7, 7.5, 1.9, 0.1, 6.0, 6.3, 9.1, 2.8, 1.0, 2.4, 0.15, 2.0, 0.07}

// pairsOf returns the table entries of the pair of bytes k, in every case
// when fold.
func pairsOf(k string, fold bool) (ps []uint16) {
	cases := func(c byte) []byte {
		if fold && c >= 'a' && c <= 'z' { // a folded keyword is lower case ASCII
			return []byte{c, c - 'a' + 'A'}
		}
		return []byte{c}
	}
	for _, x := range cases(k[0]) {
		for _, y := range cases(k[1]) {
			ps = append(ps, uint16(x)<<8|uint16(y))
		}
	}
	return ps
}

// hit is a keyword of a rule found at pos.
type hit struct {
	pos  int
	rule int
}

// scan returns the keywords found in s, in order; with first, only the
// first one found.
func (r *Redactor) scan(s string, first bool, hits []hit) []hit {
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	bits := r.bits
	for i := 0; i+1 < len(s); i += 2 {
		// Eight bytes, four pairs, at a time while none is in the table,
		// then to the first that is.
		for ; i+8 <= len(b); i += 8 {
			w := binary.BigEndian.Uint64(b[i : i+8])
			if has(bits, w>>48) {
				break
			}
			if has(bits, w>>32) {
				i += 2
				break
			}
			if has(bits, w>>16) {
				i += 4
				break
			}
			if has(bits, w) {
				i += 6
				break
			}
		}
		if i+1 >= len(s) {
			break
		}
		p := uint16(s[i])<<8 | uint16(s[i+1])
		if !has(r.bits, uint64(p)) {
			continue
		}
		for _, k := range r.groups[r.pairs[p]] {
			at := i - k.off
			if at < 0 || len(s)-at < len(k.text) {
				continue
			}
			// The byte beside the pair first: most pairs found begin no
			// keyword (a keyword is folded to lower case, and is ASCII).
			if c := s[at+k.other]; c != k.text[k.other] && !(k.fold && c|0x20 == k.text[k.other]) {
				continue
			}
			if w := s[at : at+len(k.text)]; w != k.text && !(k.fold && strings.EqualFold(w, k.text)) {
				continue
			}
			ru := &builtin[k.rule]
			if ru.bound && at > 0 && word(s[at-1]) || ru.near != nil && !ru.near(s, at, at+len(k.text)) {
				continue
			}
			hits = append(hits, hit{pos: at, rule: k.rule})
			if first {
				return hits
			}
		}
	}
	if len(hits) > 1 {
		// A keyword found by its second pair may start before one found
		// just before it.
		slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(a.pos-b.pos, a.rule-b.rule) })
	}
	return hits
}

// has reports whether the pair of bytes in the low 16 bits of p is in the
// table bits.
func has(bits *[1 << 16 / 64]uint64, p uint64) bool { return bits[p>>6&1023]&(1<<(p&63)) != 0 }

// Maybe reports whether b may hold a credential: false means that
// [Redactor.String] and [Redactor.JSON] would give it back unchanged.
func (r *Redactor) Maybe(b []byte) bool {
	return len(r.custom) > 0 || len(r.scan(rawjson.String(b), true, nil)) > 0
}

// span is a secret s[start:end] of a rule (an index in builtin, or in
// custom past len(builtin)).
type span struct {
	start, end int
	rule       int
	kind       string
}

// String returns s with every credential replaced by its marker, adding
// what it redacted to n: the marker, then the line breaks of the secret, so
// that s keeps its lines. It returns s itself when it redacts nothing.
func (r *Redactor) String(s string, n Counts) string {
	spans := r.find(s)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.start])
		b.WriteString(Marker(sp.kind))
		// The line breaks of the secret (a private key's) stay, so that a
		// text keeps its lines.
		for i := sp.start; i < sp.end; i++ {
			if s[i] == '\n' {
				if i > sp.start && s[i-1] == '\r' {
					b.WriteByte('\r')
				}
				b.WriteByte('\n')
			}
		}
		n[sp.kind]++
		last = sp.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// Marker returns what replaces a secret of the kind.
func Marker(kind string) string { return "[REDACTED:" + kind + "]" }

// find returns the secrets of s, in order, without overlaps.
//
// The expression of a rule reads only a window around each keyword found:
// from back bytes before it (not past the start of its line) to the
// longest match after it (not past the end of its line), plus one byte so
// that \b and $ see what follows. Hits whose windows overlap share one
// read, so that each byte is read at most once per rule and a pass is
// linear in s whatever it holds.
func (r *Redactor) find(s string) []span {
	var spans []span
	add := func(ru *rule, ri, lo int, sub string, re *regexp.Regexp) {
		if r.onRead != nil {
			r.onRead(len(sub))
		}
		for _, m := range re.FindAllStringSubmatchIndex(sub, -1) {
			a, b := ru.secret(m)
			if a == b || ru.valid != nil && !ru.valid(sub[a:b]) {
				continue
			}
			spans = append(spans, span{start: lo + a, end: lo + b, rule: ri, kind: ru.kind})
		}
	}
	var buf [8]hit
	hits := r.scan(s, false, buf[:0])
	var lo, hi, n [64]int // per rule, the window not yet read (empty when hi is 0) and its hits
	flush := func(i int) {
		ru := &builtin[i]
		re := ru.re
		if n[i] == 1 && ru.anchored != nil {
			// A keyword alone: the expression anchored there stops as soon
			// as it fails.
			re = ru.anchored
		}
		add(ru, i, lo[i], s[lo[i]:hi[i]], re)
	}
	for _, h := range hits {
		ru := &builtin[h.rule]
		a := max(h.pos-ru.back, 0)
		if !ru.multiline {
			a += strings.LastIndexByte(s[a:h.pos], '\n') + 1
		}
		from := h.pos // where the window's end is looked for
		if hi[h.rule] > 0 && a < hi[h.rule] {
			// Extends the window not yet read, by the bytes past it only.
			from, a, n[h.rule] = hi[h.rule], lo[h.rule], n[h.rule]+1
		} else {
			if hi[h.rule] > 0 {
				flush(h.rule)
			}
			n[h.rule] = 1
		}
		b := max(min(len(s), h.pos+ru.window), from)
		if !ru.multiline {
			if i := strings.IndexByte(s[from:b], '\n'); i >= 0 {
				b = from + i
			}
		}
		lo[h.rule], hi[h.rule] = a, b
	}
	for i := range builtin {
		if hi[i] > 0 {
			flush(i)
		}
	}
	for i := range r.custom {
		add(&r.custom[i], len(builtin)+i, 0, s, r.custom[i].re)
	}
	if len(spans) < 2 {
		return spans
	}
	// Of two that start together, the rule listed first is kept.
	slices.SortFunc(spans, func(a, b span) int { return cmp.Or(a.start-b.start, a.rule-b.rule) })
	out := spans[:1]
	for _, sp := range spans[1:] {
		if last := &out[len(out)-1]; sp.start < last.end {
			last.end = max(last.end, sp.end)
			continue
		}
		out = append(out, sp)
	}
	return out
}

// secret returns the span of the secret in the match m: for a built-in
// rule its last group that matched, else the whole match; for an extra
// pattern its first named group, else the whole match.
func (ru *rule) secret(m []int) (a, b int) {
	if ru.group > 0 && m[2*ru.group] >= 0 {
		return m[2*ru.group], m[2*ru.group+1]
	}
	if ru.group == 0 {
		for g := len(m)/2 - 1; g > 0; g-- {
			if m[2*g] >= 0 {
				return m[2*g], m[2*g+1]
			}
		}
	}
	return m[0], m[1]
}

// backWindow bounds the text after its keyword that userinfo reads.
const backWindow = 1024

// word reports whether c is a letter, a digit or '_'.
func word(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_'
}
