package lrotest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	failWords  = regexp.MustCompile(`(?i)fail|error|could not|couldn't|unable`)
	truncWords = regexp.MustCompile(`(?i)truncat|partial|omitted|showing \d+ of \d+`)
)

func (c *checker) runFallback(ctx context.Context) {
	c.begin("fallback")
	defer c.end(scopeBackup)
	if c.cfg.FallbackSession == nil {
		for _, id := range []string{"L3.fallback.succeeds", "L3.fallback.warning", "L3.fallback.truncated"} {
			c.skip(id, "no Config.FallbackSession: give a session to an instance of the server whose output folder cannot be written")
		}
		return
	}
	res, err := c.cfg.FallbackSession.CallTool(ctx, &mcp.CallToolParams{Name: c.cfg.Tool, Arguments: c.cfg.Large})
	ok := false
	switch {
	case err != nil:
		c.fail("L3.fallback.succeeds", "the call failed when the file could not be written: %v", err)
	case res.IsError:
		c.fail("L3.fallback.succeeds", "the tool returned an error when the file could not be written: %s", oneLine(resultText(res), 200))
	case findDescriptor(res, true) != nil:
		d := findDescriptor(res, true)
		if _, ok := d["handle"]; ok {
			c.fail("L3.fallback.succeeds", "the result was offloaded: the fallback session's server must not be able to write its results (%s); it keeps them in a store (it gave a handle), which an output folder does not change: give it a store it cannot write to", describeDescriptor(d))
			break
		}
		c.fail("L3.fallback.succeeds", "the result was offloaded: the fallback session's output folder must not be writable (%s)", describeDescriptor(d))
	default:
		c.pass("L3.fallback.succeeds")
		ok = true
	}
	if !ok {
		c.block("L3.fallback.succeeds")
		return
	}

	text := resultText(res)
	switch {
	case !failWords.MatchString(text) && !truncWords.MatchString(text):
		c.fail("L3.fallback.warning", "no text content warns that offloading failed and the result is truncated")
	case !failWords.MatchString(text):
		c.fail("L3.fallback.warning", "the text does not say that offloading failed")
	case !truncWords.MatchString(text):
		c.fail("L3.fallback.warning", "the text does not say that the result is truncated")
	default:
		c.pass("L3.fallback.warning")
	}

	arr, where := largestObjectArray(res)
	if arr == nil {
		c.fail("L3.fallback.truncated", "the result holds no array of records")
		return
	}
	var problems []string
	if c.fullCount >= 0 && len(arr) >= c.fullCount {
		problems = append(problems, fmt.Sprintf("%s holds %d records, as many as the offloaded file (%d): not truncated", where, len(arr), c.fullCount))
	}
	tokens := 0
	for _, e := range arr {
		b, _ := json.Marshal(e)
		tokens += (utf8.RuneCount(b) + 3) / 4
	}
	if limit := c.cfg.ThresholdTokens + c.cfg.ThresholdTokens/4; tokens > limit {
		problems = append(problems, fmt.Sprintf("the %d records of %s are ~%d tokens, above the threshold of %d", len(arr), where, tokens, c.cfg.ThresholdTokens))
	}
	c.check("L3.fallback.truncated", problems)
}

// largestObjectArray returns the longest array of objects in the result's
// JSON documents and where it is, or nil if there is none.
func largestObjectArray(res *mcp.CallToolResult) ([]any, string) {
	var best []any
	var where string
	found := false
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], path+"."+k)
			}
		case []any:
			allObjects := true
			for _, e := range x {
				if _, ok := e.(map[string]any); !ok {
					allObjects = false
					break
				}
			}
			if allObjects && (!found || len(x) > len(best)) {
				best, where, found = x, path, true
			}
			for i, e := range x {
				walk(e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			if v, err := decodeNumbers(data); err == nil {
				walk(v, "structuredContent")
			}
		}
	}
	for i, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			if v, err := decodeNumbers([]byte(tc.Text)); err == nil {
				walk(v, fmt.Sprintf("content[%d]", i))
			}
		}
	}
	if !found {
		return nil, ""
	}
	if best == nil {
		best = []any{}
	}
	return best, where
}
