package recipes

import (
	"sort"

	"github.com/zircote/lro-go/internal/spec"
)

// candidate is a recipe the object library may hold: the ten with the
// lowest rank are kept, then put in order of pos.
type candidate struct {
	rank, pos int
	Recipe
}

// choose returns the spec.RecipeCount candidates of lowest rank (the earlier on
// ties), in order of pos.
func choose(cs []candidate) []Recipe {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].rank < cs[j].rank })
	cs = cs[:spec.RecipeCount]
	sort.Slice(cs, func(i, j int) bool { return cs[i].pos < cs[j].pos })
	out := make([]Recipe, spec.RecipeCount)
	for i, c := range cs {
		out[i] = c.Recipe
	}
	return out
}
