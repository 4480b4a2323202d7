package recipes

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refDecodeRecords and refDecodeRecord are the analysis' decoding of the
// sample as it was written with encoding/json, kept as the oracle of
// FuzzValues.
func refDecodeRecords(sample []json.RawMessage) []value {
	sample = bounded(sample)
	recs := make([]value, 0, len(sample))
	for _, raw := range sample {
		if r, err := refDecodeRecord(raw); err == nil {
			recs = append(recs, r)
		}
	}
	return recs
}

func refDecodeRecord(raw json.RawMessage) (r value, err error) {
	r.size = len(raw)
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		err = d.Decode(&r.v)
	} else if _, err = d.Token(); err == nil { // {
		o := map[string]any{}
		for err == nil && d.More() {
			var name json.Token
			var v any
			if name, err = d.Token(); err == nil {
				err = d.Decode(&v)
			}
			k, _ := name.(string)
			if _, dup := o[k]; !dup {
				r.keys = append(r.keys, k)
			}
			o[k] = v
			if len(r.keys) == maxFields && err == nil && d.More() {
				r.v = o
				if !json.Valid(raw) {
					err = errors.New("not one JSON value")
				}
				return r, err
			}
		}
		if err == nil {
			_, err = d.Token() // }
		}
		r.v = o
	}
	if _, end := d.Token(); err == nil && end != io.EOF {
		err = errors.New("more than one value")
	}
	return r, err
}

// FuzzValues checks that the one read of the sample gives the analysis
// exactly what encoding/json gave it: the same records, values, names in
// order and sizes.
func FuzzValues(f *testing.F) {
	f.Add([]byte("{\"a\":1,\"b\":[1,2.5e3,{\"c\":null}],\"a\":\"dup\"}\nnull\n[1]\nnot json\n\"s\\u00e9\"\n 7 \ntrue\n{}\n[]"))
	f.Add([]byte("{\"t\":\"\xff\xfe bad utf8\",\"\xff\":\"\\ud800x\"}\n{\"n\\u0061me\":{\"k\":[]}}\n{\"id\":\"1\"} x\n{\"id\":\"1\"}{}\n{\"id\":\"1\",}"))
	f.Add([]byte(`{"n":1e400,"m":-0.0,"o":12345678901234567890}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		var smp []json.RawMessage
		for _, l := range bytes.Split(data, []byte("\n")) {
			smp = append(smp, l)
		}
		want, got := refDecodeRecords(smp), values(readSample(smp))
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(value{})); diff != "" {
			t.Fatalf("values(%q) (-encoding/json +got):\n%s", data, diff)
		}
	})
}

// TestValuesManyFields checks the bound on the fields of a record: the
// members up to the one that brings the distinct names to maxFields are
// decoded, duplicates included, as encoding/json did.
func TestValuesManyFields(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"dup":0`)
	for i := range maxFields + 10 {
		b.WriteString(`,"f` + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)) + `":1`)
		if i == maxFields-2 || i == maxFields+5 {
			b.WriteString(`,"dup":1`)
		}
	}
	b.WriteString(`}`)
	smp := []json.RawMessage{b.Bytes()}
	want, got := refDecodeRecords(smp), values(readSample(smp))
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(value{})); diff != "" {
		t.Fatalf("(-encoding/json +got):\n%s", diff)
	}
	if n := len(got[0].keys); n != maxFields {
		t.Fatalf("%d names, want %d", n, maxFields)
	}
}
