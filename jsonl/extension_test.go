package jsonl_test

import (
	"encoding/json"
	"testing"

	"github.com/zircote/lro-go/jsonl"
)

// TestExtensionRepeatsAField: WriteHeader refuses an extension with a
// member of the specification's header (by the name encoding/json matches,
// without regard to case): on the header line it came after the field and
// replaced it for jq and ReadFile alike, so that a file the Writer committed,
// with Count records, said another count (ReadFile refused it) or another
// type (not an offloaded file).
func TestExtensionRepeatsAField(t *testing.T) {
	for _, ext := range []string{
		`{"count":2}`,
		`{"x":1,"type":"other"}`,
		`{"Count":2}`,
		`{"\u0063ount":2}`,
		`{"schema_version":"9"}`,
		`{"estimated_tokens":1}`,
		`{"detail":"full"}`,
	} {
		w, _ := create(t, "recall")
		err := w.WriteHeader(jsonl.Header{Count: 1, Extension: json.RawMessage(ext)})
		if err == nil {
			err = w.WriteRecord([]byte(`{"a":1}`))
			if err == nil {
				err = w.Commit()
			}
			if err == nil {
				_, _, rerr := jsonl.ReadFile(w.Path())
				t.Errorf("extension %s: written, then ReadFile: %v; want WriteHeader to fail", ext, rerr)
				continue
			}
		}
		w.Abort()
	}
}
