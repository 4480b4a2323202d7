package redact

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// rule is one kind of credential: the keywords that any match holds (the
// prefilter), and the expression that finds it. The secret is the last
// capture group that matched, or the whole match when there is none (see
// group).
type rule struct {
	kind     string
	keywords []string // literal, 3 bytes or more; compared without case when fold
	fold     bool
	src      string // the expression
	// back is how far before its keyword a match may start; 0 means at the
	// keyword, where the expression is anchored.
	back int
	// bound requires a byte that is not a letter, digit or '_' before the
	// keyword (back 0 only).
	bound bool
	// multiline rules may match across lines; the others end at the end
	// of the line that holds the keyword.
	multiline bool
	valid     func(secret string) bool // nil accepts every match
	// near, if not nil, rejects a keyword at s[i:j] cheaply, before any
	// expression runs: what follows it cannot be a match.
	near func(s string, i, j int) bool
	re   *regexp.Regexp // src, after \b when bound
	// anchored is re anchored at its start, when back is 0: what reads a
	// window of one keyword.
	anchored *regexp.Regexp
	// window is how far past its keyword's start the expression reads: the
	// longest match, plus one byte.
	window int
	// group is the secret's group: 0 the last that matched, -1 the whole
	// match, else that group (the first named one of an extra pattern).
	group int
}

// The rules are written here as RE2 expressions (linear time on any input)
// modelled on gitleaks' default rules (config/gitleaks.toml of
// github.com/zricethezav/gitleaks/v8, v8.30.1), whose ids name most kinds.
// gitleaks itself was measured too heavy to import for the few rules
// wanted here (70 modules, ~10 MB of binary); see docs/redaction.md.
//
// Order matters: where two matches overlap, the one that starts first is
// kept, and of two that start together the rule listed first.
var builtin = compile([]rule{
	// gitleaks private-key; the body may hold literal \n escapes (a key in a
	// Python literal or in a raw JSON text). A key cut short before its END
	// line is redacted as far as its base64 body goes.
	{kind: "private-key", keywords: []string{"-----BEGIN"}, multiline: true,
		src: `-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:(?:[^-]|-[^-])*-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=]|\r|\n|\\r|\\n)*)`},
	{kind: "aws-access-token", keywords: []string{"A3T", "AKIA", "ASIA", "ABIA", "ACCA"},
		src: `(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`, bound: true},
	// The secret half of an AWS key pair, by its usual names. The keywords
	// are each spelling of the name with '_', '-' or nothing between its
	// words, as the expression and a JSON member's name (keyRules) take it.
	{kind: "aws-secret-access-key", keywords: []string{"secret_access_key", "secretaccesskey", "secret_accesskey", "secretaccess_key",
		"secret-access-key", "secret-accesskey", "secretaccess-key", "secret-access_key", "secret_access-key"}, fold: true,
		src: `(?i)secret[_-]?access[_-]?key\\?["']?\s*[:=]\s*\\?["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+]|$)`},
	{kind: "gcp-api-key", keywords: []string{"AIza"},
		src: `(AIza[A-Za-z0-9_-]{35})(?:[^A-Za-z0-9_-]|$)`, bound: true},
	// A Google OAuth client secret.
	{kind: "gcp-oauth-client-secret", keywords: []string{"GOCSPX-"},
		src: `(GOCSPX-[A-Za-z0-9_-]{28})(?:[^A-Za-z0-9_-]|$)`, bound: true},
	{kind: "azure-ad-client-secret", keywords: []string{"0Q~", "1Q~", "2Q~", "3Q~", "4Q~", "5Q~", "6Q~", "7Q~", "8Q~", "9Q~"},
		src: `(?:^|[\\'"\x60\s>=:(,)|])([a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\'"\x60\s<),|])`, back: 4},
	// The key of an Azure storage account or Service Bus connection string.
	{kind: "azure-account-key", keywords: []string{"accountkey=", "sharedaccesskey="}, fold: true,
		src: `(?i)(?:Account|SharedAccess)Key=([A-Za-z0-9+/]{40,}={0,2})`, bound: true},
	{kind: "github-fine-grained-pat", keywords: []string{"github_pat_"},
		src: `github_pat_[A-Za-z0-9_]{82}`},
	{kind: "github-pat", keywords: []string{"ghp_"}, src: `ghp_[0-9a-zA-Z]{36}`},
	{kind: "github-oauth", keywords: []string{"gho_"}, src: `gho_[0-9a-zA-Z]{36}`},
	{kind: "github-app-token", keywords: []string{"ghu_", "ghs_"}, src: `(?:ghu|ghs)_[0-9a-zA-Z]{36}`},
	{kind: "github-refresh-token", keywords: []string{"ghr_"}, src: `ghr_[0-9a-zA-Z]{36}`},
	// gitleaks gitlab-pat, gitlab-ptt, gitlab-runner-authentication-token,
	// gitlab-deploy-token.
	{kind: "gitlab-pat", keywords: []string{"glpat-"}, src: `glpat-[A-Za-z0-9_.-]{20,}`},
	{kind: "gitlab-token", keywords: []string{"glptt-", "glrt-", "gldt-"},
		src: `glptt-[0-9a-f]{40}|gl(?:rt|dt)-[A-Za-z0-9_-]{20,}`},
	// gitleaks slack-bot-token, slack-user-token, slack-legacy-token,
	// slack-config-access-token, slack-config-refresh-token and
	// slack-legacy-workspace-token.
	{kind: "slack-token", keywords: []string{"xox"},
		src: `xox[abeoprs]-[0-9]{6,}-[0-9A-Za-z-]{8,}|xoxe\.xox[bp]-\d-[A-Za-z0-9]{163,}|xoxe-\d-[A-Za-z0-9]{146,}|xox[ar]-(?:\d-)?[0-9A-Za-z][0-9A-Za-z-]{7,}`},
	{kind: "slack-app-token", keywords: []string{"xapp-"}, fold: true,
		src: `(?i)xapp-\d-[A-Z0-9]+-\d+-[a-z0-9]+`},
	{kind: "slack-webhook-url", keywords: []string{"hooks.slack.com/"},
		src: `hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}`},
	// gitleaks stripe-access-token, without its bound of 99 characters:
	// Stripe issues longer keys.
	{kind: "stripe-access-token", keywords: []string{"sk_test_", "sk_live_", "sk_prod_", "rk_test_", "rk_live_", "rk_prod_"},
		src: `(?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,}\b`, bound: true},
	// gitleaks anthropic-api-key, anthropic-admin-api-key, and OAuth tokens.
	{kind: "anthropic-api-key", keywords: []string{"sk-ant-"},
		src: `sk-ant-(?:api|admin|oat|ort)\d\d-[A-Za-z0-9_-]{32,}`, bound: true},
	// gitleaks openai-api-key, and project, service-account and admin keys
	// by their prefix alone.
	{kind: "openai-api-key", keywords: []string{"sk-proj-", "sk-svcacct-", "sk-admin-"},
		src: `sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}`, bound: true},
	// A key of the legacy form, after the name of its project when it has
	// one (sk-None-…, of the default project).
	{kind: "openai-api-key", keywords: []string{"T3BlbkFJ"},
		src: `\bsk-(?:[A-Za-z0-9_-]{1,64}-)?[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}\b`, back: 88},
	{kind: "npm-access-token", keywords: []string{"npm_"}, fold: true,
		src: `(?i)npm_[a-z0-9]{36}\b`, bound: true},
	{kind: "pypi-upload-token", keywords: []string{"pypi-AgEIcHlwaS5vcmc"},
		src: `pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`},
	// gitleaks jwt: a header and a payload that are both JSON objects.
	{kind: "jwt", keywords: []string{"eyJ"},
		src: `eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]*`, bound: true},
	// The value of a Bearer or Basic authorization, and of an
	// Authorization header or parameter whatever its scheme, or of its
	// quoted parameter (Token token="…", as Rails reads it). A CGI or WSGI
	// environment names the header HTTP_AUTHORIZATION. Here and for
	// the AWS secret key, a quote may be escaped: JSON in a JSON string, or
	// in a log line.
	{kind: "bearer-token", keywords: []string{"bearer"}, fold: true,
		src: `(?i)bearer +([A-Za-z0-9._~+/-]{16,}=*)`, bound: true, valid: mixed, near: followedBy(" ")},
	{kind: "basic-auth", keywords: []string{"basic"}, fold: true,
		src: `(?i)basic +([A-Za-z0-9+/]{8,}={0,2})`, bound: true, valid: userPassword, near: followedBy(" ")},
	{kind: "authorization", keywords: []string{"authorization", "http_authorization"}, fold: true,
		src: `(?i)(?:http_)?authorization\\?["']?\s*[:=]\s*\\?["']?(?:[A-Za-z][A-Za-z0-9-]* +)?(?:[A-Za-z][A-Za-z0-9_-]*=\\?["'])?([A-Za-z0-9._~+/=-]{16,})`, bound: true, valid: mixed, near: followedBy("\"': =\t\\")},
	// The password of a URL (scheme://user:password@host); the rest of the
	// URL stays. The user may be empty (redis://:password@host), and the
	// password ends at the authority's last '@', as URL parsers end it.
	{kind: "url-password", keywords: []string{"://"},
		src: `\b[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/?#@"'|,\\<>\[\]]*:([^\s/?#"'|,\\<>\[\]]+)@`, back: 32, near: userinfo},
})

// compile compiles the expressions of rules, after a word boundary when
// bound (the keywords of those start with a letter), and sets their window.
func compile(rules []rule) []rule {
	for i := range rules {
		src := rules[i].src
		if rules[i].bound {
			src = `\b(?:` + src + `)`
		}
		rules[i].re = regexp.MustCompile(src)
		if rules[i].back == 0 {
			rules[i].anchored = regexp.MustCompile(`^(?:` + src + `)`)
		}
		re, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			panic(err)
		}
		n := maxLen(re)
		if n < 0 || n > maxMatch {
			n = maxMatch
			if rules[i].multiline {
				n = maxBlock
			}
		}
		rules[i].window = n + 1
	}
	return rules
}

// maxMatch bounds the matches of a rule that has no bound of its own, and
// maxBlock those of a multiline one (a private key).
const (
	maxMatch = 16 << 10
	maxBlock = 64 << 10
)

// maxLen returns the length in bytes of the longest match of re, or -1
// when it has none.
func maxLen(re *syntax.Regexp) int {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return len(re.Rune) * utf8.UTFMax // (?i)k matches the Kelvin sign
		}
		return len(string(re.Rune))
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		if re.Op == syntax.OpCharClass && re.Rune[len(re.Rune)-1] < utf8.RuneSelf {
			return 1
		}
		return utf8.UTFMax
	case syntax.OpCapture, syntax.OpQuest:
		return maxLen(re.Sub[0])
	case syntax.OpStar, syntax.OpPlus:
		return -1
	case syntax.OpRepeat:
		n := maxLen(re.Sub[0])
		if re.Max < 0 || n < 0 {
			return -1
		}
		return re.Max * n
	case syntax.OpConcat, syntax.OpAlternate:
		t := 0
		for _, sub := range re.Sub {
			n := maxLen(sub)
			if n < 0 {
				return -1
			}
			if re.Op == syntax.OpConcat {
				t += n
			} else {
				t = max(t, n)
			}
		}
		return t
	}
	return 0 // empty matches: ^, $, \b
}

// followedBy returns a near function that accepts a keyword followed by
// one of the bytes of set.
func followedBy(set string) func(s string, i, j int) bool {
	return func(s string, i, j int) bool { return j < len(s) && strings.IndexByte(set, s[j]) >= 0 }
}

// userinfo accepts "://" followed by user:password@: an authority that
// holds an '@' and a ':' before it.
func userinfo(s string, i, j int) bool {
	colon := false
	for k := j; k < len(s) && k < j+backWindow; k++ {
		switch s[k] {
		case '@':
			return colon
		case ':':
			colon = true
		case '/', '?', '#', ' ', '\t', '\n', '\r', '"', '\'', '\\', '|', ',', '<', '>', '[', ']':
			return false
		}
	}
	return false
}

// mixed accepts a token that is not a word: it holds a digit, or both
// upper and lower case letters.
func mixed(s string) bool {
	upper, lower := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			return true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		}
	}
	return upper && lower
}

// userPassword accepts the base64 of user:password.
func userPassword(s string) bool {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	}
	printable := !bytes.ContainsFunc(b, func(c rune) bool { return c < ' ' || c > '~' })
	return err == nil && printable && bytes.IndexByte(b, ':') > 0
}

// keyRules redact the whole string value of a JSON member with one of these
// names (lower case, without '-' and '_'), when the value has the form the
// named rule's secret has.
var keyRules = map[string]struct {
	kind string
	re   *regexp.Regexp // the whole value; its last group is the secret
	ok   func(string) bool
}{
	"authorization":      {"authorization", authValue, mixed},
	"proxyauthorization": {"authorization", authValue, mixed},
	"httpauthorization":  {"authorization", authValue, mixed},
	"secretaccesskey":    {"aws-secret-access-key", awsSecret, nil},
	"awssecretaccesskey": {"aws-secret-access-key", awsSecret, nil},
}

var (
	authValue = regexp.MustCompile(`^(?:[A-Za-z][A-Za-z0-9-]* +)?(?:[A-Za-z][A-Za-z0-9_-]*=["'])?([A-Za-z0-9._~+/=-]{16,})["']?$`)
	awsSecret = regexp.MustCompile(`^([A-Za-z0-9/+]{40})$`)
)
