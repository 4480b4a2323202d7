package lrotest

import (
	"context"
	"fmt"
)

// view is what the kit saw of one call, which every check of its scope
// reads, and the outcome of the check running on it.
type view struct {
	*observed
	c   *checker
	ctx context.Context

	problems []string // what the running check found wrong
	skipped  string   // why the running check is skipped
}

// blocked returns why v lacks something of n, or "".
func (v *view) blocked(n need) string {
	switch {
	case n == 0:
	case v.Blocker != "":
		return v.Blocker
	case n&(needFile|needHeader|needFields) != 0 && v.File == nil:
		return v.NoFile
	case n&(needHeader|needFields) != 0 && v.File.Header == nil:
		return "depends on L1.header.type"
	case n&needFields != 0 && headerSchema.Validate(v.File.Header) != nil:
		return "depends on L1.header.fields"
	case n&needRecipes != 0 && v.Recipes == nil:
		return v.NoRecipes
	}
	return ""
}

// fail records a violation of the running check's requirement.
func (v *view) fail(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

// skip says why the running check cannot check its requirement.
func (v *view) skip(format string, args ...any) { v.skipped = fmt.Sprintf(format, args...) }
