// Package jqengines runs jq programs under the jq releases that the recipes
// must work with and that are not on the PATH: jq 1.7.1 and jq 1.8.2,
// compiled to WebAssembly (npm jq-wasm) and run by Node.js through jq.mjs in
// this folder. Install them with
//
//	npm ci --prefix internal/testing/jqengines
//
// jq 1.6 is Debian's jq on the PATH, and gojq runs in process; the tests
// that compare engines run those themselves.
//
// An [Engine] is safe for concurrent use; its jobs run one at a time.
package jqengines

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
)

// Versions are the jq releases of package.json, oldest first.
var Versions = []string{"1.7.1", "1.8.2"}

// ErrNotInstalled is returned by [Start] when node is not on the PATH or the
// npm packages are not installed.
var ErrNotInstalled = errors.New("jqengines: node or the jq-wasm packages are not installed (npm ci --prefix internal/testing/jqengines)")

// Dir returns the folder of jq.mjs and package.json.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Result is what jq writes and its exit code.
type Result struct {
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	ExitCode int    `json:"exitCode"`
}

// Engine is one jq release running in a Node.js process.
type Engine struct {
	Version string // e.g. "1.7.1"

	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// Start starts the engine of version, one of [Versions]. Close stops it.
func Start(version string) (*Engine, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	if _, err := os.Stat(filepath.Join(Dir(), "node_modules", "jq-"+version, "package.json")); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotInstalled, err)
	}
	cmd := exec.Command(node, filepath.Join(Dir(), "jq.mjs"), version, "--serve")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Engine{Version: version, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

// Run runs jq with args (options, then the filter last, as on a command
// line) on input, the bytes jq would read from its standard input.
func (e *Engine) Run(args []string, input []byte) (Result, error) {
	job, err := json.Marshal(struct {
		Args  []string `json:"args"`
		Input string   `json:"input"`
	}{args, string(input)})
	if err != nil {
		return Result{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, err := e.in.Write(append(job, '\n')); err != nil {
		return Result{}, fmt.Errorf("jqengines: jq %s: %w", e.Version, err)
	}
	line, err := e.out.ReadBytes('\n')
	if err != nil {
		return Result{}, fmt.Errorf("jqengines: jq %s: %w", e.Version, err)
	}
	var r Result
	if err := json.Unmarshal(line, &r); err != nil {
		return Result{}, fmt.Errorf("jqengines: jq %s: %w", e.Version, err)
	}
	return r, nil
}

// Close stops the engine and waits for its process to exit.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.in.Close()
	return e.cmd.Wait()
}
