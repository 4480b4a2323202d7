package redact_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/internal/redact"
	"github.com/zircote/lro-go/internal/testing/redacttest"
)

func newRedactor(t testing.TB, extra ...string) *redact.Redactor {
	t.Helper()
	r, err := redact.New(extra)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// python returns s as a Python string literal, as repr prints it.
func python(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`, "\n", `\n`, "\t", `\t`).Replace(s) + "'"
}

func csvOf(t *testing.T, rows ...[]string) string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(rows); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func jsonOf(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFakes redacts a fake credential of every kind in every shape of
// text: the secret is gone, its marker is there, every other byte stays.
func TestFakes(t *testing.T) {
	r := newRedactor(t)
	for _, f := range redacttest.Fakes() {
		md := func(s string) string {
			return "| id | value |\n|---|---|\n| 1 | " + strings.ReplaceAll(s, "\n", "<br>") + " |\n"
		}

		esc := strings.NewReplacer("\n", `\n`).Replace
		br := strings.NewReplacer("\n", "<br>").Replace
		jsonStr := func(s string) string { j := jsonOf(t, s); return j[1 : len(j)-1] }
		pyStr := func(s string) string { p := python(s); return p[1 : len(p)-1] }
		same := func(s string) string { return s }
		shapes := []struct {
			name string
			in   string
			enc  func(string) string // how the shape writes the secret
		}{
			{"plain", f.Text, same},
			{"lines", "first line\n" + f.Text + "\nlast line", same},
			{"csv", csvOf(t, []string{"id", "value", "note"}, []string{"1", f.Text, "x"}), same},
			{"tsv", "1\t" + esc(f.Text) + "\tx\n", esc},
			{"python", "[{'id': 1, 'value': " + python(f.Text) + "}]", pyStr},
			{"markdown", md(f.Text), br},
			{"json as text", jsonOf(t, map[string]any{"v": f.Text}), jsonStr},
		}
		for _, sh := range shapes {
			sh := sh
			// A shape that escapes line breaks has none to keep.
			marker := redact.Marker(f.Kind)
			if sh.enc("\n") == "\n" {
				marker = f.Marker()
			}
			want := strings.Replace(sh.in, sh.enc(f.Secret), marker, 1)
			if want == sh.in {
				t.Fatalf("%s/%s: the secret is not in the input", f.Kind, sh.name)
			}
			t.Run(f.Kind+"/"+sh.name, func(t *testing.T) {
				n := redact.Counts{}
				got := r.String(sh.in, n)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("String (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(redact.Counts{f.Kind: 1}, n); diff != "" {
					t.Errorf("counts (-want +got):\n%s", diff)
				}
			})
		}
		t.Run(f.Kind+"/json", func(t *testing.T) {
			doc := map[string]any{"id": 1, "items": []any{map[string]any{"nested": map[string]any{"value": f.Text}}, "plain"}}
			want := map[string]any{"id": 1, "items": []any{map[string]any{"nested": map[string]any{"value": f.Want()}}, "plain"}}
			in := []byte(jsonOf(t, doc))
			in = append([]byte("  "), append(in, '\n')...)
			n := redact.Counts{}
			got, ok := r.JSON(in, n)
			if !ok {
				t.Fatal("JSON: not ok")
			}
			if diff := cmp.Diff("  "+jsonOf(t, want)+"\n", string(got)); diff != "" {
				t.Errorf("JSON (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(redact.Counts{f.Kind: 1}, n); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMarkers checks that no marker holds a byte that delimits a CSV or
// TSV field, a Markdown cell, a JSON or Python string: redacting keeps
// their shape.
func TestMarkers(t *testing.T) {
	for _, f := range redacttest.Fakes() {
		if m := redact.Marker(f.Kind); strings.ContainsAny(m, "\"',|\t\\\n\r") {
			t.Errorf("marker %q holds a delimiter", m)
		}
	}
}

// TestByName redacts the value of a member whose name says it is a secret,
// though the value alone has no known shape.
func TestByName(t *testing.T) {
	r := newRedactor(t)
	secret := "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
	token := "f3a9c0d7e1b2f3a9c0d7e1b2"
	for _, tc := range []struct {
		name, in, want string
		n              redact.Counts
	}{
		{"sts credentials", `{"Credentials":{"AccessKeyId":"x","SecretAccessKey":"` + secret + `"}}`, `{"Credentials":{"AccessKeyId":"x","SecretAccessKey":"[REDACTED:aws-secret-access-key]"}}`, redact.Counts{"aws-secret-access-key": 1}},
		{"header map", `{"headers": {"authorization": "` + token + `", "accept": "*/*"}}`, `{"headers": {"authorization": "[REDACTED:authorization]", "accept": "*/*"}}`, redact.Counts{"authorization": 1}},
		{"short value", `{"authorization": "required"}`, `{"authorization": "required"}`, redact.Counts{}},
		{"a name, not a value", `{"authorization": 1, "x": "` + token + `"}`, `{"authorization": 1, "x": "` + token + `"}`, redact.Counts{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := redact.Counts{}
			got, ok := r.JSON([]byte(tc.in), n)
			if !ok {
				t.Fatal("not ok")
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.n, n); diff != "" {
				t.Errorf("counts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLookAlikes leaves what only resembles a credential alone.
func TestLookAlikes(t *testing.T) {
	r := newRedactor(t)
	for _, s := range redacttest.LookAlikes() {
		n := redact.Counts{}
		if got := r.String(s, n); got != s || len(n) != 0 {
			t.Errorf("String(%q) = %q, %v; want it unchanged", s, got, n)
		}
		doc := jsonOf(t, map[string]any{"v": s, s: 1})
		if got, ok := r.JSON([]byte(doc), n); !ok || string(got) != doc || len(n) != 0 {
			t.Errorf("JSON(%s) = %s, %v, %v; want it unchanged", doc, got, ok, n)
		}
	}
}

// TestJSONEscapes redacts a secret whose JSON string escapes some of its
// bytes, and keeps the escapes of the strings it does not change.
func TestJSONEscapes(t *testing.T) {
	r := newRedactor(t)
	key := "AKIA" + "IOSFODNN7EXAMPLE"
	in := `{"a":"\u0041KIA` + key[4:] + `","b":"caf\u00e9 \/ x","c":[true,null,1.5e3]}`
	want := `{"a":"[REDACTED:aws-access-token]","b":"caf\u00e9 \/ x","c":[true,null,1.5e3]}`
	got, ok := r.JSON([]byte(in), redact.Counts{})
	if !ok {
		t.Fatal("not ok")
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestJSONSlashes redacts a URL password and a Slack webhook whose '/' are
// escaped, as PHP's json_encode writes them.
func TestJSONSlashes(t *testing.T) {
	r := newRedactor(t)
	hook := "hooks.slack.com/services/" + strings.Repeat("T0B1C2D3", 6)
	esc := strings.ReplaceAll(hook, "/", `\/`)
	for _, c := range []struct{ in, want string }{
		{`{"dsn":"postgres:\/\/user:s3cretPass@db\/app"}`, `{"dsn":"postgres://user:[REDACTED:url-password]@db/app"}`},
		{`["https:\/\/` + esc + `"]`, `["https://[REDACTED:slack-webhook-url]"]`},
		// A string that held a secret is written again whole, its other
		// escapes unescaped (docs/redaction.md says so).
		{`{"a":"caf\u00e9 \/ ghp_` + strings.Repeat("a1B2", 9) + `","b":"\/"}`, `{"a":"café / [REDACTED:github-pat]","b":"\/"}`},
	} {
		got, ok := r.JSON([]byte(c.in), redact.Counts{})
		if !ok {
			t.Fatalf("JSON(%q): not ok", c.in)
		}
		if diff := cmp.Diff(c.want, string(got)); diff != "" {
			t.Errorf("JSON(%q) (-want +got):\n%s", c.in, diff)
		}
	}
}

// TestJSONInvalid reports a text that is not one JSON value, and counts
// nothing.
func TestJSONInvalid(t *testing.T) {
	r := newRedactor(t)
	key := "AKIA" + "IOSFODNN7EXAMPLE"
	for _, in := range []string{`{"a":"` + key + `"`, `["` + key + `"] x`, `not json ` + key} {
		n := redact.Counts{}
		if _, ok := r.JSON([]byte(in), n); ok || len(n) != 0 {
			t.Errorf("JSON(%q): ok %v, counts %v; want false, none", in, ok, n)
		}
	}
}

// TestCustom adds patterns: a named group names the kind and is what is
// redacted.
func TestCustom(t *testing.T) {
	r := newRedactor(t, `(?P<acme_token>acme_[0-9a-f]{8})`, `internal-[0-9]{4}`)
	n := redact.Counts{}
	got := r.String("k=acme_0123abcd id=internal-1234 ok", n)
	if want := "k=[REDACTED:acme_token] id=[REDACTED:custom] ok"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if diff := cmp.Diff(redact.Counts{"acme_token": 1, "custom": 1}, n); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	// Of a pattern with groups, the first named group, else the whole
	// match, whatever group matched last.
	for _, c := range []struct{ pat, in, want string }{
		{`(password|passwd)=\S+`, "password=hunter2 x", "[REDACTED:custom] x"},
		{`(k)=(?P<val>\w+)(;)`, "k=v1; x", "k=[REDACTED:val]; x"},
	} {
		got := newRedactor(t, c.pat).String(c.in, redact.Counts{})
		if got != c.want {
			t.Errorf("%s on %q: got %q, want %q", c.pat, c.in, got, c.want)
		}
	}
	if _, err := redact.New([]string{`(`}); err == nil {
		t.Error("New accepted an invalid pattern")
	}
}

// TestOverlap keeps one marker where rules overlap: the rule of the token
// itself wins over the Authorization header's.
func TestOverlap(t *testing.T) {
	r := newRedactor(t)
	tok := "ghp_" + strings.Repeat("a1B2c3D4e5", 4)[:36]
	n := redact.Counts{}
	got := r.String("Authorization: token "+tok, n)
	if want := "Authorization: token [REDACTED:github-pat]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if diff := cmp.Diff(redact.Counts{"github-pat": 1}, n); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

func BenchmarkString(b *testing.B) {
	r := newRedactor(b)
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString(`{"id": 12345, "name": "some record name", "sha": "3f786850e387550fdab836ed7e6dc881de23001b", "uuid": "123e4567-e89b-12d3-a456-426614174000", "text": "Lorem ipsum dolor sit amet, the basic idea of a bearer"}` + "\n")
	}
	s := sb.String()
	b.SetBytes(int64(len(s)))
	b.ReportAllocs()
	for b.Loop() {
		r.String(s, redact.Counts{})
	}
}

// BenchmarkRepeated redacts one line of a keyword repeated, in 64 KB and
// 1 MB: the time per byte should not grow with the size.
func BenchmarkRepeated(b *testing.B) {
	r := newRedactor(b)
	for _, k := range []string{"0Q~", "T3BlbkFJ", "bearer ", "-eyJ", "authorization=-", "://"} {
		for _, size := range []int{64 << 10, 1 << 20} {
			s := strings.Repeat(k, size/len(k))
			b.Run(fmt.Sprintf("%s/%d", strings.TrimSpace(k), size), func(b *testing.B) {
				b.SetBytes(int64(len(s)))
				for b.Loop() {
					r.String(s, redact.Counts{})
				}
			})
		}
	}
}

// BenchmarkMaybe scans 500 records without a credential, as the offload
// of lro's BenchmarkOffload500 does before anything else reads them.
func BenchmarkMaybe(b *testing.B) {
	r := newRedactor(b)
	doc := []byte(strings.Repeat(`{"id":"0b7c0001-1f2e-4d3c-8b9a-000000000001","memory_type":"semantic","title":"Decision 1: cache invalidation strategy for the read path","content":"We decided to invalidate cache entries on write rather than on a timer, because stale reads were observed in the session logs after deploys; the change keeps p99 latency flat and removes a class of consistency bugs.","namespace":"_semantic/decisions","tags":["cache","architecture","team-1"],"status":"active","created":"2026-10-01T12:00:00Z","modified":"2026-11-01T08:30:00Z","summary":"Invalidate on write; p99 stays flat.","provenance":{"agent":"claude","confidence":0.51,"source_type":"agent","trust_level":"verified"}},`, 500))
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if r.Maybe(doc) {
			b.Fatal("a credential found")
		}
	}
}
