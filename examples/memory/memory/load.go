package memory

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// headerType is the "type" of the header line of an offloaded LRO file.
const headerType = "lro_header"

// LoadFile reads the memories of the JSONL file at path; see [Load].
func LoadFile(path string) ([]Memory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Load(f, path)
}

// Load reads memories from r, one JSON object per line. Blank lines are
// skipped. When the first line is the header of an offloaded LRO file
// ({"type":"lro_header",...}) it is skipped too, so a file written by the
// offloading decorator loads back; its records may be at any detail level
// (a medium record's top-level confidence becomes the provenance's).
//
// Every memory needs an id, unique in the file, and a memory_type, if any,
// of semantic, episodic or procedural. The first offending line fails the
// whole load with an error "name:N: reason", N counting lines from 1.
func Load(r io.Reader, name string) ([]Memory, error) {
	br := bufio.NewReader(r)
	var ms []Memory
	seen := make(map[string]int)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: %w", name, n, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			m, skip, lerr := parseLine(line, n == 1)
			if lerr != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, n, lerr)
			}
			if !skip {
				if first, dup := seen[m.ID]; dup {
					return nil, fmt.Errorf("%s:%d: duplicate id %s (first on line %d)", name, n, m.ID, first)
				}
				seen[m.ID] = n
				ms = append(ms, m)
			}
		}
		if err != nil { // io.EOF
			return ms, nil
		}
	}
}

// parseLine decodes one line. On the first line, an LRO header is reported
// with skip.
func parseLine(line []byte, first bool) (m Memory, skip bool, err error) {
	if first {
		var h struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &h) == nil && h.Type == headerType {
			return Memory{}, true, nil
		}
	}
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return Memory{}, false, fmt.Errorf("invalid JSON: %v", err)
	}
	if r.ID == "" {
		return Memory{}, false, errors.New(`memory without "id"`)
	}
	if r.MemoryType != "" && !r.MemoryType.Valid() {
		return Memory{}, false, fmt.Errorf("memory %s: memory_type %q is not semantic, episodic or procedural", r.ID, r.MemoryType)
	}
	return r.Memory(), false, nil
}
