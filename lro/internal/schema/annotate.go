package schema

// Annotate completes inferred, a schema an [Inferrer] made of the records,
// in place, with what reflected, the schema [Reflect] made of their Go
// type, knows and the records cannot show: the format of a string, a number
// type where every value seen was an integer, and, when descriptions is
// true, each property's description; only where both schemas describe the
// same place. The properties and which are required stay the records', and
// every line still validates.
func Annotate(inferred, reflected map[string]any, descriptions bool) {
	if inferred == nil || reflected == nil {
		return
	}
	if descriptions {
		if d, ok := reflected["description"].(string); ok && d != "" {
			inferred["description"] = d
		}
	}
	switch inferred["type"] {
	case "string":
		if f, ok := reflected["format"].(string); ok && f != "" {
			inferred["format"] = f
		}
	case "integer":
		if reflected["type"] == "number" {
			inferred["type"] = "number"
		}
	}
	if ip, ok := inferred["properties"].(map[string]any); ok {
		rp, _ := reflected["properties"].(map[string]any)
		for name, s := range ip {
			is, _ := s.(map[string]any)
			rs, _ := rp[name].(map[string]any)
			Annotate(is, rs, descriptions)
		}
	}
	if ii, ok := inferred["items"].(map[string]any); ok {
		ri, _ := reflected["items"].(map[string]any)
		Annotate(ii, ri, descriptions)
	}
}
