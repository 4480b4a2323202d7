package proxy

import "testing"

func TestEnvelope(t *testing.T) {
	tests := []struct {
		doc, field       string
		wantName, others string
		ok               bool
		why              string
	}{
		{`[1,2]`, "", "", "", false, "an array is the records itself"},
		{`{"content":"text"}`, "", "", "", false, "no array field: no records field"},
		{`{"items":[1]}`, "", "items", "", true, "nothing besides the records"},
		{`{"total":3,"items":[1,2,3],"next":{"cursor":"c 2"}}`, "", "items", `{"total":3,"next":{"cursor":"c 2"}}`, true, "the other fields, as written"},
		{`{"a":[1],"b":[1,2,3]}`, "", "b", `{"a":[1]}`, true, "the longest array is the records, as lro chooses"},
		{`{"a":[1],"b":[1,2,3]}`, "a", "a", `{"b":[1,2,3]}`, true, "Options.RecordsField names the records"},
		{`{"n":1.50, "items": [ 1 ], "big": 12345678901234567890}`, "", "items", `{"n":1.50,"big":12345678901234567890}`, true, "numbers are not rewritten"},
		{`{"a\u003cb":"x<y","it\u0065ms":[1]}`, "items", "items", `{"a\u003cb":"x<y"}`, true, "names are matched unescaped and kept as written"},
		{`{"total":3,"items":[1,}`, "", "", "", false, "not valid JSON"},
	}
	for _, tt := range tests {
		name, others, ok := envelope([]byte(tt.doc), tt.field)
		if name != tt.wantName || string(others) != tt.others || ok != tt.ok {
			t.Errorf("envelope(%s, %q) = %q, %s, %v; want %q, %s, %v (%s)", tt.doc, tt.field, name, others, ok, tt.wantName, tt.others, tt.ok, tt.why)
		}
	}
}
