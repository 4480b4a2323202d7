package recipes_test

import (
	"fmt"
	"strings"
)

// Record sets shaped as real services return them, large: the issues and
// pull requests of a code-hosting REST API (every field it sends, nested
// users, labels, milestones, reactions and repositories), log lines of
// 20 KB, records with many keys, deeply nested records and embeddings.

var (
	ghLogins = []string{"octocat", "hubot", "monalisa", "defunkt", "mojombo", "pjhyett", "wycats", "ezmobius"}
	ghLabels = []struct{ name, color, desc string }{
		{"bug", "d73a4a", "Something isn't working"},
		{"documentation", "0075ca", "Improvements or additions to documentation"},
		{"enhancement", "a2eeef", "New feature or request"},
		{"good first issue", "7057ff", "Good for newcomers"},
		{"help wanted", "008672", "Extra attention is needed"},
		{"p1", "b60205", "Priority 1"},
	}
	ghTitleWords = []string{"crash", "timeout", "docs", "flaky test", "memory leak", "panic", "slow startup", "wrong exit code", "race", "deadlock"}
	ghPlaces     = []string{"on startup", "in the proxy", "under load", "with large files", "after upgrade", "on Windows", "in CI"}
)

const ghAPI = "https://api.github.com"

// ghUser is a user object as the REST API embeds it.
func ghUser(i int) map[string]any {
	login := ghLogins[i%len(ghLogins)]
	id := 583231 + 7919*(i%len(ghLogins))
	u := ghAPI + "/users/" + login
	return map[string]any{
		"login": login, "id": id, "node_id": fmt.Sprintf("MDQ6VXNlcjU4%05d", id%100000),
		"avatar_url":  fmt.Sprintf("https://avatars.githubusercontent.com/u/%d?v=4", id),
		"gravatar_id": "", "url": u, "html_url": "https://github.com/" + login,
		"followers_url": u + "/followers", "following_url": u + "/following{/other_user}",
		"gists_url": u + "/gists{/gist_id}", "starred_url": u + "/starred{/owner}{/repo}",
		"subscriptions_url": u + "/subscriptions", "organizations_url": u + "/orgs",
		"repos_url": u + "/repos", "events_url": u + "/events{/privacy}",
		"received_events_url": u + "/received_events", "type": "User",
		"user_view_type": "public", "site_admin": false,
	}
}

func ghDate(i, hour int) string {
	return fmt.Sprintf("2025-%02d-%02dT%02d:%02d:%02dZ", 1+i%12, 1+(i*7)%28, hour%24, (i*13)%60, (i*29)%60)
}

// ghIssues are n issues of a repository as GET /repos/{owner}/{repo}/issues
// returns them, about 3 KB each, newest first.
func ghIssues(n int) []any {
	repo := ghAPI + "/repos/octo-org/octo-repo"
	var out []any
	for i := range n {
		num := 1347 + n - i
		u := fmt.Sprintf("%s/issues/%d", repo, num)
		labels := []any{}
		for j := 0; j < i%3; j++ {
			l := ghLabels[(i+j*2)%len(ghLabels)]
			labels = append(labels, map[string]any{
				"id": 208045946 + (i+j*2)%len(ghLabels), "node_id": fmt.Sprintf("MDU6TGFiZWwyMDgwNDU5%02d", (i+j*2)%len(ghLabels)),
				"url": repo + "/labels/" + strings.ReplaceAll(l.name, " ", "%20"), "name": l.name,
				"color": l.color, "default": l.name == "bug", "description": l.desc,
			})
		}
		state, closedAt, reason := "open", any(nil), any(nil)
		if i%3 == 2 {
			state, closedAt, reason = "closed", ghDate(i, 20), "completed"
		}
		var milestone any
		if i%4 == 0 {
			milestone = map[string]any{
				"url": repo + "/milestones/1", "html_url": "https://github.com/octo-org/octo-repo/milestones/v1.0",
				"labels_url": repo + "/milestones/1/labels", "id": 1002604, "node_id": "MDk6TWlsZXN0b25lMTAwMjYwNA==",
				"number": 1, "state": "open", "title": "v1.0", "description": "Tracking milestone for version 1.0",
				"creator": ghUser(0), "open_issues": 4, "closed_issues": 8,
				"created_at": "2025-01-10T02:39:35Z", "updated_at": "2025-02-01T11:02:11Z", "closed_at": nil, "due_on": "2025-10-09T23:39:01Z",
			}
		}
		assignees := []any{}
		var assignee any
		if i%5 == 1 {
			assignee = ghUser(i + 3)
			assignees = append(assignees, ghUser(i+3))
		}
		out = append(out, map[string]any{
			"url": u, "repository_url": repo, "labels_url": u + "/labels{/name}",
			"comments_url": u + "/comments", "events_url": u + "/events",
			"html_url": fmt.Sprintf("https://github.com/octo-org/octo-repo/issues/%d", num),
			"id":       1296269000 + num*31, "node_id": fmt.Sprintf("I_kwDOABII58%06d", num), "number": num,
			"title": fmt.Sprintf("%s %s", ghTitleWords[i%len(ghTitleWords)], ghPlaces[i%len(ghPlaces)]),
			"user":  ghUser(i), "labels": labels, "state": state, "locked": false,
			"assignee": assignee, "assignees": assignees, "milestone": milestone,
			"comments": (i * 7) % 23, "created_at": ghDate(i, 9), "updated_at": ghDate(i, 15), "closed_at": closedAt,
			"author_association": []string{"OWNER", "MEMBER", "CONTRIBUTOR", "NONE"}[i%4],
			"type":               nil, "active_lock_reason": nil,
			"sub_issues_summary": map[string]any{"total": 0, "completed": 0, "percent_completed": 0},
			"body": fmt.Sprintf("### Steps to reproduce\n\n1. Run the server %s\n2. Watch the %s\n\nSeen %d times since the last release; logs attached.",
				ghPlaces[(i+1)%len(ghPlaces)], ghTitleWords[(i+2)%len(ghTitleWords)], i),
			"closed_by":    nil,
			"reactions":    map[string]any{"url": u + "/reactions", "total_count": i % 6, "+1": i % 4, "-1": 0, "laugh": 0, "hooray": i % 2, "confused": 0, "heart": 0, "rocket": 0, "eyes": 0},
			"timeline_url": u + "/timeline", "performed_via_github_app": nil, "state_reason": reason,
		})
	}
	return out
}

// ghRepo is a repository object as a pull request's head and base embed it.
func ghRepo(owner string, i int) map[string]any {
	full := owner + "/octo-repo"
	u := ghAPI + "/repos/" + full
	r := map[string]any{
		"id": 1296269 + i, "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5", "name": "octo-repo", "full_name": full,
		"private": false, "owner": ghUser(i), "html_url": "https://github.com/" + full,
		"description": "This your first repo!", "fork": i > 0, "url": u,
	}
	for _, k := range []string{"forks", "keys", "collaborators", "teams", "hooks", "issue_events", "events", "assignees", "branches", "tags", "blobs", "git_tags", "git_refs", "trees", "statuses", "languages", "stargazers", "contributors", "subscribers", "subscription", "commits", "git_commits", "comments", "issue_comment", "contents", "compare", "merges", "archive", "downloads", "issues", "pulls", "milestones", "notifications", "labels", "releases", "deployments"} {
		r[k+"_url"] = u + "/" + k
	}
	for k, v := range map[string]any{
		"git_url": "git:github.com/" + full + ".git", "ssh_url": "git@github.com:" + full + ".git",
		"clone_url": "https://github.com/" + full + ".git", "svn_url": "https://svn.github.com/" + full,
		"homepage": "https://github.com", "language": nil, "forks_count": 9, "stargazers_count": 80,
		"watchers_count": 80, "size": 108, "default_branch": "main", "open_issues_count": 0,
		"is_template": false, "topics": []any{"octocat", "atom", "electron", "api"}, "has_issues": true,
		"has_projects": true, "has_wiki": true, "has_pages": false, "has_downloads": true, "has_discussions": false,
		"archived": false, "disabled": false, "visibility": "public", "pushed_at": "2025-01-26T19:06:43Z",
		"created_at": "2011-01-26T19:01:12Z", "updated_at": "2025-01-26T19:14:43Z",
		"permissions": map[string]any{"admin": false, "push": false, "pull": true}, "allow_forking": true,
		"web_commit_signoff_required": false, "forks": 9, "open_issues": 0, "watchers": 80,
		"license": map[string]any{"key": "mit", "name": "MIT License", "url": ghAPI + "/licenses/mit", "spdx_id": "MIT", "node_id": "MDc6TGljZW5zZW1pdA=="},
	} {
		r[k] = v
	}
	return r
}

// pullRequests are n pull requests as GET /repos/{owner}/{repo}/pulls
// returns them, about 20 KB each.
func pullRequests(n int) []any {
	var out []any
	for _, v := range ghIssues(n) {
		issue := v.(map[string]any)
		num := issue["number"].(int)
		u := fmt.Sprintf("%s/repos/octo-org/octo-repo/pulls/%d", ghAPI, num)
		pr := map[string]any{}
		for _, k := range []string{"url", "id", "node_id", "html_url", "number", "state", "locked", "title", "user", "body", "labels", "milestone", "active_lock_reason", "created_at", "updated_at", "closed_at", "assignee", "assignees", "author_association"} {
			pr[k] = issue[k]
		}
		pr["url"] = u
		i := num % 97
		sha := fmt.Sprintf("%040x", num*1000003)
		for k, val := range map[string]any{
			"diff_url": fmt.Sprintf("https://github.com/octo-org/octo-repo/pull/%d.diff", num), "patch_url": fmt.Sprintf("https://github.com/octo-org/octo-repo/pull/%d.patch", num),
			"issue_url": fmt.Sprintf("%s/repos/octo-org/octo-repo/issues/%d", ghAPI, num), "commits_url": u + "/commits",
			"review_comments_url": u + "/comments", "review_comment_url": ghAPI + "/repos/octo-org/octo-repo/pulls/comments{/number}",
			"comments_url": fmt.Sprintf("%s/repos/octo-org/octo-repo/issues/%d/comments", ghAPI, num), "statuses_url": ghAPI + "/repos/octo-org/octo-repo/statuses/" + sha,
			"merged_at": issue["closed_at"], "merge_commit_sha": sha, "requested_reviewers": []any{ghUser(i + 1)}, "requested_teams": []any{},
			"draft": i%5 == 0, "auto_merge": nil,
			"head": map[string]any{"label": ghLogins[i%len(ghLogins)] + ":fix-" + fmt.Sprint(num), "ref": "fix-" + fmt.Sprint(num), "sha": sha, "user": ghUser(i), "repo": ghRepo(ghLogins[i%len(ghLogins)], i)},
			"base": map[string]any{"label": "octo-org:main", "ref": "main", "sha": fmt.Sprintf("%040x", 7), "user": ghUser(0), "repo": ghRepo("octo-org", 0)},
			"_links": map[string]any{
				"self": map[string]any{"href": u}, "html": map[string]any{"href": issue["html_url"]},
				"issue":    map[string]any{"href": fmt.Sprintf("%s/repos/octo-org/octo-repo/issues/%d", ghAPI, num)},
				"comments": map[string]any{"href": u + "/comments"}, "review_comments": map[string]any{"href": u + "/comments"},
				"review_comment": map[string]any{"href": ghAPI + "/repos/octo-org/octo-repo/pulls/comments{/number}"},
				"commits":        map[string]any{"href": u + "/commits"}, "statuses": map[string]any{"href": ghAPI + "/repos/octo-org/octo-repo/statuses/" + sha},
			},
		} {
			pr[k] = val
		}
		out = append(out, pr)
	}
	return out
}

// longLines are text lines of about size bytes each, words and numbers of
// a log with a level now and then.
func longLines(n, size int) []any {
	words := []string{"request", "served", "in", "ms", "cache", "miss", "for", "key", "user:42,", "retrying", "upstream", "connection", "reset", "by", "peer;", "ERROR", "slow", "query", "(orders)", "ünïcode"}
	var out []any
	for i := range n {
		var b strings.Builder
		for j := 0; b.Len() < size; j++ {
			b.WriteString(words[(i*7+j*j)%len(words)])
			fmt.Fprintf(&b, " %d ", j%1000)
		}
		out = append(out, map[string]any{"line": i + 1, "text": b.String()})
	}
	return out
}

// longLogLines are log lines of about size bytes each that start with a
// time and a level.
func longLogLines(n, size int) []any {
	levels := []string{"INFO", "INFO", "WARN", "INFO", "ERROR", "DEBUG"}
	var out []any
	for i, v := range longLines(n, size) {
		o := v.(map[string]any)
		o["text"] = fmt.Sprintf("2025-03-%02dT%02d:%02d:%02dZ %s %s", 1+i/86400%28, i/3600%24, i/60%60, i%60, levels[i%len(levels)], o["text"])
		out = append(out, o)
	}
	return out
}

// manyKeys are n records of k keys each, as a wide table or a metrics
// dump returns them.
func manyKeys(n, k int) []any {
	var out []any
	for i := range n {
		o := map[string]any{"id": i + 1}
		for j := range k {
			o[fmt.Sprintf("metric_%04d", j)] = float64((i*j)%997) / 10
		}
		out = append(out, o)
	}
	return out
}

// deepRecords are n records nested depth levels deep (jq 1.6 parses at
// most 256 levels), as a tree or an AST returns them.
func deepRecords(n, depth int) []any {
	var out []any
	for i := range n {
		var v any = map[string]any{"name": fmt.Sprintf("leaf %d", i), "value": i}
		for d := range depth {
			v = map[string]any{"kind": []string{"block", "expr", "stmt"}[d%3], "children": []any{v, map[string]any{"kind": "lit", "text": "x"}}}
		}
		out = append(out, map[string]any{"id": i + 1, "tree": v})
	}
	return out
}

// embeddings are n records with a vector of dims floats, as a vector store
// returns them.
func embeddings(n, dims int) []any {
	var out []any
	for i := range n {
		vec := make([]any, dims)
		for j := range vec {
			vec[j] = float64((i*31+j*17)%2000-1000) / 1024
		}
		out = append(out, map[string]any{"id": fmt.Sprintf("doc-%05d", i), "text": fmt.Sprintf("chunk %d of the manual", i), "score": float64(1000-i) / 1000, "embedding": vec})
	}
	return out
}
