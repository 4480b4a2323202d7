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

// TestTypeScriptClient builds each server and drives it with client.mjs: the
// official TypeScript client lists the tools and calls each one inline and
// offloaded, as the plan says, and must raise no validation error, except for
// the negative controls of testserver, which it must reject.
func TestTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		skipOrFail(t, "node is not installed; the interop test needs Node.js 20 or later")
	}
	sdk := filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		skipOrFail(t, "the TypeScript MCP SDK is not installed: run npm ci --prefix internal/interop")
	}
	runs := []struct {
		name      string
		pkg       string   // the server to build, relative to this folder
		plan      string   // which calls to make and what to expect
		args      []string // server flags besides -output-dir
		wantFiles bool     // whether the plan offloads
	}{
		{"every wrapping style", "./testserver", "testserver-plan.json", nil, true},
		{"memory server, small corpus", "../../examples/memory", "memory-inline-plan.json", []string{"-records", "8"}, false},
		{"memory server, default corpus", "../../examples/memory", "memory-offload-plan.json", nil, true},
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()

			bin := filepath.Join(t.TempDir(), "server")
			build := exec.CommandContext(ctx, "go", "build", "-o", bin, run.pkg)
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build %s: %v\n%s", run.pkg, err, out)
			}

			outDir := t.TempDir()
			args := append([]string{"client.mjs", "--plan", run.plan, bin, "-output-dir", outDir}, run.args...)
			out, err := exec.CommandContext(ctx, node, args...).CombinedOutput()
			if err != nil {
				var exit *exec.ExitError
				if errors.As(err, &exit) {
					t.Fatalf("client.mjs exited with status %d:\n%s", exit.ExitCode(), out)
				}
				t.Fatalf("running client.mjs: %v\n%s", err, out)
			}
			t.Logf("client.mjs:\n%s", out)
			entries, err := os.ReadDir(outDir)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(entries) > 0; got != run.wantFiles {
				t.Errorf("%d offloaded files in the output folder; want files: %v", len(entries), run.wantFiles)
			}
		})
	}
}
