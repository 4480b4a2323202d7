// Package realshapes is a corpus of tool results recorded from real
// sources: the reference MCP servers (everything, filesystem, memory), the
// output formats of the Python reference servers (mcp-server-sqlite's
// read_query, mcp-server-git's git_log, git_status and git_diff) produced by
// the real programs, tabular text from sqlite3, psql, Python's csv module
// and pandas, and response examples embedded in public API specifications.
// Nothing in it is invented: testdata/manifest.json says where each item
// came from, and record_test.go (go test ./internal/testing/realshapes -record)
// records it again.
//
// [Items] loads the corpus; each item says how its result grows (Grow), and
// lro's tests (grow_test.go) make it as large as they need that way.
package realshapes

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:embed testdata/manifest.json testdata/items
var files embed.FS

// An Item is one recorded tool result, as testdata/manifest.json lists
// it.
type Item struct {
	Name    string `json:"name"`    // unique, e.g. "filesystem/directory_tree"
	File    string `json:"file"`    // the result's file in testdata/items
	Source  string `json:"source"`  // the program or document it came from
	Version string `json:"version"` // the version of Source
	Command string `json:"command"` // how it was produced
	// Records is how many records the result holds as a reader of its
	// format counts them (rows of a table, elements of a list), or 0 when
	// the manifest does not say.
	Records int    `json:"records,omitempty"`
	Grow    growth `json:"grow"` // how lro's tests make the result large
	// Result is the tool result as the client received it. Its
	// StructuredContent, when present, is a json.RawMessage holding the
	// bytes received.
	Result *mcp.CallToolResult `json:"-"`
}

// growth says how an item is made large.
type growth struct {
	// By is "json" (every text item holding JSON, and the structured
	// content: the largest array's elements are repeated), "text" (every
	// text item: Prefix, the head lines and Suffix are kept once, the
	// rest, the body, is repeated with Sep between copies) or "items" (the
	// content items after the first Head are repeated).
	By        string `json:"by"`
	HeadLines int    `json:"head_lines,omitempty"`
	Prefix    string `json:"prefix,omitempty"`
	Suffix    string `json:"suffix,omitempty"`
	Sep       string `json:"sep,omitempty"`
	Head      int    `json:"head,omitempty"`
}

// Items returns the corpus, in the order of the manifest.
func Items() ([]Item, error) {
	data, err := files.ReadFile("testdata/manifest.json")
	if err != nil {
		return nil, err
	}
	var items []Item
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, fmt.Errorf("realshapes: manifest: %w", err)
	}
	for i, it := range items {
		raw, err := files.ReadFile(path.Join("testdata/items", it.File))
		if err == nil {
			items[i].Result, err = decodeResult(raw)
		}
		if err != nil {
			return nil, fmt.Errorf("realshapes: %s: %w", it.Name, err)
		}
	}
	return items, nil
}

// decodeResult decodes a CallToolResult, keeping the structured content's
// bytes as received.
func decodeResult(raw []byte) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	var sc struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := errors.Join(json.Unmarshal(raw, &res), json.Unmarshal(raw, &sc)); err != nil {
		return nil, err
	}
	if res.StructuredContent != nil { // neither absent nor null
		res.StructuredContent = sc.StructuredContent
	}
	return &res, nil
}
