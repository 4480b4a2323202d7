package spec

// RecipeCount is the number of jq recipes of every offload descriptor:
// exactly 10.
const RecipeCount = 10

// The parameters of the recipes that the guidance of a descriptor names:
// jq variables, and the keys of an lro_extract params object.
const (
	ParamNamespace  = "namespace"   // namespace prefix, memory recipe 2
	ParamKeyword    = "keyword"     // case-insensitive regular expression
	ParamMemoryType = "memory_type" // memory type, memory recipe 5
	ParamTag        = "tag"         // tag, memory recipe 7
	// ParamValue is the parameter of the generic library's lookups and
	// filters: an identifier, a category or an element.
	ParamValue = "value"
)
