package jqengines_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zircote/lro-go/internal/testing/jqengines"
)

// start starts the engine of version, skipping the test when it is not
// installed, except under CI (CI set), where that is a failure.
func start(t *testing.T, version string) *jqengines.Engine {
	t.Helper()
	e, err := jqengines.Start(version)
	if errors.Is(err, jqengines.ErrNotInstalled) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestVersions checks that each engine is the jq release it is named for,
// and tells the releases apart by a behavior that changed: ltrimstr on a
// number is the number itself before 1.8 and an error from 1.8 on.
func TestVersions(t *testing.T) {
	for _, v := range jqengines.Versions {
		t.Run(v, func(t *testing.T) {
			e := start(t, v)
			out, err := exec.Command("node", filepath.Join(jqengines.Dir(), "jq.mjs"), v, "--version").Output()
			if err != nil || !strings.HasPrefix(string(out), "jq-"+v) {
				t.Errorf("jq.mjs %s --version = %q, %v; want jq-%s", v, out, err, v)
			}
			r, err := e.Run([]string{"-c", `ltrimstr("x")`}, []byte("1\n"))
			if err != nil {
				t.Fatal(err)
			}
			want8 := strings.HasPrefix(v, "1.8")
			if r, err := e.Run([]string{"-r", ".[]"}, []byte(`[" a ", "b "]`)); err != nil || r.Stdout != " a \nb \n" {
				t.Errorf("jq %s: raw output %+v, %v; want the strings byte for byte, spaces included", v, r, err)
			}
			if got8 := r.ExitCode != 0; got8 != want8 {
				t.Errorf("jq %s: ltrimstr on a number gave %+v; want an error: %v", v, r, want8)
			}
		})
	}
}

// TestCommand runs jq.mjs as a jq-like command, with options, --arg, a slurp
// and an error exit code, the way a shell runs jq.
func TestCommand(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	start(t, jqengines.Versions[0]) // skips when the packages are missing
	cmd := exec.Command(node, filepath.Join(jqengines.Dir(), "jq.mjs"), jqengines.Versions[0], "-s", "-c", "--arg", "v", "it's", `map(select(.a == $v))`)
	cmd.Stdin = strings.NewReader(`{"a":"it's"} {"a":"no"}` + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(out), `[{"a":"it's"}]`+"\n"; got != want {
		t.Errorf("output %q; want %q", got, want)
	}
}
