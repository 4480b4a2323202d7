package schema_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zircote/lro-go/lro/internal/schema"
)

func ExampleInferrer() {
	var in schema.Inferrer
	for _, rec := range []string{
		`{"id":1,"title":"Cache on write","tags":["cache"]}`,
		`{"id":2,"title":null,"score":0.5}`,
		`not JSON`,
	} {
		if err := in.AddFields([]byte(rec), nil); err != nil {
			fmt.Println(errors.Is(err, schema.ErrInvalidRecords))
		}
	}
	out, _ := json.MarshalIndent(in.Schema(), "", "  ")
	fmt.Println(string(out))
	// Output:
	// true
	// {
	//   "properties": {
	//     "id": {
	//       "type": "integer"
	//     },
	//     "score": {
	//       "type": "number"
	//     },
	//     "tags": {
	//       "items": {
	//         "type": "string"
	//       },
	//       "type": "array"
	//     },
	//     "title": {
	//       "type": [
	//         "null",
	//         "string"
	//       ]
	//     }
	//   },
	//   "required": [
	//     "id",
	//     "title"
	//   ],
	//   "type": "object"
	// }
}
