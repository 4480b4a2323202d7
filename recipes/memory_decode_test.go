package recipes

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
)

// refRecord is memoryRecord as it was: every member of an object record.
type refRecord map[string]json.RawMessage

// refDecodeMemories is decodeMemories as it was written with encoding/json,
// kept as the oracle of FuzzDecodeMemories.
func refDecodeMemories(sample []json.RawMessage) (recs []refRecord, valid int) {
	sample = bounded(sample)
	for _, raw := range sample {
		var o refRecord
		if err := json.Unmarshal(raw, &o); err == nil && o != nil {
			recs = append(recs, o)
			valid++
		} else if json.Valid(raw) {
			valid++
		}
	}
	return recs, valid
}

// refStr and refStrs are memoryRecord.str and .strs as they were written
// with encoding/json.
func refStr(o refRecord, f string) (string, bool) {
	raw := o[f]
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

func refStrs(o refRecord, f string) []string {
	raw := o[f]
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var vs []json.RawMessage // not []any, which refuses a number beyond float64
	if json.Unmarshal(raw, &vs) != nil {
		return nil
	}
	var ss []string
	for _, v := range vs {
		var s string
		if v[0] == '"' && json.Unmarshal(v, &s) == nil {
			ss = append(ss, s)
		}
	}
	return ss
}

type decoded struct {
	Valid, Records, Memories int
	Strs                     map[string]string
	Tags                     [][]string
}

// FuzzDecodeMemories checks that the memory library reads a sample (one
// record per line) exactly as it did with encoding/json: the same count of
// valid records, the same object records, the same string fields and tags,
// and so the same defaults.
func FuzzDecodeMemories(f *testing.F) {
	f.Add([]byte("{\"id\":\"1\",\"title\":\"Caché\",\"namespace\":\"_semantic/x\",\"memory_type\":\"semantic\",\"tags\":[\"a\",1,\"b\\u00e9\"]}\nnull\n[1]\nnot json\n{\"id\":\"2\",\"title\":\"t\\\"q\",\"id\":\"dup\"}"))
	f.Add([]byte("{\"title\":\"\xff\xfe bad utf8\",\"content\":\"x\"}\n{\"tags\":\"x\",\"namespace\":7}\n {\"id\" : \"sp\" } "))
	f.Add([]byte("{\"n\\u0061mespace\":\"_a\\ud800\\u0041\",\"tags\":[\"\\udc00x\",null]}\n{\"id\":\"1\"} x\n{\"id\":\"1\"}{}\n{\"id\":\"1\",}\n\"str\"\n{\"tags\":[\"a\" \"b\"]}"))
	f.Add([]byte(`{"id":"1","namespace":"_a","tags":["a",1e400,"b"]}`)) // a number beyond float64 among the tags
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		var smp []json.RawMessage
		for _, l := range bytes.Split(data, []byte("\n")) {
			smp = append(smp, l)
		}
		wantRecs, wantValid := refDecodeMemories(smp)
		want := decoded{Valid: wantValid, Records: len(wantRecs), Strs: map[string]string{}}
		var asRecords []record // wantRecs as records, for memoryDefaults
		for i, o := range wantRecs {
			present := 0
			for _, f := range []string{"id", "title", "namespace", "memory_type"} {
				if _, ok := o[f]; ok {
					present++
				}
			}
			if present == 4 {
				want.Memories++
			}
			for _, f := range []string{"id", "title", "namespace", "memory_type", "content"} {
				if s, ok := refStr(o, f); ok {
					want.Strs[string(rune('a'+i))+f] = s
				}
			}
			want.Tags = append(want.Tags, refStrs(o, "tags"))
			asRecords = append(asRecords, record{object: true, memory: memoryRecord{
				ID: jsontext.Value(o["id"]), Title: jsontext.Value(o["title"]), Namespace: jsontext.Value(o["namespace"]),
				MemoryType: jsontext.Value(o["memory_type"]), Tags: jsontext.Value(o["tags"]), Content: jsontext.Value(o["content"]),
			}})
		}
		all := readSample(smp)
		gotRecs := slices.DeleteFunc(slices.Clone(all), func(r record) bool { return !r.object })
		got := decoded{Valid: len(all), Records: len(gotRecs), Strs: map[string]string{}}
		for i, r := range gotRecs {
			o := r.memory
			if isMemory([]record{r}) {
				got.Memories++
			}
			fields := map[string]jsontext.Value{
				"id": o.ID, "title": o.Title, "namespace": o.Namespace, "memory_type": o.MemoryType, "content": o.Content,
			}
			for _, f := range []string{"id", "title", "namespace", "memory_type", "content"} {
				if s, ok := jsonString(fields[f], false); ok {
					got.Strs[string(rune('a'+i))+f] = s
				}
			}
			got.Tags = append(got.Tags, appendStrs(nil, o.Tags))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("decodeMemories(%q) (-encoding/json +got):\n%s", data, diff)
		}
		if w, g := memoryDefaults(asRecords), memoryDefaults(gotRecs); w != g {
			t.Fatalf("memoryDefaults: encoding/json %+v, got %+v", w, g)
		}
	})
}
