// Package redacttest holds well-formed fake credentials of every kind that
// package redact finds, and look-alikes that it must leave alone, for the
// tests of the packages that redact. Each is built from parts, so that no
// secret scanner flags the repository.
package redacttest

import (
	"encoding/base64"
	"strings"
)

// Fake is a fake credential in the text that carries it.
type Fake struct {
	Kind   string // the kind its marker names
	Secret string // what must not be left anywhere
	Text   string // Secret in its usual context; Text holds Secret once
}

// Want returns Text with Secret replaced by its marker.
func (f Fake) Want() string {
	return strings.Replace(f.Text, f.Secret, f.Marker(), 1)
}

// Marker returns what replaces Secret: its marker, then its line breaks.
func (f Fake) Marker() string {
	return "[REDACTED:" + f.Kind + "]" + strings.Repeat("\n", strings.Count(f.Secret, "\n"))
}

// rep repeats s to n bytes.
func rep(s string, n int) string { return strings.Repeat(s, n/len(s)+1)[:n] }

// Fakes returns one fake credential of every kind.
func Fakes() []Fake {
	pem := "-----BEGIN " + "RSA PRIVATE KEY-----\n" + rep("MIIEowIBAAKCAQEA7bq98", 64) + "\n" + rep("Qx9aZ3+/Yt0", 64) + "\n-----END RSA PRIVATE KEY-----"
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:" + "hunter2-" + "s3cret"))
	f := []Fake{
		{Kind: "aws-access-token", Secret: "AKIA" + "IOSFODNN7EXAMPLE"},
		{Kind: "aws-access-token", Secret: "ASIA" + "Y34FZKBOKMUTVV7A", Text: "AWS_SESSION_KEY_ID=%s"},
		{Kind: "aws-secret-access-key", Secret: "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY", Text: "aws_secret_access_key = %s"},
		{Kind: "gcp-api-key", Secret: "AIza" + "SyA" + rep("x1Y2-z_", 32)},
		{Kind: "gcp-oauth-client-secret", Secret: "GOCSPX-" + rep("Ab1_cD2-", 28)},
		{Kind: "azure-ad-client-secret", Secret: "a1b" + "8Q~" + rep("xY9.z_W~", 34), Text: "client_secret: %s"},
		{Kind: "azure-account-key", Secret: rep("Ab3+xY/9", 86) + "==", Text: "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=%s;EndpointSuffix=core.windows.net"},
		{Kind: "github-fine-grained-pat", Secret: "github_" + "pat_" + rep("11ABCDEFG0_aBcDeF12", 82)},
		{Kind: "github-pat", Secret: "ghp_" + rep("a1B2c3D4e5", 36)},
		{Kind: "github-oauth", Secret: "gho_" + rep("Z9y8X7w6", 36)},
		{Kind: "github-app-token", Secret: "ghs_" + rep("Qq1Ww2Ee3", 36)},
		{Kind: "github-refresh-token", Secret: "ghr_" + rep("Rr4Tt5Yy6", 36)},
		{Kind: "gitlab-pat", Secret: "glpat-" + rep("Xy1-z_A2", 20)},
		{Kind: "gitlab-token", Secret: "glrt-" + rep("Mn3Op4Qr5", 24)},
		{Kind: "slack-token", Secret: "xoxb-" + "1234567890-" + "9876543210-" + rep("AbCd1234", 24)},
		{Kind: "slack-app-token", Secret: "xapp-" + "1-A0123456789-1234567890123-" + rep("abc123", 64)},
		{Kind: "slack-webhook-url", Secret: "hooks.slack.com/" + "services/T00000000/B00000000/" + rep("XyZ12345", 24), Text: "webhook: https://%s"},
		{Kind: "stripe-access-token", Secret: "sk_" + "live_" + rep("4eC39HqLyj", 24)},
		{Kind: "openai-api-key", Secret: "sk-" + "proj-" + rep("Ab1_Cd2-Ef3", 48)},
		{Kind: "anthropic-api-key", Secret: "sk-" + "ant-api03-" + rep("Zz9_Yy8-Xx7", 93) + "AA"},
		{Kind: "npm-access-token", Secret: "npm_" + rep("abc123xyz", 36)},
		{Kind: "pypi-upload-token", Secret: "pypi-" + "AgEIcHlwaS5vcmc" + rep("CJDk2ZTc-5ZmQ_", 60)},
		{Kind: "jwt", Secret: "eyJ" + "hbGciOiJIUzI1NiJ9" + "." + "eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0" + "." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
		{Kind: "private-key", Secret: pem},
		{Kind: "bearer-token", Secret: rep("abcDEF123ghi", 32), Text: "Authorization: Bearer %s"},
		{Kind: "basic-auth", Secret: basic, Text: "Authorization: Basic %s"},
		{Kind: "authorization", Secret: rep("f3a9c0d7e1b2", 40), Text: "Authorization: token %s"},
		{Kind: "url-password", Secret: "s3cret" + "Passw0rd", Text: "DATABASE_URL=postgres://admin:%s@db.example.com:5432/app"},
		// Redis' form, with no user name (Heroku's REDIS_URL).
		{Kind: "url-password", Secret: "p4ss" + "w0rdXyz9", Text: "REDIS_URL=redis://:%s@redis-12345.c1.us-east-1-2.ec2.cloud.redislabs.com:12345"},
		// A Slack app configuration token.
		{Kind: "slack-token", Secret: "xoxe." + "xoxp-1-" + rep("Mi0yLTM0MTQw", 163)},
	}
	for i := range f {
		if f[i].Text == "" {
			f[i].Text = "key: %s"
		}
		f[i].Text = strings.Replace(f[i].Text, "%s", f[i].Secret, 1)
	}
	return f
}

// LookAlikes returns strings that resemble credentials but are none: each
// must be left byte for byte.
func LookAlikes() []string {
	return []string{
		"3f786850e387550fdab836ed7e6dc881de23001b",                         // SHA-1, a commit id
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", // SHA-256
		"123e4567-e89b-12d3-a456-426614174000",                             // UUID
		"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
		"Access keys that start with AKIA are long-term; ASIA ones are temporary.",
		"Send a Bearer token in the Authorization header; Basic authentication is deprecated.",
		"Authorization: required",
		"Bearer authentication",
		"https://example.com:8443/path?q=1#frag",
		"git@github.com:org/repo.git",
		"mailto:someone@example.com",
		"http://user@example.com/",
		"scikit-learn task-force desk-top sk-learn",
		"npm_config_cache=/home/u/.npm",
		"ghp_ tokens are classic personal access tokens",
		"xoxo-hugs",
		"eyJhbGciOiJIUzI1NiJ9", // a JWT header alone
		"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUb2z\n-----END CERTIFICATE-----",
		"-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
		"| id | basic | bearer |",
		"AccountKey=short",
		"AKIA1234",
		"redis://localhost:6379/0",
		"git+ssh://git@github.com/org/repo.git@v1.2.0",
		"https://host:8443/a:b@c",
		"xoxe-1-xxx",
		"sk_live_short",
	}
}
