package jqcmd

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/itchyny/gojq"
)

// Refs are the field paths that a jq filter indexes.
type Refs struct {
	// All holds every path, as written: .a.b gives [a b], {a} gives [a],
	// .[0].a and .[].a give [a] (the elements of a slurped array are records
	// too). Array iteration and numeric indexes are skipped within a path; a
	// path through a computed index (.[$k]) ends there.
	All [][]string
	// Record holds the paths of All that index the input records: it leaves
	// out paths that follow the construction of an object with the same key
	// ({count: length} ... .count), and .key and .value when the filter
	// uses to_entries or with_entries.
	Record [][]string
}

// FieldRefs returns the field paths of a jq filter, read from its gojq
// syntax tree. The result is an approximation meant to find fields that no
// record has, not a type checker.
func FieldRefs(filter string) (Refs, error) {
	q, err := gojq.Parse(filter)
	if err != nil {
		return Refs{}, err
	}
	var refs Refs
	built := map[string]bool{} // keys of objects constructed so far
	entries := false           // the filter uses to_entries or with_entries
	add := func(chain []string) {
		if len(chain) > 0 {
			refs.All = append(refs.All, chain)
			if !built[chain[0]] {
				refs.Record = append(refs.Record, chain)
			}
		}
	}
	// walk visits every node of the syntax tree below v, in order.
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				return
			}
			switch n := v.Interface().(type) {
			case *gojq.Term:
				// The path the term indexes from its input (.a.b,
				// .["a"][0].b), added after the paths within it.
				chain, relative := []string(nil), n.Type == gojq.TermTypeIdentity || n.Type == gojq.TermTypeIndex
				indexes := []*gojq.Index{n.Index}
				for _, s := range n.SuffixList {
					indexes = append(indexes, s.Index) // nil for an iteration, which the existence check looks through
				}
				for _, ix := range indexes {
					switch name, isName, isConst := indexKey(ix); {
					case ix == nil || !relative:
					case isName:
						chain = append(chain, name)
					case !isConst:
						// A computed index: what follows is not a known path.
						add(chain)
						chain, relative = nil, false
					}
				}
				walk(v.Elem())
				add(chain)
				return
			case *gojq.ObjectKeyVal:
				key, constKey := n.Key, n.Key != ""
				if n.KeyString != nil && n.KeyString.Queries == nil {
					key, constKey = n.KeyString.Str, true
				}
				switch {
				case !constKey || strings.HasPrefix(key, "$"):
				case n.Val == nil && n.KeyQuery == nil:
					add([]string{key}) // {a} is {a: .a}
				default:
					built[key] = true
				}
			case *gojq.Func:
				entries = entries || n.Name == "to_entries" || n.Name == "with_entries"
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(q))
	if entries {
		refs.Record = slices.DeleteFunc(refs.Record, func(r []string) bool { return r[0] == "key" || r[0] == "value" })
	}
	if len(refs.Record) == 0 {
		refs.Record = nil
	}
	return refs, nil
}

// indexKey returns the field name of an index when it is a constant string
// (.a, ."a", .["a"]), and whether it is a constant: a name, a number or a
// slice.
func indexKey(ix *gojq.Index) (name string, isName, isConst bool) {
	var lit fmt.Stringer
	switch {
	case ix == nil:
		return "", false, false
	case ix.Name != "":
		return ix.Name, true, true
	case ix.IsSlice:
		return "", false, true
	case ix.Str != nil:
		lit = ix.Str
	case ix.Start != nil:
		lit = ix.Start
	default:
		return "", false, false
	}
	// gojq prints a constant string or number as JSON.
	var key any
	if json.Unmarshal([]byte(lit.String()), &key) != nil {
		return "", false, false
	}
	name, isName = key.(string)
	_, isNumber := key.(float64)
	return name, isName, isName || isNumber
}
