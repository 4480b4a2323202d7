package redact

import (
	"strings"
	"testing"
)

// TestURLPasswordForms redacts the password of connection strings as real
// services print them: Redis' (and Heroku's REDIS_URL) with no user name
// before the password, and a password that holds an '@' unescaped, which
// URL parsers (Go's net/url, Python's urllib) end at the authority's last
// '@': the whole password, not its part before the first '@'.
func TestURLPasswordForms(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want, secret string }{
		{"REDIS_URL=redis://:p4ssw0rdXyz@redis-12345.c1.us-east-1-2.ec2.cloud.redislabs.com:12345",
			"REDIS_URL=redis://:[REDACTED:url-password]@redis-12345.c1.us-east-1-2.ec2.cloud.redislabs.com:12345", "p4ssw0rdXyz"},
		{"rediss://:p4ssw0rdXyz@host:6380/0", "rediss://:[REDACTED:url-password]@host:6380/0", "p4ssw0rdXyz"},
		{"postgres://app:hunter2@ssw0rd@db.example.com:5432/app?sslmode=require",
			"postgres://app:[REDACTED:url-password]@db.example.com:5432/app?sslmode=require", "ssw0rd"},
		{"mongodb+srv://admin:S3cr@t@cluster0.abcde.mongodb.net/?x=a@b",
			"mongodb+srv://admin:[REDACTED:url-password]@cluster0.abcde.mongodb.net/?x=a@b", "S3cr"},
		// Left as they were: no password, or an '@' past the authority.
		{"redis://@host:6379", "redis://@host:6379", ""},
		{"http://user@example.com/a:b@c", "http://user@example.com/a:b@c", ""},
		{"http://:8080/x@y", "http://:8080/x@y", ""},
	} {
		n := Counts{}
		got := r.String(tc.in, n)
		if got != tc.want {
			t.Errorf("String(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if tc.secret != "" && strings.Contains(got, tc.secret) {
			t.Errorf("String(%q) keeps %q", tc.in, tc.secret)
		}
		j, ok := r.JSON([]byte(`{"url":"`+tc.in+`"}`), Counts{})
		if want := `{"url":"` + tc.want + `"}`; !ok || string(j) != want {
			t.Errorf("JSON of %q = %s, want %s", tc.in, j, want)
		}
	}
}

// TestSlackTokenForms redacts the Slack tokens of gitleaks' rules beyond
// the bot and user tokens (config/gitleaks.toml: slack-config-access-token,
// slack-config-refresh-token, slack-legacy-workspace-token), with the
// samples of its tests, each built from parts.
func TestSlackTokenForms(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	body := "Mi0yLTM0MTQwNDE0MDE3Ni0zNjU5NDY0Njg4MTctNTE4MjA3NTQ5NjA4MC01NDEyOTYyODY5NzUxLThhMTBjZmI1ZWIzMGIwNTg0ZDdmMDI5Y2UxNzVlZWVhYzU2ZWQyZTZiODNjNDZiMGUxMzRlNmNjNDEwYmQxMjQ"
	refresh := "My0xLTMxNzcwMjQ0MTcxMy01MTU4MTUyNjkxNzE0LTUxODE4NDI0MDY3MzYtMjA5MGFkOTFlZThkZWE2OGFlZDYwYWJjODNhYzAxYjA5ZjVmODBhYjgzN2QyNDdjOTNlOGY5NTg2YWM1OGM4Mg"
	for _, secret := range []string{
		"xoxe." + "xoxp-1-" + body,
		"xoxe." + "xoxb-1-" + body,
		"xoxe-" + "1-" + refresh,
		"xoxa-" + "2-511111111-31111111111-3111111111111-e039d02840a0b9379c",
		"xoxr-" + "1-" + "Ab12Cd34Ef56",
	} {
		for _, text := range []string{`"access_token": "` + secret + `"`, "SLACK_TOKEN=" + secret} {
			n := Counts{}
			want := strings.Replace(text, secret, Marker("slack-token"), 1)
			if got := r.String(text, n); got != want || n["slack-token"] != 1 {
				t.Errorf("String(%q) = %q (%v), want %q", text, got, n, want)
			}
		}
	}
	for _, s := range []string{"xoxe-1-xxx", "XOxE-RROAmw, Home and Garden, 5:24, 20120323", "xoxa-short", "xoxo-hugs"} {
		if got := r.String(s, Counts{}); got != s {
			t.Errorf("String(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestJSONNamedArray redacts the strings of an array that is the value of a
// member whose name says what they are, as Go's http.Header is written
// ({"Authorization":["token …"]}), as when the member holds the string
// itself.
func TestJSONNamedArray(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	tok := "0123456789abcdef" + "0123456789abcdef01234567"
	for _, tc := range []struct{ in, want string }{
		{`{"Authorization":["token ` + tok + `"],"User-Agent":["Go-http-client/1.1"]}`,
			`{"Authorization":["token [REDACTED:authorization]"],"User-Agent":["Go-http-client/1.1"]}`},
		{`{"header":{"Proxy-Authorization":["Digest ` + tok + `", "x"]}}`,
			`{"header":{"Proxy-Authorization":["Digest [REDACTED:authorization]", "x"]}}`},
		// Only the array's own strings: not those of objects within it,
		// nor what follows it.
		{`{"Authorization":[{"note":"token ` + tok + `"}],"b":"token ` + tok + `"}`,
			`{"Authorization":[{"note":"token ` + tok + `"}],"b":"token ` + tok + `"}`},
		{`{"Authorization":[["token ` + tok + `"]]}`, `{"Authorization":[["token ` + tok + `"]]}`},
	} {
		n := Counts{}
		got, ok := r.JSON([]byte(tc.in), n)
		if !ok || string(got) != tc.want {
			t.Errorf("JSON(%s) = %s, %v; want %s", tc.in, got, ok, tc.want)
		}
	}
}

// TestOpenAIAndStripeForms redacts an OpenAI key of a project named before
// its T3BlbkFJ (the sk-None-… keys of OpenAI's default project, as found
// in public code), which docs/redaction.md names by "…T3BlbkFJ…", and a
// Stripe key longer than 99 characters after its prefix, which Stripe
// says it issues (up to 128: gitlab-org/gitlab#458019): both were left
// whole.
func TestOpenAIAndStripeForms(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ kind, secret string }{
		{"openai-api-key", "sk-" + "None-" + "ZQN3abcdXY12efghIJ34" + "T3Blbk" + "FJ" + "Ib58ijklMN56opqrST78"},
		{"openai-api-key", "sk-" + "my_project-" + "ZQN3abcdXY12efghIJ34" + "T3Blbk" + "FJ" + "Ib58ijklMN56opqrST78"},
		{"openai-api-key", "sk-" + "ZQN3abcdXY12efghIJ34" + "T3Blbk" + "FJ" + "Ib58ijklMN56opqrST78"},
		{"stripe-access-token", "sk_" + "live_" + "51NzQ6bHc2" + strings.Repeat("aBcDeFgHiJ0123456789", 5) + "xY"},
		{"stripe-access-token", "rk_" + "live_" + strings.Repeat("aBcDeFgHiJ0123456789", 6) + "ab"},
	} {
		for _, text := range []string{`api_key = "` + tc.secret + `"`, "KEY=" + tc.secret + "\n"} {
			n := Counts{}
			want := strings.Replace(text, tc.secret, Marker(tc.kind), 1)
			if got := r.String(text, n); got != want || n[tc.kind] != 1 {
				t.Errorf("String(%q) = %q (%v), want %q", text, got, n, want)
			}
		}
	}
	for _, s := range []string{"task-ZQN3abcdXY12efghIJ34T3BlbkFJIb58ijklMN56opqrST78", "sk_live_short"} {
		if got := r.String(s, Counts{}); got != s {
			t.Errorf("String(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestJSONNameValuePairs redacts the value of a name/value pair whose name
// says what it is, as Kubernetes writes a container's environment
// (kubectl get -o json), ECS a task definition's and HAR a request's
// headers: the same secret is redacted as the value of a member of that
// name.
func TestJSONNameValuePairs(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	aws := "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
	tok := "0123456789abcdef" + "0123456789abcdef01234567"
	for _, tc := range []struct{ in, want string }{
		{`{"env":[{"name":"AWS_SECRET_ACCESS_KEY","value":"` + aws + `"},{"name":"REGION","value":"us-east-1"}]}`,
			`{"env":[{"name":"AWS_SECRET_ACCESS_KEY","value":"[REDACTED:aws-secret-access-key]"},{"name":"REGION","value":"us-east-1"}]}`},
		{`{"environment": [{"Name": "aws-secret-access-key", "Value": "` + aws + `"}]}`,
			`{"environment": [{"Name": "aws-secret-access-key", "Value": "[REDACTED:aws-secret-access-key]"}]}`},
		{`{"headers":[{"name":"authorization","value":"token ` + tok + `"},{"name":"accept","value":"*/*"}]}`,
			`{"headers":[{"name":"authorization","value":"token [REDACTED:authorization]"},{"name":"accept","value":"*/*"}]}`},
		{`[{"key":"Authorization","value":"Token ` + tok + `","type":"text"}]`,
			`[{"key":"Authorization","value":"Token [REDACTED:authorization]","type":"text"}]`},
		// Left alone: another object's name, a value of another form, and
		// a value that is no string.
		{`[{"name":"Authorization"},{"value":"token ` + tok + `"}]`, `[{"name":"Authorization"},{"value":"token ` + tok + `"}]`},
		{`{"name":"Authorization","nested":{"value":"token ` + tok + `"}}`, `{"name":"Authorization","nested":{"value":"token ` + tok + `"}}`},
		{`{"name":"SecretAccessKey","value":"not a key"}`, `{"name":"SecretAccessKey","value":"not a key"}`},
		{`{"name":"Authorization","value":["token ` + tok + `"]}`, `{"name":"Authorization","value":["token ` + tok + `"]}`},
	} {
		n := Counts{}
		got, ok := r.JSON([]byte(tc.in), n)
		if !ok || string(got) != tc.want {
			t.Errorf("JSON(%s) =\n%s, %v; want\n%s", tc.in, got, ok, tc.want)
		}
	}
}

// TestEscapedJSONInText redacts an Authorization header and an AWS secret
// key in JSON that is itself the text of a JSON string (an API Gateway
// event's "body", a log event's "message") or of a log line, where its
// quotes are escaped: the keyword was then refused for the '\' after it,
// and the expressions did not read "\"".
func TestEscapedJSONInText(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	tok := "0123456789abcdef" + "0123456789abcdef01234567"
	aws := "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
	for _, tc := range []struct {
		in, want string
		json     bool
	}{
		{`{"body": "{\"Authorization\": \"token ` + tok + `\"}"}`, `{"body": "{\"Authorization\": \"token [REDACTED:authorization]\"}"}`, true},
		{`{"message":"{\"headers\":{\"authorization\":\"` + tok + `\"}}"}`, `{"message":"{\"headers\":{\"authorization\":\"[REDACTED:authorization]\"}}"}`, true},
		{`INFO request {\"Authorization\": \"token ` + tok + `\"}`, `INFO request {\"Authorization\": \"token [REDACTED:authorization]\"}`, false},
		{`INFO env {\"aws_secret_access_key\": \"` + aws + `\"}`, `INFO env {\"aws_secret_access_key\": \"[REDACTED:aws-secret-access-key]\"}`, false},
	} {
		n := Counts{}
		var got string
		if tc.json {
			out, ok := r.JSON([]byte(tc.in), n)
			if !ok {
				t.Errorf("JSON(%s): not JSON", tc.in)
			}
			got = string(out)
		} else {
			got = r.String(tc.in, n)
		}
		if got != tc.want || n.Total() != 1 {
			t.Errorf("redacting %s =\n%s (%v), want\n%s", tc.in, got, n, tc.want)
		}
	}
}

// TestAuthorizationParam redacts the token of an Authorization header whose
// scheme takes it as a quoted parameter, as Rails' token authentication
// (and Percy's API) write it: Authorization: Token token="…". It was
// written whole, in text and as a JSON member's value.
func TestAuthorizationParam(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	tok := "afbadb4ff8485c0a" + "dcba486b4ca90cc4"
	for _, tc := range []struct {
		in, want string
		json     bool
	}{
		{`curl -H 'Authorization: Token token="` + tok + `"' http://localhost:3000/api/pages`,
			`curl -H 'Authorization: Token token="[REDACTED:authorization]"' http://localhost:3000/api/pages`, false},
		{`curl -H "Authorization: Token token=\"` + tok + `\"" https://percy.io/api/v1/builds`,
			`curl -H "Authorization: Token token=\"[REDACTED:authorization]\"" https://percy.io/api/v1/builds`, false},
		{`{"headers":{"Authorization":"Token token=\"` + tok + `\""}}`,
			`{"headers":{"Authorization":"Token token=\"[REDACTED:authorization]\""}}`, true},
		// As before: the parameter unquoted is redacted with its name.
		{`Authorization: Token token=` + tok, `Authorization: Token [REDACTED:authorization]`, false},
	} {
		n := Counts{}
		var got string
		if tc.json {
			out, ok := r.JSON([]byte(tc.in), n)
			if !ok {
				t.Errorf("JSON(%s): not JSON", tc.in)
			}
			got = string(out)
		} else {
			got = r.String(tc.in, n)
		}
		if got != tc.want || n.Total() != 1 {
			t.Errorf("redacting %s =\n%s (%v), want\n%s", tc.in, got, n, tc.want)
		}
	}
}

// TestHTTPAuthorizationEnviron redacts the Authorization header as a CGI
// or WSGI environment names it (HTTP_AUTHORIZATION: Django's request.META,
// PHP's $_SERVER), with a scheme other than Bearer (Django REST
// framework's "Token …"): the '_' before the keyword kept the rule from
// it, and the member's name was not known.
func TestHTTPAuthorizationEnviron(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	tok := "9944b09199c62bcf" + "9418ad846dd0e4bbdfc6ee4b"
	for _, tc := range []struct {
		in, want string
		json     bool
	}{
		{`{'CONTENT_TYPE': 'text/plain', 'HTTP_AUTHORIZATION': 'Token ` + tok + `', 'HTTP_HOST': 'api.example.com'}`,
			`{'CONTENT_TYPE': 'text/plain', 'HTTP_AUTHORIZATION': 'Token [REDACTED:authorization]', 'HTTP_HOST': 'api.example.com'}`, false},
		{`HTTP_AUTHORIZATION=Token ` + tok, `HTTP_AUTHORIZATION=Token [REDACTED:authorization]`, false},
		{`{"META":{"HTTP_AUTHORIZATION":"Token ` + tok + `"}}`, `{"META":{"HTTP_AUTHORIZATION":"Token [REDACTED:authorization]"}}`, true},
	} {
		n := Counts{}
		var got string
		if tc.json {
			out, ok := r.JSON([]byte(tc.in), n)
			if !ok {
				t.Errorf("JSON(%s): not JSON", tc.in)
			}
			got = string(out)
		} else {
			got = r.String(tc.in, n)
		}
		if got != tc.want || n.Total() != 1 {
			t.Errorf("redacting %s =\n%s (%v), want\n%s", tc.in, got, n, tc.want)
		}
	}
	// Another word before the keyword is still no header's name.
	for _, s := range []string{"preauthorization: 0123456789abcdef0123", "my_authorization: 0123456789abcdef0123"} {
		if got := r.String(s, Counts{}); got != s {
			t.Errorf("String(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestJSONHeaderPairs redacts a header's value that follows its name in an
// array, as Sentry's events hold a request's headers ([["Authorization",
// "…"]]) and Node its rawHeaders (["Authorization", "…", …]).
func TestJSONHeaderPairs(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	tok := "9944b09199c62bcf" + "9418ad846dd0e4bbdfc6ee4b"
	for _, tc := range []struct{ in, want string }{
		{`{"request":{"headers":[["Accept","*/*"],["Authorization","Token ` + tok + `"]]}}`,
			`{"request":{"headers":[["Accept","*/*"],["Authorization","Token [REDACTED:authorization]"]]}}`},
		{`{"rawHeaders":["Host","api.example.com","authorization","Token ` + tok + `","Accept","*/*"]}`,
			`{"rawHeaders":["Host","api.example.com","authorization","Token [REDACTED:authorization]","Accept","*/*"]}`},
		// Not after another element between them, nor in another array.
		{`[["Authorization"],"Token ` + tok + `"]`, `[["Authorization"],"Token ` + tok + `"]`},
		{`["Authorization",1,"Token ` + tok + `"]`, `["Authorization",1,"Token ` + tok + `"]`},
	} {
		n := Counts{}
		got, ok := r.JSON([]byte(tc.in), n)
		if !ok || string(got) != tc.want {
			t.Errorf("JSON(%s) =\n%s, %v; want\n%s", tc.in, got, ok, tc.want)
		}
	}
}
