package offload

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// GuardResourceURIs is server middleware that refuses a resources/read whose
// uri holds a character that no URI holds and that go-sdk cannot write back
// (a control character such as NUL, BEL or DEL, or another character Go
// quotes as \x or \U), with an invalid-params error naming it.
//
// go-sdk v1.8.0 answers a read of a resource it does not serve with an error
// whose data it writes with Go's %q, which is not JSON for those characters:
// the message then cannot be encoded, and the connection ends (over stdio,
// the whole server). Package extract installs it with the resource template
// of the results, and lro.GuardNullArguments applies it too.
func GuardResourceURIs(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil {
			if err := checkURI(r.Params.URI); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}

// checkURI returns an invalid-params error naming the first character of
// uri that go-sdk's %q would not write as JSON, or nil when there is none.
func checkURI(uri string) error {
	if json.Valid([]byte(strconv.Quote(uri))) {
		return nil // the common case, in one pass
	}
	for i, r := range uri {
		what := fmt.Sprintf("%U", r)
		if _, size := utf8.DecodeRuneInString(uri[i:]); r == utf8.RuneError && size == 1 {
			what = fmt.Sprintf("the byte %#x, which is not UTF-8,", uri[i])
		} else if json.Valid([]byte(strconv.Quote(string(r)))) {
			continue
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"resources/read: the uri holds %s at byte %d, a character no URI holds", what, i)}
	}
	return nil
}
