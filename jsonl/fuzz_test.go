package jsonl_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/zircote/lro-go/jsonl"
)

func FuzzReadHeader(f *testing.F) {
	f.Add(`{"type":"lro_header","operation":"recall","query":null,"count":2}` + "\n{}\n{}\n")
	f.Add(`{"type":"lro_header","count":-1}`)
	f.Add(`{"type":"x"}`)
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		h, err := jsonl.ReadHeader(strings.NewReader(in))
		if err != nil {
			if !errors.Is(err, jsonl.ErrNotOffloadFile) && !errors.Is(err, jsonl.ErrInvalidHeader) {
				t.Errorf("ReadHeader(%q) = %v, want ErrNotOffloadFile or ErrInvalidHeader", in, err)
			}
			return
		}
		var typ struct{ Type string }
		_ = json.NewDecoder(strings.NewReader(in)).Decode(&typ) // the first line's
		if typ.Type != jsonl.HeaderType || h.Count < 0 {
			t.Errorf("ReadHeader(%q) accepted type %q, count %d", in, typ.Type, h.Count)
		}
	})
}

// FuzzWriteRecord checks that whatever WriteRecord accepts ends up as one
// valid line that ReadFile returns, and that it rejects only invalid JSON.
func FuzzWriteRecord(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "{\n \"a\": [1, 2]\n}\r\n", `"x\ny"`, "1 2", "", "\u2028"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, record []byte) {
		w, err := jsonl.Create("fuzz", &jsonl.Options{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if err := w.WriteHeader(jsonl.Header{Count: 1}); err != nil {
			t.Fatal(err)
		}
		err = w.WriteRecord(record)
		if valid := json.Valid(record); valid != (err == nil) {
			t.Fatalf("WriteRecord(%q) = %v, but json.Valid = %v", record, err, valid)
		}
		if err != nil {
			if !errors.Is(err, jsonl.ErrInvalidRecord) {
				t.Errorf("WriteRecord(%q) = %v, want ErrInvalidRecord", record, err)
			}
			return
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		_, recs, err := jsonl.ReadFile(w.Path())
		if err != nil {
			t.Fatalf("ReadFile after WriteRecord(%q): %v", record, err)
		}
		want := record
		if bytes.ContainsAny(record, "\r\n") {
			var buf bytes.Buffer
			json.Compact(&buf, record)
			want = buf.Bytes()
		}
		if len(recs) != 1 || !bytes.Equal(recs[0], want) {
			t.Errorf("WriteRecord(%q) read back as %q, want %q", record, recs, want)
		}
	})
}
