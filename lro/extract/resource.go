package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/lro/internal/describe"
	"github.com/zircote/lro-go/lro/store"
)

const (
	// resourceShare is how many times the largest answer of
	// resources/read fits in MaxMemoryBytes: go-sdk encodes it in several
	// copies after the handler returns (TestBoundedResourceReads).
	resourceShare = 32
	// resourceEnvelope is room for what surrounds the text, so that the
	// largest answer fits in the 16 MiB messages of go-sdk's stdio clients.
	resourceEnvelope = 64 << 10
	// collectFrom is the size of an object from which a read collects
	// the garbage of the answers before its own.
	collectFrom = 128 << 10
)

// maxResourceBytes is the most resources/read returns, as go-sdk encodes
// it (see encodedLen), less resourceEnvelope (or half, for a small limit).
func (c *config) maxResourceBytes() int64 {
	limit := min(int64(c.MaxOutputBytes), c.MaxMemoryBytes/resourceShare)
	return max(limit-resourceEnvelope, limit/2)
}

// encodedLen is at least the length of the JSON string go-sdk writes for
// text (encoding/json escapes <, > and & for HTML).
func encodedLen(text string) int64 {
	n := int64(2)
	for _, r := range text {
		switch {
		case r == '<' || r == '>' || r == '&' || r < 0x20 || r == '\u2028' || r == '\u2029' || r == utf8.RuneError:
			n += 6
		case r == '"' || r == '\\':
			n += 2
		default:
			n += int64(utf8.RuneLen(r))
		}
	}
	return n
}

// readResource is resources/read of a stored result: the object, whole,
// as text (a blob if it is not UTF-8), within the call's time limit and
// maxResourceBytes; an unknown or expired handle is resource-not-found. It
// holds a Workers slot until go-sdk has written the answer and ends the
// request's context: however slowly clients read, at most Workers wait.
func (c *config) readResource(request context.Context, req *mcp.ReadResourceRequest) (_ *mcp.ReadResourceResult, err error) {
	uri := req.Params.URI
	handle, _ := strings.CutPrefix(uri, describe.ResultURIPrefix)
	ctx, cancel := context.WithTimeoutCause(request, c.Timeout, errTimeout)
	defer cancel()
	release, err := c.acquire(ctx)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: %v", uri, err)}
	}
	free := sync.OnceFunc(release)
	defer func() {
		if err != nil {
			free()
		}
	}()
	r, size, err := c.Store.NewRangeReader(ctx, handle, 0, -1)
	switch {
	case errors.Is(err, store.ErrUnknownHandle), errors.Is(err, store.ErrExpiredHandle):
		data, _ := json.Marshal(map[string]string{"uri": uri})
		return nil, &jsonrpc.Error{Code: mcp.CodeResourceNotFound, Message: err.Error(), Data: data}
	case err != nil:
		return nil, c.resourceError(ctx, uri, err)
	}
	defer r.Close()
	tooLarge := func(size int64, what string) error {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"%s is %d bytes%s, more than the %d bytes one read may return (MaxOutputBytes, or a 32nd of MaxMemoryBytes): query it with %s, or read it in pieces with %s, with %s=%q",
			uri, size, what, c.maxResourceBytes(), toolExtract, toolRead, argHandle, handle)}
	}
	if size > c.maxResourceBytes() {
		return nil, tooLarge(size, "")
	}
	if size >= collectFrom {
		// go-sdk holds an answer several times over while it writes it:
		// collecting the garbage of the answers before keeps the process
		// within a few answers, where the collector lags on a busy machine.
		runtime.GC()
	}
	// One string of its size, which go-sdk takes as the text.
	var text strings.Builder
	text.Grow(int(size) + 1) // +1: room for a byte past Size, to detect it
	n, err := io.Copy(&text, io.LimitReader(r, size+1))
	if err == nil && n != size {
		err = fmt.Errorf("read %d of its %d bytes", n, size)
	}
	if err != nil {
		return nil, c.resourceError(ctx, uri, err)
	}
	s := text.String()
	content := &mcp.ResourceContents{URI: uri, MIMEType: spec.ContentType, Text: s}
	encoded, as := encodedLen(s), "as go-sdk encodes it: <, > and & take six bytes each"
	if !utf8.ValidString(s) {
		content.Text, content.Blob = "", []byte(s)
		encoded, as = int64(len(s)+2)/3*4, "in base64"
	}
	if encoded > c.maxResourceBytes() {
		return nil, tooLarge(int64(len(s)), fmt.Sprintf(" (%d %s)", encoded, as))
	}
	context.AfterFunc(request, func() {
		if size >= collectFrom {
			runtime.GC() // what its answer held, before the slot is free
		}
		free()
	})
	if request.Err() != nil { // cancelled by the client: no answer is wanted
		return nil, c.resourceError(ctx, uri, context.Cause(request))
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{content}}, nil
}

func (c *config) resourceError(ctx context.Context, uri string, err error) error {
	if errors.Is(context.Cause(ctx), errTimeout) {
		err = c.stopped(ctx)
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("reading %s: %v", uri, err)}
}
