package recipes_test

import "fmt"

// The record sets of the generic tests, one per shape of tool result.

// orders are objects with an id, categories, a number, an array, a date and
// a long text.
func orders(n int) []any {
	customers := []string{"acme", "globex", "initech", "umbrella", "hooli"}
	statuses := []string{"paid", "shipped", "paid", "refunded", "paid", "shipped"}
	products := []string{"widget", "gadget", "sprocket", "gizmo"}
	remarks := []string{
		"Customer asked for express delivery before the holidays, wrapped as a gift",
		"Delivery delayed by the carrier; customer notified by email about the delay",
		"Partial refund approved after a damaged sprocket was reported on arrival",
		"Repeat customer, applied the loyalty discount and free shipping to the order",
	}
	var out []any
	for i := range n {
		items := []any{}
		for j := 0; j <= i%3; j++ {
			items = append(items, products[(i+j)%len(products)])
		}
		out = append(out, map[string]any{
			"id":         fmt.Sprintf("ord-%03d", i),
			"customer":   customers[i%len(customers)],
			"status":     statuses[i%len(statuses)],
			"total":      float64((i*37)%200) + 0.25,
			"items":      items,
			"note":       remarks[i%len(remarks)] + fmt.Sprintf(" (ticket %d)", 1000+i),
			"created_at": fmt.Sprintf("2025-%02d-%02dT08:00:00Z", 1+i%12, 1+(i*5)%28),
		})
	}
	// A record with fields of the wrong type and missing fields.
	out = append(out, map[string]any{"id": "ord-bad", "status": nil, "total": "n/a", "items": "none", "note": 42})
	return out
}

// logs are objects without numbers, with a field missing from some.
func logs(n int) []any {
	levels := []string{"info", "info", "warn", "error", "info"}
	loggers := []string{"http.server", "db.pool", "auth", "scheduler"}
	messages := []string{
		"request served in budget",
		"connection pool exhausted, waiting for a free connection",
		"token refresh failed for client, retrying",
		"nightly compaction finished",
		"slow query detected on orders table",
	}
	var out []any
	for i := range n {
		m := map[string]any{
			"level":   levels[i%len(levels)],
			"logger":  loggers[i%len(loggers)],
			"message": messages[i%len(messages)],
		}
		if i%3 != 0 {
			m["host"] = fmt.Sprintf("web-%d", i%4)
		}
		out = append(out, m)
	}
	return out
}

// oddNames are objects whose field names are not jq identifiers (or are jq
// keywords), with nested objects and quotes in the values.
func oddNames(n int) []any {
	var out []any
	for i := range n {
		out = append(out, map[string]any{
			"user-name": fmt.Sprintf("user %d", i),
			"if":        []string{"then", "else", "then"}[i%3],
			"it's":      []string{"a b", "c'd", `e"f`, "g$h"}[i%4],
			"1st":       float64(i%7) * 1.5,
			"count":     []string{"one", "two"}[i%2],
			"meta":      map[string]any{"tags": []any{"x", fmt.Sprint(i % 2)}, "score": i, "deep": map[string]any{"ok": i%2 == 0, "nil": nil}},
			`note\(x)`:  fmt.Sprintf("observed %s behaviour in %s run number %d", []string{"flaky", "stable", "surprising"}[i%3], []string{"nightly", "weekly"}[i%2], i),
		})
	}
	return out
}

// sentences are plain string records.
func sentences(n int) []any {
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot"}
	var out []any
	for i := range n {
		s := fmt.Sprintf("%s %s item %d", words[i%len(words)], words[(i*5)%len(words)], i%9)
		if i%7 == 0 {
			s = "repeated value"
		}
		out = append(out, s)
	}
	return out
}

// numbers are plain number records.
func numbers(n int) []any {
	var out []any
	for i := range n {
		if i%4 == 0 {
			out = append(out, float64(i%5)) // repeated integers
			continue
		}
		out = append(out, float64((i*73)%101)/4)
	}
	return out
}

// textLines are the {"line", "text"} records of a plain-text result.
func textLines(n int) []any {
	var out []any
	for i := range n {
		var text string
		switch {
		case i%10 == 9:
			text = ""
		case i%6 == 0:
			text = "ERROR: disk quota exceeded on /var/log"
		case i%5 == 0:
			text = "WARN retry budget at 80%"
		default:
			text = fmt.Sprintf("INFO processed batch %d of %d in %dms", i, n, (i*31)%500)
		}
		if i == 17 {
			text = "Ünïcode line with «quotes» and a \\ backslash, longer than the others by far"
		}
		out = append(out, map[string]any{"line": i + 1, "text": text})
	}
	return out
}

// mixed are records of every JSON type, most of them objects.
func mixed(n int) []any {
	var out []any
	for i := range n {
		switch i % 7 {
		case 0, 1, 2, 3:
			out = append(out, map[string]any{"name": fmt.Sprintf("node-%d", i), "kind": []string{"leaf", "branch", "leaf"}[i%3], "weight": i % 5})
		case 4:
			out = append(out, fmt.Sprintf("stray string %d", i))
		case 5:
			out = append(out, float64(i))
		case 6:
			out = append(out, []any{i, "nested", nil, true, map[string]any{"name": "inside"}})
		}
	}
	return append(out, nil, true, false, "")
}

// mixedScalars are records of every JSON type, most of them not objects.
func mixedScalars(n int) []any {
	var out []any
	for i := range n {
		switch i % 6 {
		case 0:
			out = append(out, map[string]any{"name": fmt.Sprintf("node-%d", i)})
		case 1, 2:
			out = append(out, fmt.Sprintf("stray string %d", i%4))
		case 3, 4:
			out = append(out, float64(i%4))
		case 5:
			out = append(out, []any{i, "nested", nil})
		}
	}
	return append(out, nil, true, false, "")
}

// articles are objects with a unique slug, free-text titles, tag arrays and
// dates, but no numbers and no categories.
func articles(n int) []any {
	tags := [][]any{{"go", "testing"}, {"jq"}, {"go", "json"}, {}}
	subjects := []string{"Fuzzing parsers", "Table tests", "Streaming JSON", "Shell quoting", "Golden files"}
	var out []any
	for i := range n {
		out = append(out, map[string]any{
			"slug":      fmt.Sprintf("post-%02d", i),
			"title":     fmt.Sprintf("%s, part %d", subjects[i%len(subjects)], 1+i/len(subjects)),
			"tags":      tags[i%len(tags)],
			"published": fmt.Sprintf("2024-%02d-%02d", 1+(i*5)%12, 1+i%28),
		})
	}
	return out
}

// emptyObjects are objects without fields.
func emptyObjects(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{}
	}
	return out
}

// issues are a GitHub-like issue listing: identifiers (id, number, url,
// node_id), a title and a long body, a state, labels as objects with a
// name, a user with a login, a measure (comments) and dates.
func issues(n int) []any {
	words := []string{"crash", "timeout", "docs", "flaky test", "memory leak", "panic"}
	places := []string{"on startup", "in the proxy", "under load", "with large files", "after upgrade"}
	labelSets := [][]string{{"bug"}, {"bug", "p1"}, {"documentation"}, {}, {"enhancement"}, {"bug", "help wanted"}}
	users := []string{"octocat", "hubot", "monalisa"}
	states := []string{"open", "open", "closed"}
	var out []any
	for i := range n {
		num := 400 - i
		labels := []any{}
		for _, l := range labelSets[i%len(labelSets)] {
			labels = append(labels, map[string]any{"id": 1000 + len(l), "name": l, "color": "d73a4a"})
		}
		issue := map[string]any{
			"url":        fmt.Sprintf("https://api.github.com/repos/o/r/issues/%d", num),
			"id":         2000000000 + num*7,
			"node_id":    fmt.Sprintf("I_kwDO%06d", num),
			"number":     num,
			"title":      fmt.Sprintf("%s %s", words[i%len(words)], places[i%len(places)]),
			"user":       map[string]any{"login": users[i%len(users)], "id": 100 + i%len(users)},
			"labels":     labels,
			"state":      states[i%len(states)],
			"locked":     false,
			"comments":   (i * 7) % 23,
			"created_at": fmt.Sprintf("2025-%02d-%02dT%02d:00:00Z", 1+i%12, 1+(i*3)%28, i%24),
			"body":       fmt.Sprintf("Steps to reproduce: run the server %s and watch the %s. Seen %d times.", places[(i+1)%len(places)], words[(i+2)%len(words)], i),
		}
		if i%4 == 3 {
			issue["body"] = nil
		}
		out = append(out, issue)
	}
	return out
}

// logLines are text lines of a log that starts each line with a time and
// carries a level, with a level next to a non-ASCII letter (where \b of
// Oniguruma and of RE2 disagree) and words that start with a level.
func logLines(n int) []any {
	levels := []string{"INFO", "INFO", "WARN", "INFO", "ERROR", "DEBUG"}
	msgs := []string{"request served", "cache miss for key user:42", "retrying upstream call", "connection reset by peer", "slow query on orders"}
	var out []any
	for i := range n {
		t := fmt.Sprintf("2025-03-14T%02d:%02d:%02dZ", 9+i/60, i%60, (i*17)%60)
		text := fmt.Sprintf("%s %s %s (%dms)", t, levels[i%len(levels)], msgs[i%len(msgs)], (i*37)%900)
		switch {
		case i%9 == 8:
			text = "    at io.Copy(...) continuation of a stack trace"
		case i == 31:
			text = t + " éWARN next to an accented letter, then ERRORS and ERROR_CODE=7"
		}
		out = append(out, map[string]any{"line": i + 1, "text": text})
	}
	return out
}

// bracketLogLines are log lines whose time is in brackets with a space and
// that have no level.
func bracketLogLines(n int) []any {
	var out []any
	for i := range n {
		text := fmt.Sprintf("[2024-12-31 23:%02d:%02d] worker %d finished job %d", 40+i/60, i%60, i%3, i)
		if i%7 == 6 {
			text = fmt.Sprintf("[2024-12-31 23:%02d:%02d] worker %d failed: disk full", 40+i/60, i%60, i%3)
		}
		out = append(out, map[string]any{"line": i + 1, "text": text})
	}
	return out
}
