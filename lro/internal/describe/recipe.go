package describe

import "github.com/zircote/lro-go/recipes"

// Recipe is a recipe of package recipes taken apart as the guidance and
// lro_extract read it: its place, and its jq arguments ([recipes.Recipe.Args])
// as fields.
type Recipe struct {
	recipes.Recipe // its description, label, Args and Command

	Number int     // 1 to 10: its place
	Filter string  // jq program
	Slurp  bool    // run with -s
	Raw    bool    // run with -r
	Params []Param // jq variables of Filter
}

// Param is a parameter of a recipe: a jq variable, a string.
type Param struct {
	Name  string // without the '$'
	Value string // default value
	Field string // top-level string field matched against it, or "" (recipes.Recipe.Field)
}

// Recipes returns rs, the recipes of one recipes.Select in their order,
// taken apart.
func Recipes(rs []recipes.Recipe) []Recipe {
	out := make([]Recipe, len(rs))
	for i, r := range rs {
		args := r.Args() // [-s] [-r] [-c] (--arg name value)... filter
		out[i] = Recipe{Recipe: r, Number: i + 1, Params: make([]Param, 0, (len(args)-1)/3)}
		for len(args) > 1 {
			switch args[0] {
			case "-s":
				out[i].Slurp = true
			case "-r":
				out[i].Raw = true
			case "--arg":
				out[i].Params = append(out[i].Params, Param{args[1], args[2], r.Field(args[1])})
				args = args[2:]
			}
			args = args[1:]
		}
		out[i].Filter = args[0]
	}
	return out
}
