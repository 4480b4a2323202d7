package extract_test

import (
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/lro"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zircote/lro-go/lro/extract"
)

const secret = "TOP-SECRET-d6f1"

// TestPathAttacks attacks the rule that only offloaded files directly in the
// output folder are read, with each of the three tools, and wants a tool
// error that names the problem, never the content of a file outside.
func TestPathAttacks(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	outside := filepath.Join(root, "elsewhere")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	good := offload(t, dir, "light", memories(3, "light"))
	name := filepath.Base(good)
	// A valid offloaded file outside the folder, holding a secret.
	secretFile := offload(t, outside, "light", []any{map[string]any{"id": secret, "title": secret, "namespace": secret, "memory_type": secret}})
	plainSecret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(plainSecret, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mk := func(base string) string { return filepath.Join(dir, base) }
	linkOut := mk(disk.Name("", "recall", ulidFor(t, 1)))
	if err := os.Symlink(secretFile, linkOut); err != nil {
		t.Fatal(err)
	}
	linkIn := mk(disk.Name("", "recall", ulidFor(t, 2)))
	if err := os.Symlink(good, linkIn); err != nil {
		t.Fatal(err)
	}
	subdir := mk(disk.Name("", "recall", ulidFor(t, 3)))
	if err := os.Mkdir(subdir, 0o700); err != nil {
		t.Fatal(err)
	}
	fifo := mk(disk.Name("", "recall", ulidFor(t, 4)))
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	badHeader := mk(disk.Name("", "recall", ulidFor(t, 5)))
	if err := os.WriteFile(badHeader, []byte(`{"type":"something else"}`+"\n{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := mk(disk.Name("", "recall", ulidFor(t, 6)))
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	notes := mk("notes.txt")
	if err := os.WriteFile(notes, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	otherPrefix := mk(disk.Name("other", "recall", ulidFor(t, 7)))
	if err := os.WriteFile(otherPrefix, []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	// A hard link in the folder to the secret file outside it.
	hardLink := mk(disk.Name("", "recall", ulidFor(t, 9)))
	if err := os.Link(secretFile, hardLink); err != nil {
		t.Fatal(err)
	}
	dirLink := filepath.Join(dir, "up")
	if err := os.Symlink(outside, dirLink); err != nil {
		t.Fatal(err)
	}

	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	tests := []struct {
		name, path, want string
	}{
		{"empty path", "", "file_path is empty"},
		{"NUL byte", good + "\x00", "NUL byte"},
		{"NUL byte before a suffix", good + "\x00/../../" + filepath.Base(plainSecret), "NUL byte"},
		{"absolute path outside", plainSecret, "outside the output folder"},
		{"offloaded file outside", secretFile, "outside the output folder"},
		{"system file", "/etc/passwd", "outside the output folder"},
		{"dot-dot out of the folder", filepath.Join(dir, "..", "elsewhere", filepath.Base(secretFile)), "outside the output folder"},
		{"dot-dot that stays inside", dir + "/../out/" + name, "'..'"},
		{"relative path", "out/" + name, "relative path"},
		{"relative dot path", "./" + name, "relative path"},
		{"relative dot-dot path", "../elsewhere/" + filepath.Base(secretFile), "relative path"},
		{"dot-dot alone", "..", "relative path"},
		{"symbolic link pointing out", linkOut, "symbolic link"},
		{"symbolic link pointing in", linkIn, "symbolic link"},
		{"symbolic link to a folder outside", filepath.Join(dirLink, filepath.Base(secretFile)), "outside the output folder"},
		{"hard link to a file outside", hardLink, "2 hard links"},
		{"the folder itself", dir, "is the output folder"},
		{"folder named like an offloaded file", subdir, "not a regular file"},
		{"FIFO named like an offloaded file", fifo, fifoRefusal},
		{"file that is not offloaded", notes, "not an offloaded file"},
		{"another prefix", otherPrefix, "not an offloaded file"},
		{"temporary file name", mk("." + name + ".tmp"), "not an offloaded file"},
		{"invalid header", badHeader, "not a valid header"},
		{"empty file", empty, "is empty"},
		{"missing file", mk(disk.Name("", "recall", ulidFor(t, 8))), "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for tool, args := range map[string]map[string]any{
				extract.ToolExtract: {"file_path": tt.path, "recipe": 1},
				extract.ToolRead:    {"file_path": tt.path},
				extract.ToolSearch:  {"file_path": tt.path, "pattern": "."},
			} {
				texts, isErr := call(t, cs, tool, args)
				text := strings.Join(texts, "\n")
				if !isErr || !strings.Contains(text, tt.want) {
					t.Errorf("%s(%q): error %v, %q; want an error containing %q", tool, tt.path, isErr, text, tt.want)
				}
				if strings.Contains(text, secret) {
					t.Errorf("%s(%q) revealed the secret: %q", tool, tt.path, text)
				}
			}
		})
	}
	// The same server still serves the good file, by path or by bare name.
	for _, p := range []string{good, name} {
		if texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": p, "query": "length", "slurp": true}); isErr || texts[0] != "3" {
			t.Errorf("file_path %q: %v %q", p, isErr, texts)
		}
	}
}

// TestFolderReachedThroughALink accepts the folder named through a
// symbolic link: the descriptor may name it so (/tmp on macOS).
func TestFolderReachedThroughALink(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "real")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := offload(t, dir, "light", memories(2, "light"))
	alias := filepath.Join(root, "alias")
	if err := os.Symlink(dir, alias); err != nil {
		t.Fatal(err)
	}
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: alias}})
	texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "query": "length", "slurp": true})
	if isErr || texts[0] != "2" {
		t.Errorf("%v %q", isErr, texts)
	}
}

func TestMissingFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "never-created")
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	texts, isErr := call(t, cs, extract.ToolRead, map[string]any{"file_path": filepath.Join(dir, disk.Name("", "recall", ulidFor(t, 1)))})
	if !isErr || !strings.Contains(texts[0], "does not exist") {
		t.Errorf("%v %q", isErr, texts)
	}
}

// TestInputLimits attacks the limits on what a call reads: a record longer
// than MaxRecordBytes, and a file longer than MaxInputBytes.
func TestInputLimits(t *testing.T) {
	dir := t.TempDir()
	huge := strings.Repeat("é", 300_000) // 600,000 bytes on one line
	path := offload(t, dir, "full", []any{map[string]any{"id": "a", "text": "small"}, map[string]any{"id": "b", "text": huge}, map[string]any{"id": "c"}})
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}, MaxRecordBytes: 100_000})
	for tool, args := range map[string]map[string]any{
		extract.ToolExtract: {"file_path": path, "query": ".id"},
		extract.ToolSearch:  {"file_path": path, "pattern": "zzz"},
	} {
		texts, isErr := call(t, cs, tool, args)
		if !isErr || !strings.Contains(texts[0], "line 3") || !strings.Contains(texts[0], "MaxRecordBytes") || !strings.Contains(texts[0], "lro_read") {
			t.Errorf("%s over a huge line: %v %q", tool, isErr, texts)
		}
	}
	// lro_read reads the huge line in pieces, by character.
	texts, isErr := call(t, cs, extract.ToolRead, map[string]any{"file_path": path, "line": 3, "limit": 1, "char_offset": 100_010, "max_chars": 5})
	if isErr || texts[0] != "3: ééééé\n" || !strings.Contains(texts[1], "char_offset=100015") {
		t.Errorf("lro_read of a character range: %v %q", isErr, texts)
	}

	cs = session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}, MaxInputBytes: 10_000})
	for tool, args := range map[string]map[string]any{
		extract.ToolExtract: {"file_path": path, "query": ".id"},
		extract.ToolSearch:  {"file_path": path, "pattern": "zzz"},
		extract.ToolRead:    {"file_path": path, "line": 4},
	} {
		texts, isErr := call(t, cs, tool, args)
		if !isErr || !strings.Contains(texts[0], "MaxInputBytes") {
			t.Errorf("%s past MaxInputBytes: %v %q", tool, isErr, texts)
		}
	}
}

// TestInvalidRecord names the line of a record that is not JSON, whether it
// is among the records a recipe's defaults are taken from or after them.
func TestInvalidRecord(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []int{4, 30} {
		path := filepath.Join(dir, disk.Name("", "recall", ulidFor(t, bad)))
		var b strings.Builder
		b.WriteString(`{"type":"lro_header","operation":"recall","query":null,"count":40,"schema_version":"1.0","timestamp":"2026-01-01T00:00:00Z","estimated_tokens":1,"detail":"light"}` + "\n")
		for n := 2; n <= 41; n++ {
			if n == bad {
				b.WriteString("{not json\n")
				continue
			}
			b.WriteString(`{"id":"x","title":"t","namespace":"n","memory_type":"m"}` + "\n")
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
		for _, args := range []map[string]any{
			{"file_path": path, "recipe": 1},
			{"file_path": path, "recipe": 6},
			{"file_path": path, "query": ".id"},
		} {
			texts, isErr := call(t, cs, extract.ToolExtract, args)
			want := "line " + itoa(bad) + " of " + path + " is not a valid record"
			if !isErr || !strings.Contains(texts[0], want) {
				t.Errorf("%v: %v %q, want %q", args, isErr, texts, want)
			}
		}
	}
}
