package lrotest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/internal/offload"
)

// Results kept on the server. A server whose results live in a store (a
// bucket that its replicas share) gives each descriptor a handle and
// follows it with a resource_link to lro://results/{handle}; its file_path
// is where a client that downloads the result keeps it. The kit then
// fetches the file with resources/read of that link, keeps it in a private
// temporary folder, and checks that copy as it checks a file on its disk.

// idHandle is the requirement of handles and resource links.
const idHandle = "L1.descriptor.handle"

// contentType is the MIME type of an offloaded file.
const contentType = "application/jsonl"

// unknownWords are what an error about an unknown handle says.
var unknownWords = regexp.MustCompile(`(?i)unknown|not found|no such|does not exist|expired`)

// checkHandle checks the handle of desc and the resource link of res that
// goes with it, reads the file with resources/read, and returns its bytes,
// or nil when they could not be read. local is the content of file_path
// when that is on this machine, to compare with; nil otherwise.
func (c *checker) checkHandle(ctx context.Context, desc map[string]any, res *mcp.CallToolResult, local []byte) []byte {
	h, ok := desc["handle"].(string)
	if !ok || h == "" {
		c.fail(idHandle, "handle is %s, want a non-empty string", jsonText(desc["handle"]))
		return nil
	}
	uri := offload.ResultURIPrefix + h
	var link *mcp.ResourceLink
	var others []string
	for _, ct := range res.Content {
		if l, ok := ct.(*mcp.ResourceLink); ok && l.URI == uri && link == nil {
			link = l
		} else if ok {
			others = append(others, strconv.Quote(l.URI))
		}
	}
	switch {
	case link == nil && len(others) == 0:
		c.fail(idHandle, "no resource_link follows the descriptor: want one to %s, the handle's resource", uri)
		return nil
	case link == nil:
		c.fail(idHandle, "the result links %s, not %s, the handle's resource", strings.Join(others, ", "), uri)
		return nil
	}
	var problems []string
	problem := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if link.MIMEType != contentType {
		problem("the resource_link's mimeType is %q, want %q", link.MIMEType, contentType)
	}
	rr, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil || len(rr.Contents) == 0 {
		if err != nil {
			problem("resources/read of %s failed: %v", uri, oneLine(err.Error(), 300))
		} else {
			problem("resources/read of %s returned 0 contents, want 1", uri)
		}
		c.check(idHandle, problems)
		return nil
	}
	if n := len(rr.Contents); n != 1 {
		problem("resources/read of %s returned %d contents, want 1", uri, n)
	}
	got := rr.Contents[0]
	if got.URI != uri {
		problem("resources/read of %s returned the content of %q", uri, got.URI)
	}
	if got.MIMEType != contentType {
		problem("resources/read of %s returned mimeType %q, want %q", uri, got.MIMEType, contentType)
	}
	data := []byte(got.Text)
	if got.Text == "" && got.Blob != nil {
		data = got.Blob
	}
	if link.Size != nil && *link.Size != int64(len(data)) {
		problem("resources/read of %s returned %d bytes, but the resource_link's size is %d", uri, len(data), *link.Size)
	}
	if local != nil && !bytes.Equal(local, data) {
		n := 0
		for n < min(len(local), len(data)) && local[n] == data[n] {
			n++
		}
		problem("resources/read of %s returned %d bytes that differ from file_path's %d bytes, first on line %d", uri, len(data), len(local), 1+bytes.Count(local[:n], []byte("\n")))
	}
	// A handle of the same form that the server never gave: the last
	// character before the extension changed.
	i := strings.LastIndexByte(h, '.')
	if i <= 0 {
		i = len(h)
	}
	other := offload.ResultURIPrefix + h[:i-1] + map[bool]string{true: "1", false: "0"}[h[i-1] == '0'] + h[i:]
	if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: other}); err == nil {
		problem("resources/read of %s, a handle the server never gave, returned a resource, want an error saying it is unknown", other)
	} else if !unknownWords.MatchString(err.Error()) {
		problem("resources/read of %s, a handle the server never gave, failed without saying that it is unknown: %v", other, oneLine(err.Error(), 200))
	}
	c.check(idHandle, problems)
	return data
}

// keep writes data, a fetched file, to a new file in the checker's private
// temporary folder (made on first use, 0700; the file 0600) and returns
// its path.
func (c *checker) keep(data []byte) (string, error) {
	if c.tmp == "" {
		dir, err := os.MkdirTemp("", "lrotest-")
		if err != nil {
			return "", err
		}
		c.tmp = dir
	}
	f, err := os.CreateTemp(c.tmp, "fetched-*.jsonl")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	return f.Name(), errors.Join(err, f.Close())
}

// removeTemp removes the private temporary folder and the copies in it.
func (c *checker) removeTemp() {
	if c.tmp != "" {
		_ = os.RemoveAll(c.tmp)
	}
}

// Cleanup (L2.cleanup).

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
	if err != nil {
		p.err = err
		return
	}
	header, _ := json.Marshal(map[string]any{
		"type": "lro_header", "operation": op, "query": nil, "count": 0, "schema_version": "1.0",
		"timestamp": p.created.UTC().Format(time.RFC3339Nano), "estimated_tokens": 0, "detail": "light",
	})
	// The file is made complete, times included, under a name no janitor
	// matches, and then renamed: a janitor that sweeps at any moment sees
	// either nothing or the whole expired file.
	expired := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.jsonl", c.srv.Prefix, op, id))
	staging := filepath.Join(dir, fmt.Sprintf("lrotest-%s.staging", id))
	decoy := filepath.Join(dir, fmt.Sprintf("lrotest-%s.txt", id))
	if p.err = writeNew(staging, append(header, '\n'), p.created); p.err == nil {
		if p.err = os.Rename(staging, expired); p.err == nil {
			p.expired = expired
			if p.err = writeNew(decoy, []byte("planted by lrotest: not an offloaded file, must be kept\n"), p.created); p.err == nil {
				p.decoy = decoy
			}
		}
	}
	_ = os.Remove(staging)
}

// writeNew writes a new file and sets its times.
func writeNew(path string, data []byte, at time.Time) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err = errors.Join(err, f.Close()); err == nil {
		err = os.Chtimes(path, at, at)
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

func (c *checker) finishCleanup(ctx context.Context) {
	const id = "L2.cleanup"
	within, dir, p := c.srv.CleanupInterval, c.srv.OutputDir, c.plant
	switch {
	case within == 0:
		c.skip(id, "no Config.Server.CleanupInterval: cleanup is observable only in a server that sweeps its folder within a deadline (give the TTL and how often it sweeps)")
		return
	case p == nil && dir == "" && c.fetched > 0:
		c.skip(id, "the offloaded files are kept by the server in a store (fetched with resources/read), not in a folder of this machine where the kit could plant an expired file; give Config.Server.OutputDir if the store is a folder the kit reaches")
		return
	case p == nil && dir == "":
		c.skip(id, "no offloaded file to find the output folder from, and no Config.Server.OutputDir")
		return
	case p == nil:
		// Nothing was offloaded: plant in the configured folder now.
		if err := os.MkdirAll(dir, 0o700); err != nil {
			c.skip(id, "cannot make the output folder: %v", err)
			return
		}
		c.plantExpired(dir, c.srv.Operation)
		p = c.plant
	}
	defer func() {
		for _, path := range []string{p.expired, p.decoy} {
			if path != "" {
				_ = os.Remove(path)
			}
		}
	}()
	if p.err != nil {
		c.skip(id, "cannot plant an expired file in the output folder: %v", p.err)
		return
	}
	deadline := p.at.Add(within)
	var problems []string
	for {
		if _, err := os.Lstat(p.expired); errors.Is(err, os.ErrNotExist) {
			break
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			problems = append(problems, fmt.Sprintf("%s, created %s (ULID time and mtime), %s past its TTL of %s, was not deleted within %s",
				p.expired, p.created.UTC().Format(time.RFC3339), time.Since(p.created.Add(c.srv.TTL)).Round(time.Second), c.srv.TTL, within))
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(25*time.Millisecond, time.Until(deadline))):
		}
	}
	if _, err := os.Lstat(p.decoy); err != nil {
		problems = append(problems, fmt.Sprintf("%s, which is not an offloaded file, was deleted: %v", p.decoy, err))
	}
	for _, f := range c.files {
		if age := time.Since(f.created); age < c.srv.TTL {
			if _, err := os.Lstat(f.path); errors.Is(err, os.ErrNotExist) {
				problems = append(problems, fmt.Sprintf("%s was deleted %s after it was written, before its TTL of %s", f.path, age.Round(time.Millisecond), c.srv.TTL))
			}
		}
	}
	c.check(id, problems)
}

// The write-failure fallback (L3.fallback.*).

var (
	failWords  = regexp.MustCompile(`(?i)fail|error|could not|couldn't|unable`)
	truncWords = regexp.MustCompile(`(?i)truncat|partial|omitted|showing \d+ of \d+`)
)

func (c *checker) runFallback(ctx context.Context) {
	c.begin("fallback")
	defer c.end(scopeBackup)
	if c.cfg.Fallback == nil {
		for _, id := range []string{"L3.fallback.succeeds", "L3.fallback.warning", "L3.fallback.truncated"} {
			c.skip(id, "no Config.Fallback: give a session to an instance of the server whose output folder cannot be written")
		}
		return
	}
	const id = "L3.fallback.succeeds"
	res, failed := c.call(ctx, c.cfg.Fallback, c.cfg.Large)
	var d map[string]any
	if failed == "" {
		d = findDescriptor(res, true)
	}
	_, handle := d["handle"]
	switch {
	case failed != "":
		c.fail(id, "the file could not be written, and %s", failed)
	case handle:
		c.fail(id, "the result was offloaded: the fallback session's server must not be able to write its results (%s); it keeps them in a store (it gave a handle), which an output folder does not change: give it a store it cannot write to", describeDescriptor(d))
	case d != nil:
		c.fail(id, "the result was offloaded: the fallback session's output folder must not be writable (%s)", describeDescriptor(d))
	default:
		c.pass(id)
	}
	if failed != "" || d != nil {
		c.block(id)
		return
	}

	text := resultText(res)
	switch fails, truncates := failWords.MatchString(text), truncWords.MatchString(text); {
	case !fails && !truncates:
		c.fail("L3.fallback.warning", "no text content warns that offloading failed and the result is truncated")
	case !fails:
		c.fail("L3.fallback.warning", "the text does not say that offloading failed")
	case !truncates:
		c.fail("L3.fallback.warning", "the text does not say that the result is truncated")
	default:
		c.pass("L3.fallback.warning")
	}

	// The longest array of objects in the result's JSON documents.
	var arr []any
	where := ""
	for _, d := range resultDocs(res) {
		walk(d.v, d.where, func(path, k string, v any) {
			a, ok := v.([]any)
			ok = ok && k == ""
			for _, e := range a {
				if _, obj := e.(map[string]any); !obj {
					ok = false
				}
			}
			if ok && (where == "" || len(a) > len(arr)) {
				arr, where = a, path
			}
		})
	}
	if where == "" {
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
	if limit := c.srv.ThresholdTokens + c.srv.ThresholdTokens/4; tokens > limit {
		problems = append(problems, fmt.Sprintf("the %d records of %s are ~%d tokens, above the threshold of %d", len(arr), where, tokens, c.srv.ThresholdTokens))
	}
	c.check("L3.fallback.truncated", problems)
}
