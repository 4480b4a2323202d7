package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The lines of README.md around the Quick start's program.
const (
	quickStartBegin = "<!-- quickstart:begin -->"
	quickStartEnd   = "<!-- quickstart:end -->"
)

// quickStart returns the Go program between the Quick start's markers of the
// README at path: the one fenced go block there.
func quickStart(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	_, rest, ok := strings.Cut(readme, quickStartBegin+"\n")
	if !ok {
		t.Fatalf("%s has no line %s", path, quickStartBegin)
	}
	block, _, ok := strings.Cut(rest, quickStartEnd)
	if !ok {
		t.Fatalf("%s has no line %s after %s", path, quickStartEnd, quickStartBegin)
	}
	m := regexp.MustCompile("(?s)\\A```go\n(.*\n)```\n\\z").FindStringSubmatch(block)
	if m == nil {
		t.Fatalf("%s: between %s and %s there must be exactly one ```go block, nothing else:\n%s", path, quickStartBegin, quickStartEnd, block)
	}
	return m[1]
}

// buildQuickStart writes the README's Quick start into a new module that
// requires this one through a replace directive, with this module's go.sum,
// builds it offline-capable (the module cache and GOPROXY as configured)
// and returns the binary. A Quick start that does not build fails the test,
// wherever it runs.
func buildQuickStart(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a module")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no go tool in PATH: %v", err)
		}
		t.Skip("no go tool in PATH")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	src := quickStart(t, filepath.Join(root, "README.md"))
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go \S+$`).Find(gomod)
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	files := map[string]string{
		"main.go": src,
		"go.mod": fmt.Sprintf("module example.com/quickstart\n\n%s\n\nrequire github.com/zircote/lro-go v0.0.0\n\nreplace github.com/zircote/lro-go => %s\n",
			goLine, root),
		"go.sum": string(gosum),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goflags, err := exec.Command(goTool, "env", "GOFLAGS").Output()
	if err != nil {
		t.Fatalf("go env GOFLAGS: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "quickstart")
	cmd := exec.Command(goTool, "build", "-o", bin, ".")
	cmd.Dir = mod
	// -mod=mod completes the new go.mod from the replaced module's
	// requirements, found in the module cache (or through GOPROXY).
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS="+strings.TrimSpace(string(goflags)+" -mod=mod"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the README's Quick start does not build as a module of its own: %v\n%s\nmain.go:\n%s", err, out, src)
	}
	return bin
}

// TestQuickStart checks that a server written from the README's Quick start
// alone conforms at level 3, cleanup and the write-failure fallback
// included, and leaves no file behind past its TTL. Its configuration
// (folder and TTL) comes from a TOML file given with -config, and the
// fallback instance's folder from the environment, both read by
// lro.LoadOptions.
func TestQuickStart(t *testing.T) {
	bin := buildQuickStart(t)
	// The automatic janitor the first offload starts deletes each file about a second
	// after its TTL. The TTL leaves the check, on a loaded machine, time to
	// run the recipes on each file before it expires.
	const ttl = time.Minute
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	config := filepath.Join(dir, "atlatl.toml")
	toml := fmt.Sprintf("[prompt.offload]\noutput_dir = %s\nttl_seconds = %d\n", strconv.Quote(out), int(ttl.Seconds()))
	if err := os.WriteFile(config, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var stdout, stderr strings.Builder
	code := run(ctx, []string{
		"-level", "3",
		"-tool", "list_orders",
		"-large", `{"limit": 300}`,
		"-small", `{"limit": 3}`,
		"-operation", "list_orders",
		"-output-dir", out,
		"-ttl", ttl.String(),
		// Generous: the server sweeps at the next expiry, a TTL at
		// most after the planted file.
		"-cleanup-within", "2m",
		"-fallback",
		"-v",
		"--", bin, "-config", config,
	}, &stdout, &stderr)
	if code != exitPass {
		t.Fatalf("conform exited %d:\n%s\n%s", code, stdout.String(), stderr.String())
	}
	got := rows(stdout.String())
	for _, id := range []string{"L1.offload.large", "L1.inline.small", "L2.recipes.run", "L2.cleanup",
		"L3.fallback.succeeds", "L3.fallback.warning", "L3.fallback.truncated"} {
		if got[id] != "pass" {
			t.Errorf("%s: %q, want pass:\n%s", id, got[id], stdout.String())
		}
	}
	if t.Failed() {
		return
	}

	// The server, started again, offloads once: that starts its automatic janitor,
	// which deletes what the check left and the new file once their TTL
	// has passed, while the server runs. The deadline only bounds a
	// failure: it is generous for a loaded machine.
	cmd := exec.Command(bin, "-config", config)
	var serverErr lockedBuffer
	cmd.Stderr = &serverErr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "quickstart-test", Version: "v0.1.0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("starting the Quick start again: %v\n%s", err, serverErr.String())
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_orders", Arguments: map[string]any{"limit": 300}})
	if err != nil || res.IsError {
		t.Fatalf("list_orders: %v %v\n%s", err, res, serverErr.String())
	}
	written, err := filepath.Glob(filepath.Join(out, "atlatl-list_orders-*.jsonl"))
	if err != nil || len(written) == 0 {
		t.Fatalf("no offloaded file in %s after an offloading call (%v): nothing to see expire", out, err)
	}
	deadline := time.Now().Add(ttl + 2*time.Minute)
	for {
		left, err := os.ReadDir(out)
		if err != nil {
			t.Fatal(err)
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			var names []string
			for _, e := range left {
				info, _ := e.Info()
				if info != nil {
					names = append(names, fmt.Sprintf("%s (mode %v, modified %s)", e.Name(), info.Mode(), info.ModTime().UTC().Format(time.RFC3339)))
				}
			}
			t.Fatalf("files left in %s two minutes after the TTL of %s passed, the server running:\n%s\nserver's standard error:\n%s",
				out, ttl, strings.Join(names, "\n"), serverErr.String())
		}
		time.Sleep(250 * time.Millisecond)
	}
}
