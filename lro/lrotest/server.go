package lrotest

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/internal/jsonlfile"
	"github.com/zircote/lro-go/internal/offload"
)

// idHandle is the requirement of handles and resource links.
const idHandle = "L1.descriptor.handle"

// unknownWords are what an error about an unknown handle says.
var unknownWords = regexp.MustCompile(`(?i)unknown|not found|no such|does not exist|expired`)

// readHandle checks the handle of the descriptor and the resource link that
// goes with it, reads the file with resources/read, and returns its bytes,
// or nil when they could not be read. local is the content of file_path
// when that is on this machine, to compare with; nil otherwise.
func (c *checker) readHandle(v *view, local []byte) []byte {
	fail := func(format string, args ...any) {
		v.found[idHandle] = append(v.found[idHandle], fmt.Sprintf(format, args...))
	}
	h, ok := v.desc["handle"].(string)
	if !ok || h == "" {
		fail("handle is %s, want a non-empty string", jsonText(v.desc["handle"]))
		return nil
	}
	uri := offload.ResultURIPrefix + h
	var link *mcp.ResourceLink
	var others []string
	for _, ct := range v.res.Content {
		if l, ok := ct.(*mcp.ResourceLink); ok && l.URI == uri && link == nil {
			link = l
		} else if ok {
			others = append(others, strconv.Quote(l.URI))
		}
	}
	switch {
	case link == nil && len(others) == 0:
		fail("no resource_link follows the descriptor: want one to %s, the handle's resource", uri)
		return nil
	case link == nil:
		fail("the result links %s, not %s, the handle's resource", strings.Join(others, ", "), uri)
		return nil
	case link.MIMEType != jsonlfile.ContentType:
		fail("the resource_link's mimeType is %q, want %q", link.MIMEType, jsonlfile.ContentType)
	}
	rr, err := c.cs.ReadResource(v.ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		fail("resources/read of %s failed: %v", uri, oneLine(err.Error(), 300))
		return nil
	} else if len(rr.Contents) != 1 {
		fail("resources/read of %s returned %d contents, want 1", uri, len(rr.Contents))
	}
	if len(rr.Contents) == 0 {
		return nil
	}
	got := rr.Contents[0]
	if got.URI != uri || got.MIMEType != jsonlfile.ContentType {
		fail("resources/read of %s returned the content of %q, of type %q", uri, got.URI, got.MIMEType)
	}
	data := []byte(got.Text)
	if got.Text == "" && got.Blob != nil {
		data = got.Blob
	}
	if link.Size != nil && *link.Size != int64(len(data)) {
		fail("resources/read of %s returned %d bytes, but the resource_link's size is %d", uri, len(data), *link.Size)
	}
	if local != nil && !bytes.Equal(local, data) {
		n := 0
		for n < min(len(local), len(data)) && local[n] == data[n] {
			n++
		}
		fail("resources/read of %s returned %d bytes that differ from file_path's %d bytes, first on line %d",
			uri, len(data), len(local), 1+bytes.Count(local[:n], []byte("\n")))
	}
	// A handle of the same form that the server never gave: the last
	// character before the extension changed.
	i := strings.LastIndexByte(h, '.')
	if i <= 0 {
		i = len(h)
	}
	other := offload.ResultURIPrefix + h[:i-1] + map[bool]string{true: "1", false: "0"}[h[i-1] == '0'] + h[i:]
	if _, err := c.cs.ReadResource(v.ctx, &mcp.ReadResourceParams{URI: other}); err == nil {
		fail("resources/read of %s, a handle the server never gave, returned a resource, want an error saying it is unknown", other)
	} else if !unknownWords.MatchString(err.Error()) {
		fail("resources/read of %s, a handle the server never gave, failed without saying that it is unknown: %v", other, oneLine(err.Error(), 200))
	}
	return data
}

// planted is what the cleanup check put in the output folder.
type planted struct {
	expired, decoy string
	at             time.Time // when they were planted
	created        time.Time // the expired file's created_at
	err            error     // why nothing was planted
}

// plantExpired plants in dir a file named by the convention whose ULID time
// and modification time lie the TTL plus one minute in the past, and an
// unrelated file.
func (c *checker) plantExpired(dir, op string) {
	op = cmp.Or(op, "lrotest")
	p := &planted{at: time.Now()}
	c.plant = p
	p.created = p.at.Add(-c.srv.TTL - time.Minute)
	id, err := ulid.New(ulid.Timestamp(p.created), rand.Reader)
	if p.err = errors.Join(err, os.MkdirAll(dir, 0o700)); p.err != nil {
		return
	}
	header, _ := json.Marshal(map[string]any{
		"type": "lro_header", "operation": op, "query": nil, "count": 0, "schema_version": "1.0",
		"timestamp": p.created.UTC().Format(time.RFC3339Nano), "estimated_tokens": 0, "detail": "light",
	})
	p.expired = filepath.Join(dir, fmt.Sprintf("%s-%s-%s.jsonl", c.srv.Prefix, op, id))
	p.decoy = filepath.Join(dir, fmt.Sprintf("lrotest-%s.txt", id))
	// The file is made complete, times included, under a name no janitor
	// matches, and then renamed: a janitor that sweeps at any moment sees
	// either nothing or the whole expired file.
	staging := filepath.Join(dir, fmt.Sprintf("lrotest-%s.staging", id))
	if p.err = writeAt(staging, append(header, '\n'), p.created); p.err == nil {
		p.err = os.Rename(staging, p.expired)
	}
	if p.err == nil {
		p.err = writeAt(p.decoy, []byte("planted by lrotest: not an offloaded file, must be kept\n"), p.created)
	}
	_ = os.Remove(staging)
}

// writeAt writes a file and sets its times to at.
func writeAt(path string, data []byte, at time.Time) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	return os.Chtimes(path, at, at)
}

func checkCleanup(v *view) {
	c := v.c
	within, dir, p := c.srv.CleanupInterval, c.srv.OutputDir, c.plant
	switch {
	case within == 0:
		v.skip("no Config.Server.CleanupInterval: give the TTL and how often the server sweeps its folder")
	case p == nil && dir == "" && c.fetched > 0:
		v.skip("the files were fetched with resources/read from a store, not in a folder of this machine where the kit could plant an expired file; give Config.Server.OutputDir if the kit reaches the store's folder")
	case p == nil && dir == "":
		v.skip("no offloaded file to find the output folder from, and no Config.Server.OutputDir")
	case p == nil: // nothing was offloaded: plant in the configured folder now
		c.plantExpired(dir, c.srv.Operation)
		p = c.plant
	}
	if v.skipped != "" {
		return
	}
	defer func() {
		for _, path := range []string{p.expired, p.decoy} {
			_ = os.Remove(path) // planted, or never made ("")
		}
	}()
	if p.err != nil {
		v.skip("cannot plant an expired file in the output folder: %v", p.err)
		return
	}
	deadline := p.at.Add(within)
	for {
		if _, err := os.Lstat(p.expired); errors.Is(err, os.ErrNotExist) {
			break
		}
		if !time.Now().Before(deadline) || v.ctx.Err() != nil {
			v.fail("%s, created %s (ULID time and mtime), %s past its TTL of %s, was not deleted within %s",
				p.expired, p.created.UTC().Format(time.RFC3339), time.Since(p.created.Add(c.srv.TTL)).Round(time.Second), c.srv.TTL, within)
			break
		}
		select {
		case <-v.ctx.Done():
		case <-time.After(min(25*time.Millisecond, time.Until(deadline))):
		}
	}
	if _, err := os.Lstat(p.decoy); err != nil {
		v.fail("%s, which is not an offloaded file, was deleted: %v", p.decoy, err)
	}
	for _, path := range slices.Sorted(maps.Keys(c.local)) {
		if age := time.Since(c.local[path]); age < c.srv.TTL {
			if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
				v.fail("%s was deleted %s after it was written, before its TTL of %s", path, age.Round(time.Millisecond), c.srv.TTL)
			}
		}
	}
}

// level3 are the requirements of Level 3, in report order.
var level3 = []requirement{
	{"L3.fallback.succeeds", 3, must, scopeBackup, 0, func(v *view) {
		_, handle := v.desc["handle"]
		switch where := "file_path " + jsonText(v.desc["file_path"]); {
		case v.c.cfg.Fallback == nil:
			v.skip("%s", v.blocker)
		case v.failed != "":
			v.fail("the file could not be written, and %s", v.failed)
		case handle:
			v.fail("the result was offloaded (%s): the fallback session's server must not be able to write its results; "+
				"it keeps them in a store (it gave a handle), which an output folder does not change: give it a store it cannot write to", where)
		case v.desc != nil:
			v.fail("the result was offloaded: the fallback session's output folder must not be writable (%s)", where)
		}
	}, "Implementations MUST NOT fail the entire operation due to an LRO write failure."},
	{"L3.fallback.warning", 3, must, scopeBackup, needCall, func(v *view) {
		if !failWords.MatchString(resultText(v.res)) {
			v.fail("no text content says that offloading failed")
		}
		if !truncWords.MatchString(resultText(v.res)) {
			v.fail("no text content says that the result is truncated")
		}
	}, "Include a warning in the response indicating that LRO failed and results are truncated."},
	{"L3.fallback.truncated", 3, must, scopeBackup, needCall, func(v *view) {
		// The longest array of objects in the result's JSON documents.
		var arr []any
		where := ""
		for _, d := range resultDocs(v.res) {
			walk(d.v, d.where, func(path, k string, x any) {
				a, ok := x.([]any)
				for _, e := range a {
					_, obj := e.(map[string]any)
					ok = ok && obj
				}
				if ok && k == "" && (where == "" || len(a) > len(arr)) {
					arr, where = a, path
				}
			})
		}
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
