package recipes

import (
	"regexp"
	"strconv"
	"time"
)

// lineFormat prints a text line record as grep -n does.
const lineFormat = `"\(.line): \(.text)"`

// lineTimeRE matches a line that starts with a date and a time, optionally
// in brackets: 2025-01-31T10:00, [2025-01-31 10:00:05].
var lineTimeRE = regexp.MustCompile(`^\[?([0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2})?)`)

// The levels of log lines are words in capitals between the start or end of
// the line and any character that is not a capital letter: not \b, which
// Oniguruma (jq) applies to all Unicode letters and RE2 (gojq) to ASCII.
const (
	levelWords = "TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL"
	errorWords = "ERROR|FATAL|CRITICAL"
	// failPattern finds error lines in text without levels.
	failPattern = "error|fail|fatal|exception|panic"
)

// levelPattern is the regular expression of a level among words: group 2
// is the level.
func levelPattern(words string) string { return "(^|[^A-Z])(" + words + ")([^A-Z]|$)" }

var levelRE = regexp.MustCompile(levelPattern(levelWords))

// lines is what the sample says about the text of text lines.
type lines struct {
	nonEmpty int
	levels   int      // lines with a level
	times    []string // the leading date and time of the lines that have one
	brackets int      // lines whose time is in brackets
}

func (l *lines) add(text string) {
	if text == "" {
		return
	}
	l.nonEmpty++
	text = text[:min(len(text), maxScanBytes)]
	if levelRE.MatchString(text) {
		l.levels++
	}
	if m := lineTimeRE.FindStringSubmatch(text); m != nil {
		l.times = append(l.times, m[1])
		if text[0] == '[' {
			l.brackets++
		}
	}
}

// textRecipes returns the library of text lines: grep's and tail's tools,
// a count by level and a time range when the lines carry them.
func textRecipes(a *analysis) []Recipe {
	kw := keywordParam(a.text.pick(), "text")
	first := a.firstLine
	if first < 0 {
		first = 1
	}
	levels := a.lines.levels > 0 && 2*a.lines.levels >= a.lines.nonEmpty
	times := len(a.lines.times) > 0 && 2*len(a.lines.times) >= a.lines.nonEmpty

	var cs []candidate
	add := func(rank, pos int, r Recipe) { cs = append(cs, candidate{rank, pos, r}) }
	add(0, 1, recipe("Count the lines", "count", "length", "s"))
	add(0, 2, recipe("Lines with a keyword (like grep -n)", "grep",
		`objects | select(.text | strings | test($keyword; "i")) | `+lineFormat, "r", kw))
	add(2, 3, recipe("Count the lines with a keyword", "count matches",
		`map(objects | select(.text | strings | test($keyword; "i"))) | length`, "s", kw))
	if levels {
		add(1, 6, recipe("Count the lines by level", "count by level",
			`map(objects | .text | strings | match("`+levelPattern(levelWords)+`").captures[1].string) | group_by(.) | map({level: .[0], count: length}) | .[]`,
			"sc"))
		add(1, 4, recipe("Lines at level ERROR, FATAL or CRITICAL", "errors",
			`objects | select(.text | strings | test("`+levelPattern(errorWords)+`")) | `+lineFormat, "r"))
	} else {
		add(1, 4, recipe("Lines that mention an error, failure or exception", "errors",
			`objects | select(.text | strings | test("`+failPattern+`"; "i")) | `+lineFormat, "r"))
	}
	if times {
		from, to := timeRange(a.lines.times, time.Minute)
		trim := ""
		if a.lines.brackets > 0 {
			trim = `ltrimstr("[") | `
		}
		add(1, 5, recipe("Lines in a time range", "time range",
			`objects | select(.text | strings | `+trim+`. >= $from and . < $to) | `+lineFormat, "r",
			param{"from", from, ""},
			param{"to", to, ""}))
	}
	add(2, 7, recipe("Lines by number range", "line range",
		`objects | select(.line | numbers | . >= ($first | tonumber) and . <= ($last | tonumber)) | `+lineFormat, "r",
		param{"first", strconv.FormatInt(first, 10), ""},
		param{"last", strconv.FormatInt(first+19, 10), ""}))
	add(2, 8, recipe("Show the last 20 lines", "last 20", `.[-20:][] | objects | `+lineFormat, "sr"))
	add(3, 9, recipe("Lines without a keyword (like grep -v)", "grep -v",
		`objects | select(.text | strings | test($keyword; "i") | not) | `+lineFormat, "r", kw))
	// Duplicates tell little about lines that start with a time: no two
	// lines are equal. (Counting words one by one costs jq 1.6 too much.)
	rank := 3
	if times {
		rank = 6
	}
	add(rank, 11, recipe("Repeated lines with counts", "repeated lines",
		`map(objects | .text | strings) | group_by(.) | map(select(length > 1) | {text: .[0], count: length}) | sort_by(-.count) | .[]`,
		"sc"))
	add(5, 12, recipe("The 10 longest lines", "longest lines",
		`map(objects | select(.text | type == "string")) | sort_by(-(.text | length)) | .[:10][] | "\(.line) (\(.text | length) chars): \(.text)"`,
		"sr"))
	add(4, 13, recipe("Print the text without line numbers", "text only",
		`objects | .text | strings`, "r"))
	return choose(cs)
}
