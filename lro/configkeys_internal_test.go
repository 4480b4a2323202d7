package lro

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestUnknownKeyListsEveryKey: the error of an unknown key lists every key
// the loader reads (fields, toolFields), so that a key added to them is
// named there too; the example server's help and config.example.toml are
// checked against that list.
func TestUnknownKeyListsEveryKey(t *testing.T) {
	l := &layer{Options: Options{Tools: map[string]Options{}}, fullFrom: map[string]string{}}
	for section, fields := range map[string]map[string]func(any) error{
		"[prompt.offload]":              l.fields(),
		"[prompt.offload.tools.a_tool]": toolFields(&Options{}),
	} {
		path := filepath.Join(t.TempDir(), "c.toml")
		if err := os.WriteFile(path, []byte(section+"\nno_such_key = 1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		err := l.readFile(path)
		m := regexp.MustCompile(`unknown key \(want ([^)]*)\)`).FindStringSubmatch(errString(err))
		if m == nil {
			t.Fatalf("%s: error %v, want one listing the keys", section, err)
		}
		listed := strings.FieldsFunc(strings.ReplaceAll(m[1], " or ", ", "), func(r rune) bool { return r == ',' || r == ' ' })
		want := slices.Sorted(maps.Keys(fields))
		if section == "[prompt.offload]" {
			want = append(want, "tools")
		}
		slices.Sort(want)
		slices.Sort(listed)
		if !slices.Equal(listed, want) {
			t.Errorf("%s: the error lists %v, want the keys read, %v", section, listed, want)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
