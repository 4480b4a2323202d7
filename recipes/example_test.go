package recipes_test

import (
	"encoding/json"
	"fmt"

	"github.com/zircote/lro-go/recipes"
)

// Memory records get the specification's library, its parameters taken from
// the records.
func ExampleSelect() {
	sample := []json.RawMessage{
		json.RawMessage(`{"id":"01J1","title":"Use Redis for session caching","namespace":"_semantic/decisions","memory_type":"semantic","tags":["architecture"],"content":"Redis keeps sessions hot","confidence":0.9}`),
		json.RawMessage(`{"id":"01J2","title":"Rotate OAuth keys","namespace":"_procedural/runbooks","memory_type":"procedural","tags":["security"],"content":"Rotate keys every quarter","confidence":0.7}`),
		json.RawMessage(`{"id":"01J3","title":"Incident: cache stampede","namespace":"_semantic/patterns","memory_type":"semantic","tags":["architecture","ops"],"content":"Stampede after deploy","confidence":0.8}`),
	}
	rs, memory := recipes.Select(recipes.Medium, sample)
	fmt.Println("memory records:", memory)
	for i, r := range rs {
		fmt.Printf("%d. %s\n   %s\n", i+1, r.Description, r.Command("/tmp/atlatl-recall-01JABC.jsonl"))
	}
	// Output:
	// memory records: true
	// 1. List titles with namespaces
	//    tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -r '[.title,.namespace]|@tsv'
	// 2. Filter by namespace prefix
	//    tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -c --arg namespace _semantic 'select(.namespace|strings|startswith($namespace))'
	// 3. Search titles by keyword (case-insensitive regex)
	//    tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -c --arg keyword cache 'select(.title|strings|test($keyword;"i"))'
	// 4. Extract IDs and titles only
	//    tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -c '{id,title,namespace}'
	// 5. Filter by memory type
	//    tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -c --arg memory_type semantic 'select(.memory_type == $memory_type)'
	// 6. Count by namespace
	//    tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -sc 'group_by(.namespace)|map({namespace:.[0].namespace,count:length})|.[]'
	// 7. Filter by tag
	//    tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -c --arg tag architecture 'select(any(.tags[]?;. == $tag))'
	// 8. Sort by created date, oldest first
	//    tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -sc 'sort_by(.created)|.[]'
	// 9. Sort by confidence, highest first
	//    tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -sc 'sort_by(.confidence)|reverse|.[]'
	// 10. Search content by keyword (case-insensitive regex)
	//    tail -n +2 /tmp/atlatl-recall-01JABC.jsonl | jq -c --arg keyword deploy 'select(.content|strings|test($keyword;"i"))'
}

// Other records get recipes derived from what their fields are: here a
// GitHub issue listing, whose number is looked up and listed, comments
// ranked and summed, labels filtered by membership, state counted and
// created_at filtered by range.
func ExampleSelect_generic() {
	sample := []json.RawMessage{
		json.RawMessage(`{"number":3,"title":"Crash on start","state":"open","labels":[{"name":"bug"}],"comments":4,"created_at":"2025-01-05T10:00:00Z"}`),
		json.RawMessage(`{"number":2,"title":"Docs typo","state":"closed","labels":[],"comments":0,"created_at":"2025-01-03T09:00:00Z"}`),
		json.RawMessage(`{"number":1,"title":"Slow under load","state":"open","labels":[{"name":"bug"},{"name":"perf"}],"comments":9,"created_at":"2025-01-01T08:00:00Z"}`),
	}
	rs, _ := recipes.Select(recipes.Full, sample)
	for i, r := range rs {
		fmt.Printf("%d. %s\n", i+1, r.Description)
	}
	fmt.Println(rs[6].Command("/tmp/issues.jsonl"))
	// Output:
	// 1. Count the records
	// 2. List number, title, state, comments and created_at
	// 3. Show the record with a given number
	// 4. Search title for a keyword
	// 5. Filter by state
	// 6. Count by state
	// 7. Filter by a name in labels
	// 8. Top 10 by comments
	// 9. Stats of comments
	// 10. Filter by created_at range
	// tail -n +2 /tmp/issues.jsonl | jq -c --arg value bug 'objects|select(any(.labels[]?|objects;.name == $value))'
}

// The lines of a plain-text result are {"line": N, "text": "..."} records.
// Lines that start with a time and carry a level get a count by level, the
// error lines and a time range.
func ExampleSelect_logs() {
	sample := []json.RawMessage{
		json.RawMessage(`{"line":1,"text":"2025-03-14T09:00:01Z INFO server started"}`),
		json.RawMessage(`{"line":2,"text":"2025-03-14T09:00:07Z ERROR disk full"}`),
		json.RawMessage(`{"line":3,"text":"2025-03-14T09:01:30Z WARN retrying upload"}`),
	}
	rs, _ := recipes.Select(recipes.Full, sample)
	for i, r := range rs {
		fmt.Printf("%d. %s\n", i+1, r.Description)
	}
	fmt.Println(rs[4].Command("/tmp/log.jsonl"))
	// Output:
	// 1. Count the lines
	// 2. Lines with a keyword (like grep -n)
	// 3. Count the lines with a keyword
	// 4. Lines at level ERROR, FATAL or CRITICAL
	// 5. Lines in a time range
	// 6. Count the lines by level
	// 7. Lines by number range
	// 8. Show the last 20 lines
	// 9. Lines without a keyword (like grep -v)
	// 10. Print the text without line numbers
	// tail -n +2 /tmp/log.jsonl | jq -r --arg from 2025-03-14T09:00:07 --arg to 2025-03-14T09:02 'objects|select(.text|strings|. >= $from and . < $to)|"\(.line): \(.text)"'
}

func ExampleRecipe_Args() {
	rs, _ := recipes.Select(recipes.Light, []json.RawMessage{
		json.RawMessage(`{"id":"01J1","title":"Rotate OAuth keys","namespace":"_procedural","memory_type":"procedural","tags":["security"]}`),
	})
	r := rs[6]
	fmt.Printf("%q\n", r.Args())
	// Output:
	// ["-c" "--arg" "tag" "security" "select(any(.tags[]?; . == $tag))"]
}

// Label names a recipe in a few words, and Field the record field that a
// parameter is matched against, for a program that lists recipes or states
// their conditions its own way.
func ExampleRecipe_Field() {
	rs, _ := recipes.Select(recipes.Light, []json.RawMessage{
		json.RawMessage(`{"id":"01J1","title":"Rotate OAuth keys","namespace":"_procedural","memory_type":"procedural","tags":["security"]}`),
	})
	r := rs[2]
	fmt.Printf("%s: %q, field %q\n", r.Label, r.Args(), r.Field("keyword"))
	// Output:
	// search titles: ["-c" "--arg" "keyword" "keys" "select(.title | strings | test($keyword; \"i\"))"], field "title"
}

// Projection gives the fields a preview of the records shows: here those
// that identify an issue, its state and its comments.
func ExampleProjection() {
	rs, _ := recipes.Select(recipes.Full, []json.RawMessage{
		json.RawMessage(`{"number":3,"title":"Crash on start","state":"open","comments":4,"created_at":"2025-01-05T10:00:00Z"}`),
		json.RawMessage(`{"number":2,"title":"Docs typo","state":"closed","comments":0,"created_at":"2025-01-03T09:00:00Z"}`),
		json.RawMessage(`{"number":1,"title":"Slow under load","state":"open","comments":9,"created_at":"2025-01-01T08:00:00Z"}`),
	})
	fmt.Println(recipes.Projection(rs))
	// Output:
	// [[number] [title] [state] [comments]]
}
