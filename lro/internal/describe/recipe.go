package describe

import (
	"github.com/go-json-experiment/json"

	"github.com/zircote/lro-go/recipes"
)

// Recipe is a recipe of package recipes with what its JSON form
// ([recipes.Recipe.MarshalJSON]) says of it: what the guidance and
// lro_extract read.
type Recipe struct {
	recipes.Recipe `json:"-"` // its description, Args and Command

	Number int     `json:"number"` // 1 to 10: its place
	Label  string  `json:"label"`  // what it does in a few words
	Filter string  `json:"filter"` // jq program
	Slurp  bool    `json:"slurp"`  // run with -s
	Raw    bool    `json:"raw"`    // run with -r
	Params []Param `json:"params"` // jq variables of Filter
}

// Param is a parameter of a recipe: a jq variable, a string.
type Param struct {
	Name  string `json:"name"`  // without the '$'
	Value string `json:"value"` // default value
	Field string `json:"field"` // top-level string field matched against it, or ""
}

// Recipes returns rs as the engine reads them.
func Recipes(rs []recipes.Recipe) []Recipe {
	out := make([]Recipe, len(rs))
	for i, r := range rs {
		b, err := r.MarshalJSON()
		if err == nil {
			err = json.Unmarshal(b, &out[i])
		}
		if err != nil {
			panic("describe: recipe " + r.Description + ": " + err.Error()) // strings and booleans: not reached
		}
		out[i].Recipe = r
	}
	return out
}
