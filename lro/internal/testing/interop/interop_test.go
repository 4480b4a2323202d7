// Package interop holds the interoperability tests of package lro and of the
// LRO proxy with the official TypeScript MCP client,
// @modelcontextprotocol/sdk from npm, run by the machine's Node:
// TestTypeScriptClient (client.mjs) against the servers of this module and
// the proxy, and TestMatrix (matrix.mjs) against the reference servers
// server-everything, server-filesystem and server-memory, DIRECT and
// THROUGH the proxy (testdata/matrix.md is its table). The Node dependencies
// are pinned by package-lock.json; install them with
//
//	npm ci --prefix lro/internal/testing/interop
package interop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	t.Parallel() // beside TestMatrix, which mostly waits
	node, err := exec.LookPath("node")
	if err != nil {
		skipOrFail(t, "node is not installed; the interop test needs Node.js 20 or later")
	}
	sdk := filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		skipOrFail(t, "the TypeScript MCP SDK is not installed: run npm ci --prefix lro/internal/testing/interop")
	}
	runs := []struct {
		name      string
		pkg       string   // the server to build, relative to this folder (proxyPkg: the proxy; testServerPkg: this test binary)
		plan      string   // which calls to make and what to expect
		args      []string // server flags besides -output-dir
		upstream  []string // for the proxy: the upstream command (see upstreamCommand)
		wantFiles bool     // whether the plan offloads
	}{
		{"every wrapping style", testServerPkg, "testserver-plan.json", nil, nil, true},
		{"memory server, small corpus", "../../../../examples/memory", "memory-inline-plan.json", []string{"-records", "8"}, nil, false},
		{"memory server, default corpus", "../../../../examples/memory", "memory-offload-plan.json", nil, nil, true},
		{"proxy in front of the memory server", proxyPkg, "proxy-memory-plan.json", nil,
			[]string{"bin:../../../../examples/memory", "-output-dir", "{{UPSTREAM_DIR}}"}, true},
		{"proxy in front of server-filesystem", proxyPkg, "proxy-filesystem-plan.json", nil,
			[]string{"npm:mcp-server-filesystem", "{{ROOT}}"}, true},
		{"proxy in front of server-everything", proxyPkg, "proxy-everything-plan.json", []string{"-threshold", "10"},
			[]string{"npm:mcp-server-everything"}, true},
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()

			var bin string
			env := os.Environ()
			switch run.pkg {
			case testServerPkg:
				bin, err = os.Executable()
				if err != nil {
					t.Fatal(err)
				}
				env = append(env, testServerEnv+"=1")
			case proxyPkg:
				bin = build(ctx, t, proxyPackage(t))
			default:
				bin = build(ctx, t, run.pkg)
			}
			outDir, upDir, root := t.TempDir(), t.TempDir(), planRoot(t)
			args := append([]string{"client.mjs", "--plan", run.plan, bin, "-output-dir", outDir}, run.args...)
			if run.upstream != nil {
				args = append(append(args, "--"), upstreamCommand(ctx, t, run.upstream, upDir, root)...)
			}
			cmd := exec.CommandContext(ctx, node, args...)
			cmd.Env = append(env, "LRO_PLAN_ROOT="+root)
			out, err := cmd.CombinedOutput()
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
			if entries, _ := os.ReadDir(upDir); len(entries) > 0 {
				t.Errorf("the upstream offloaded %d files itself; behind the proxy it should return results inline", len(entries))
			}
		})
	}
}

// proxyPkg stands for the proxy program in a run's pkg (see proxyPackage),
// testServerPkg for the test server of testserver_test.go.
const (
	proxyPkg      = "proxy"
	testServerPkg = "testserver"
)

// build builds the Go package pkg into a temporary folder.
func build(ctx context.Context, t *testing.T, pkg string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin
}

// upstreamCommand resolves a proxy's upstream command: "bin:PKG" is the Go
// package PKG, built; "npm:NAME" is the server NAME installed in
// node_modules/.bin; {{UPSTREAM_DIR}} and {{ROOT}} are replaced by upDir and
// root.
func upstreamCommand(ctx context.Context, t *testing.T, spec []string, upDir, root string) []string {
	t.Helper()
	out := make([]string, len(spec))
	for i, a := range spec {
		switch {
		case strings.HasPrefix(a, "bin:"):
			a = build(ctx, t, strings.TrimPrefix(a, "bin:"))
		case strings.HasPrefix(a, "npm:"):
			path, err := filepath.Abs(filepath.Join("node_modules", ".bin", strings.TrimPrefix(a, "npm:")))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); err != nil {
				skipOrFail(t, a+" is not installed: run npm ci --prefix lro/internal/testing/interop")
			}
			a = path
		}
		out[i] = strings.NewReplacer("{{UPSTREAM_DIR}}", upDir, "{{ROOT}}", root).Replace(a)
	}
	return out
}

// pixelPNG is a 1x1 PNG image.
var pixelPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

// planRoot prepares the folder that plans name {{ROOT}}: 30 folders of 8
// files each (a large directory tree), long.log (2,000 lines), small.txt
// and pixel.png.
func planRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 30 {
		for j := range 8 {
			write(fmt.Sprintf("package%02d/file%02d.go", i, j), []byte("package x\n"))
		}
	}
	var long strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&long, "%04d\tlog line with a \"quote\", a tab and some text to make it long enough\n", i)
	}
	write("long.log", []byte(long.String()))
	write("small.txt", []byte("hello\nworld\n"))
	write("pixel.png", pixelPNG)
	return root
}
