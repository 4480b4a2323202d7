// Package interop holds the interoperability test of package lro with the
// official TypeScript MCP client, @modelcontextprotocol/sdk from npm, run by
// the machine's Node. The Node dependencies are pinned by package-lock.json;
// install them with
//
//	npm ci --prefix internal/interop
package interop

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// skipOrFail skips the test on a developer machine that lacks a
// prerequisite, and fails it in CI (the CI environment variable is set),
// where the prerequisites must be present.
func skipOrFail(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// TestTypeScriptClient builds testserver and drives it with client.mjs: the
// official TypeScript client lists the tools and calls each one inline and
// offloaded, as testserver-plan.json says, and must raise no validation
// error, except for the negative control broken_schema, which it must reject.
func TestTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		skipOrFail(t, "node is not installed; the interop test needs Node.js 20 or later")
	}
	sdk := filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		skipOrFail(t, "the TypeScript MCP SDK is not installed: run npm ci --prefix internal/interop")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	bin := filepath.Join(t.TempDir(), "testserver")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./testserver")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testserver: %v\n%s", err, out)
	}

	outDir := t.TempDir()
	cmd := exec.CommandContext(ctx, node, "client.mjs", "--plan", "testserver-plan.json", bin, "-output-dir", outDir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("client.mjs exited with status %d:\n%s", exit.ExitCode(), out)
		}
		t.Fatalf("running client.mjs: %v\n%s", err, out)
	}
	t.Logf("client.mjs:\n%s", out)
	if entries, err := os.ReadDir(outDir); err != nil || len(entries) == 0 {
		t.Errorf("no offloaded files in the output folder (err %v)", err)
	}
}
