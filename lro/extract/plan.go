package extract

// A plan lets a recipe run on less than whole records, with the same
// results: decoding records into gojq's values is most of the cost of a
// query, and most recipes look at one or two fields.
//
// Plans are made only for the recipes of package recipes, whose filters are
// known, never for a caller's query: each kind of plan below holds only for
// the filters it lists, and says why. A filter that is not listed, or a
// recipe whose text changes, simply runs on whole records.
//
// The zero plan decodes every record whole.
type plan struct {
	// fields, if not nil, are the only fields of an object record the
	// filter reads: the values of the other fields are checked as JSON but
	// not built. Records that are not objects are decoded whole.
	fields []string
}

// projections are the filters that read only some fields of each record,
// by the filter's text and slurp flag. Why each reads only these fields:
//
//   - [.title, .namespace] | @tsv and {id, title, namespace} (one record at
//     a time) read the record only through .title, .namespace and .id; on
//     an object, .f is the value of key f or null whether or not the other
//     keys are present, so the output (and any error of @tsv on a value
//     that is not a string) is the same on the record reduced to these keys;
//   - the slurped group_by(.f) | map({f: .[0].f, count: length}) | .[] and
//     map(.f | strings) | unique | .[] read each record only through .f
//     (group_by sorts and groups by .f alone, length counts the records of a
//     group, not their fields), and output no record, only values of .f and
//     counts.
//
// A record that is not an object is decoded whole, so .f raises on it the
// same error as before.
var projections = map[struct {
	filter string
	slurp  bool
}][]string{
	{`[.title, .namespace] | @tsv`, false}:                                                       {"title", "namespace"},
	{`{id, title, namespace}`, false}:                                                            {"id", "title", "namespace"},
	{`group_by(.namespace) | map({namespace: .[0].namespace, count: length}) | .[]`, true}:       {"namespace"},
	{`group_by(.memory_type) | map({memory_type: .[0].memory_type, count: length}) | .[]`, true}: {"memory_type"},
	{`map(.namespace | strings) | unique | .[]`, true}:                                           {"namespace"},
}

// planFor returns the plan of a recipe's filter.
func planFor(filter string, slurp bool) plan {
	if fields, ok := projections[struct {
		filter string
		slurp  bool
	}{filter, slurp}]; ok {
		return plan{fields: fields}
	}
	return plan{}
}
