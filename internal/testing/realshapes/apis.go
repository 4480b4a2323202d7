package realshapes

import (
	"embed"
	"path"
	"strings"
)

//go:embed testdata/apis
var apiFiles embed.FS

// An API is a JSON document of testdata/apis (see its README.md): a
// response of a real service or a file a real program wrote.
type API struct {
	Name string // its file name, e.g. "kubectl-get-pods.json"
	Data []byte // its bytes, as committed where it came from
}

// APIs returns the documents of testdata/apis, in the order of their file
// names.
func APIs() ([]API, error) {
	entries, err := apiFiles.ReadDir("testdata/apis")
	if err != nil {
		return nil, err
	}
	var apis []API
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := apiFiles.ReadFile(path.Join("testdata/apis", e.Name()))
		if err != nil {
			return nil, err
		}
		apis = append(apis, API{Name: e.Name(), Data: data})
	}
	return apis, nil
}
