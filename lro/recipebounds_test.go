package lro_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/lro"
)

// TestRecipesOfEscapedNamesWithinThreshold: the recipes of records whose
// field names and values are made of characters that the shell and JSON
// escape (an apostrophe, which a command writes as 5 bytes of the JSON
// text, a quotation mark, a backslash, a control character) keep the
// descriptor within the threshold, as those of plain names of the same
// length do: the bound of what a recipe names is on the name as the
// command writes it, not on its bytes. Names of 199 apostrophes had each
// "Count by" recipe take 3,382 bytes and the descriptor 4,089 tokens at
// the threshold of 1,600. A name and value within the bound once escaped
// are still named, and every recipe runs, with the same output, under
// jq 1.6, 1.7.1, 1.8.2 and gojq, and counts the records right.
func TestRecipesOfEscapedNamesWithinThreshold(t *testing.T) {
	needRealJQ(t)
	engs := realEngines(t)
	for _, tt := range []struct {
		name          string
		char          string // as a JSON string writes it
		nameN, valueN int    // how many of char in a name (before two digits), and in a value (before one)
		named         bool   // whether the recipes name the fields
	}{
		{"apostrophes", `'`, 197, 150, false},
		{"quotation marks", `\"`, 197, 150, false},
		{"backslashes", `\\`, 197, 150, false},
		{"control characters", `\u0001`, 197, 150, false},
		// Values of more than 64 bytes: no field is taken for a key
		// (keyField), which every recipe of large records would list.
		{"apostrophes within the bound", `'`, 39, 70, true},
		{"quotation marks within the bound", `\"`, 49, 70, true},
		{"plain, for comparison", `a`, 197, 150, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const records, fields, values = 100, 30, 3
			var b strings.Builder
			b.WriteByte('[')
			for i := range records {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteByte('{')
				for k := range fields {
					if k > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, `"%s%02d":"%s%d"`, strings.Repeat(tt.char, tt.nameN), k, strings.Repeat(tt.char, tt.valueN), i%values)
				}
				b.WriteByte('}')
			}
			b.WriteByte(']')
			text := b.String()
			h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
			}
			s := newServer()
			s.AddTool(&mcp.Tool{Name: "t", InputSchema: rawInputSchema}, lro.Wrap(h, &lro.Options{OutputDir: t.TempDir()}))
			res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			d := descriptorOf(t, res)
			data := res.Content[0].(*mcp.TextContent).Text
			if n := estimate.Tokens(data); n > lro.DefaultThresholdTokens {
				t.Errorf("a descriptor of ~%d tokens (%d bytes), above the threshold of %d", n, len(data), lro.DefaultThresholdTokens)
			}
			if len(d.JqRecipes) != 10 {
				t.Fatalf("%d recipes, want 10: %.300s", len(d.JqRecipes), data)
			}

			// Each field holds one of values values, in these many records.
			want := map[string]int{}
			for i := range records {
				want[strings.Repeat(string(decodedChar(t, tt.char)), tt.valueN)+fmt.Sprint(i%values)]++
			}
			named := false
			base := jqBaseline(t, d.FilePath)
			for i, r := range d.JqRecipes {
				runEverywhere(t, engs, i+1, r, d.FilePath, base)
				out, _, err := cpuRun(r.Command)
				if err != nil {
					continue // reported by runEverywhere
				}
				switch {
				case r.Description == "Count the records":
					if got := strings.TrimSpace(string(out)); got != fmt.Sprint(records) {
						t.Errorf("recipe %d %q: %s, want %d", i+1, r.Description, got, records)
					}
				case strings.HasPrefix(r.Description, "Count by "+strings.Repeat(string(decodedChar(t, tt.char)), tt.nameN)):
					named = true
					got := map[string]int{}
					for _, v := range outputValues(out, false) {
						o, _ := v.(map[string]any)
						for k, x := range o {
							if k != "count" {
								n, _ := o["count"].(float64)
								got[fmt.Sprint(x)] = int(n)
							}
						}
					}
					if len(got) != values || !sameCounts(got, want) {
						t.Errorf("recipe %d %q counts %v, want %d values of %v", i+1, r.Description, got, values, want)
					}
				}
				if !tt.named && strings.Contains(r.Command, strings.Repeat(string(decodedChar(t, tt.char)), 30)) {
					t.Errorf("recipe %d %q names a field or value beyond the bound: %.300s", i+1, r.Description, r.Command)
				}
			}
			if named != tt.named {
				t.Errorf("a recipe counts by a field: %v, want %v", named, tt.named)
			}
		})
	}
}

// decodedChar returns the character that the JSON string text c writes.
func decodedChar(t *testing.T, c string) rune {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(`"`+c+`"`), &s); err != nil || len([]rune(s)) != 1 {
		t.Fatalf("%q is not one character: %v", c, err)
	}
	return []rune(s)[0]
}

// sameCounts reports whether every value counted in got has the count of
// want.
func sameCounts(got, want map[string]int) bool {
	for v, n := range got {
		if want[v] != n {
			return false
		}
	}
	return true
}
