package extract

import (
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/offload"
	"github.com/zircote/lro-go/lro/descriptor"
)

// Guidance renders the guidance of an offload descriptor for a server that
// registered the tools of [AddTools]: the specification's native-tool
// template, which directs the model to lro_extract instead of shell
// commands. Set it as [descriptor.Input.Guidance]; the descriptor keeps its
// jq_recipes for clients with a shell.
//
// The text is generated from the tools' real interface: the argument names
// are the ones the tools take, the examples use the file's own recipes with
// their parameter names and default values (taken from the file's records),
// and the recipe list gives each recipe's parameters.
func Guidance(in descriptor.Input) string { return offload.NativeGuidance(in) }

// quote writes s as a JSON string.
func quote(s string) string {
	b, err := jsontext.AppendQuote(nil, s)
	if err != nil {
		b, _ = json.Marshal(s) // invalid UTF-8, replaced
	}
	return string(b)
}
