package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/examples/memory/memory"
)

// listPage is the body of GET /v1/memories.
type listPage struct {
	Items      []memory.Record `json:"items"`
	Count      int             `json:"count"`
	Total      int             `json:"total"`
	Detail     memory.Detail   `json:"detail"`
	NextOffset *int            `json:"next_offset,omitempty"`
}

// newHTTPHandler serves the MCP server s over streamable HTTP at /mcp,
// statelessly if asked (no session: any replica answers any request), and
// the HTTP API's GET /v1/memories on store.
//
// The HTTP API never offloads: as the specification says, HTTP clients page
// with limit and offset instead (LRO applies at the MCP transport layer).
func newHTTPHandler(s *mcp.Server, store *memory.Store, logger *slog.Logger, stateless bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Logger: logger, Stateless: stateless}))
	mux.HandleFunc("GET /v1/memories", func(w http.ResponseWriter, r *http.Request) {
		listHTTP(w, r, store)
	})
	return mux
}

// listHTTP serves GET /v1/memories?limit=&offset=&namespace=&detail=.
func listHTTP(w http.ResponseWriter, r *http.Request, store *memory.Store) {
	q := r.URL.Query()
	intParam := func(name string, def, min, max int) (int, error) {
		s := q.Get(name)
		if s == "" {
			return def, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, argError(name, "%q is not an integer", s)
		}
		return intArg(name, &n, def, min, max)
	}
	limit, err := intParam("limit", defaultListLimit, 1, maxLimit)
	if err != nil {
		httpError(w, err)
		return
	}
	offset, err := intParam("offset", 0, 0, -1)
	if err != nil {
		httpError(w, err)
		return
	}
	detail, err := detailArg(q.Get("detail"), memory.Light)
	if err != nil {
		httpError(w, err)
		return
	}
	page, total := store.List(memory.ListOptions{Namespace: q.Get("namespace"), Offset: offset, Limit: limit})
	body := listPage{Items: memory.ProjectAll(page, detail), Count: len(page), Total: total, Detail: detail}
	if next := offset + len(page); next < total {
		body.NextOffset = &next
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func httpError(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}
