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
	for _, r := range rs {
		fmt.Printf("%d. %s\n   %s\n", r.Number, r.Description, r.Command("/tmp/atlatl-recall-01JABC.jsonl"))
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

// Other records get recipes derived from their fields: here the text lines
// of a plain-text result.
func ExampleSelect_generic() {
	sample := []json.RawMessage{
		json.RawMessage(`{"line":1,"text":"ERROR disk full"}`),
		json.RawMessage(`{"line":2,"text":"INFO retrying upload"}`),
	}
	rs, _ := recipes.Select(recipes.Full, sample)
	for _, r := range rs[:4] {
		fmt.Printf("%d. %s: %s\n", r.Number, r.Description, r.Command("/tmp/out.jsonl"))
	}
	// Output:
	// 1. Count lines: tail -n +2 /tmp/out.jsonl | jq -s length
	// 2. Search lines by keyword, with line numbers (like grep -n): tail -n +2 /tmp/out.jsonl | jq -r --arg keyword disk 'objects|select(.text|strings|test($keyword;"i"))|"\(.line): \(.text)"'
	// 3. Count the lines matching a keyword: tail -n +2 /tmp/out.jsonl | jq -s --arg keyword disk 'map(objects|select(.text|strings|test($keyword;"i")))|length'
	// 4. Show the lines from line number from to line number to: tail -n +2 /tmp/out.jsonl | jq -r --arg from 1 --arg to 20 'objects|select(.line|numbers|. >= ($from|tonumber) and . <= ($to|tonumber))|"\(.line): \(.text)"'
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

func ExampleShellQuote() {
	fmt.Println(recipes.ShellQuote("/tmp/it's here.jsonl"))
	// Output:
	// '/tmp/it'\''s here.jsonl'
}

func ExampleParseDetail() {
	d, err := recipes.ParseDetail(" Full ")
	fmt.Println(d, err)
	_, err = recipes.ParseDetail("verbose")
	fmt.Println(err)
	// Output:
	// full <nil>
	// recipes: unknown detail level "verbose" (want "light", "medium" or "full")
}
