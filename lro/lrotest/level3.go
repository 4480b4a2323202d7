package lrotest

import (
	"encoding/json"
	"regexp"
	"unicode/utf8"
)

// level3 are the requirements of Level 3, in report order.
var level3 = []requirement{
	{"L3.fallback.succeeds", 3, must, scopeBackup, 0, func(v *view) {
		_, handle := v.Desc["handle"]
		switch where := "file_path " + jsonText(v.Desc["file_path"]); {
		case v.c.cfg.Fallback == nil:
			v.skip("%s", v.Blocker)
		case v.Failed != "":
			v.fail("the file could not be written, and %s", v.Failed)
		case handle:
			v.fail("the result was offloaded (%s): the fallback session's server must not be able to write its results; "+
				"it keeps them in a store (it gave a handle), which an output folder does not change: give it a store it cannot write to", where)
		case v.Desc != nil:
			v.fail("the result was offloaded: the fallback session's output folder must not be writable (%s)", where)
		}
	}, "Implementations MUST NOT fail the entire operation due to an LRO write failure."},
	{"L3.fallback.warning", 3, must, scopeBackup, needCall, func(v *view) {
		if !failWords.MatchString(resultText(v.Result)) {
			v.fail("no text content says that offloading failed")
		}
		if !truncWords.MatchString(resultText(v.Result)) {
			v.fail("no text content says that the result is truncated")
		}
	}, "Include a warning in the response indicating that LRO failed and results are truncated."},
	{"L3.fallback.truncated", 3, must, scopeBackup, needCall, func(v *view) {
		arr, where := longestRecords(v.Result)
		if where == "" {
			v.fail("the result holds no array of records")
			return
		}
		if full := v.c.fullCount; full >= 0 && len(arr) >= full {
			v.fail("%s holds %d records, as many as the offloaded file (%d): not truncated", where, len(arr), full)
		}
		tokens := 0
		for _, e := range arr {
			b, _ := json.Marshal(e)
			tokens += (utf8.RuneCount(b) + 3) / 4
		}
		if limit := v.c.srv.ThresholdTokens; tokens > limit+limit/4 {
			v.fail("the %d records of %s are ~%d tokens, above the threshold of %d", len(arr), where, tokens, limit)
		}
	}, "Truncate the result set to fit within threshold_tokens."},
	{"L3.events", 3, must, scopeOnce, 0, func(v *view) {
		v.skip("not observable over MCP: events are emitted inside the server; check them in process (lro's TestConformanceLevel3 does)")
	}, "Emit OffloadWriteFailed / OffloadFileExpired events for observability."},
}

var (
	failWords  = regexp.MustCompile(`(?i)fail|error|could not|couldn't|unable`)
	truncWords = regexp.MustCompile(`(?i)truncat|partial|omitted|showing \d+ of \d+`)
)
