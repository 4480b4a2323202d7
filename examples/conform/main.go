// Command conform checks an MCP server's Large Result Offloading against the
// specification with the conformance kit of package lrotest, and prints a
// pass/fail table with one row per requirement.
//
// It starts the server from a command line (stdio) or connects to it at a
// URL (streamable HTTP):
//
//	conform -tool recall_memories -large '{"query":"semantic","limit":300}' \
//		-small '{"query":"redis","limit":3}' -- ./memory
//	conform -tool recall_memories -large '{"query":"semantic","limit":300}' -url http://localhost:8080/mcp
//
// A server that keeps its results in a store (a bucket its replicas share)
// is checked the same way, with no flag: the kit fetches each result with
// resources/read of its descriptor's resource_link.
//
// It exits with status 0 when no requirement fails, 1 when one does and 2
// when the check cannot run. Run it with -h for every flag.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/lrotest"
	"github.com/zircote/lro-go/recipes"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit statuses.
const (
	exitPass  = 0
	exitFail  = 1
	exitUsage = 2
)

// envOutputDir is the specification's variable for the output folder.
const envOutputDir = "ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR"

const usageHead = `Usage: conform [flags] -- command [args...]
       conform [flags] -url URL

Conform checks a live MCP server's Large Result Offloading (LRO) against the
specification, over the protocol, with the conformance kit of package
github.com/zircote/lro-go/lro/lrotest. It calls -tool with -large arguments
(whose result must be offloaded) and -small ones (whose result must come back
inline), reads the offloaded JSONL files (it must run on the server's
machine, as LRO's clients do, unless the server keeps its results in a store:
then their descriptors carry a handle, and conform fetches each file with
resources/read of its resource_link, into memory), runs every jq recipe
(with jq and no shell when jq is installed, else in process with gojq), and
prints one row per requirement of the chosen -level: pass, FAIL,
warn (a SHOULD not followed) or skip, followed by every reason.

The server is the command after -- (started over stdio; its standard error is
shown when it fails to start, or with -v) or the streamable HTTP endpoint
given by -url.

Checks that need the server's cooperation:
  - cleanup (L2.cleanup), with -cleanup-within: the kit plants an expired file
    named by the convention in the output folder and waits that long for the
    server to delete it; the server must sweep at least that often (the
    example memory server: -cleanup-interval). Skipped for results kept in a
    bucket, unless -cleanup-dir names the store's folder.
  - the write-failure fallback (L3.fallback.*), with -fallback: a second
    instance of the command is started with ` + envOutputDir + `
    naming a path below a regular file, so that no file can be written (the
    command must take its folder from that variable); or with -fallback-url,
    an instance already configured so (for a server with a store, one whose
    store cannot be written).
Observability events (L3.events) are inside the server and always skipped.

Exit status: 0 when no requirement fails, 1 when one does, 2 when the check
cannot run (bad flags, the server does not start, the tool is not listed).

Flags:
`

// options are the parsed flags.
type options struct {
	cfg         lrotest.Config
	url         string
	fallbackURL string
	fallback    bool
	command     []string
	timeout     time.Duration
	verbose     bool
}

// jsonArgs is a flag holding a JSON object of tool arguments.
type jsonArgs struct{ m map[string]any }

func (j *jsonArgs) String() string {
	if j == nil || j.m == nil {
		return ""
	}
	b, _ := json.Marshal(j.m)
	return string(b)
}

func (j *jsonArgs) Set(s string) error {
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return fmt.Errorf("not a JSON object of tool arguments: %q", s)
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value: %q", s)
	}
	j.m = m
	return nil
}

// listFlag is a comma-separated list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	*l = nil
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// errHelp and errUsage end parse: help was asked for, or the flags are bad
// (the reason is already printed).
var errUsage = errors.New("usage")

func parse(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageHead)
		fs.PrintDefaults()
	}
	o := &options{}
	var large, small jsonArgs
	var details listFlag
	level := fs.Int("level", 3, "conformance `level` to check: 1 (basic), 2 (standard) or 3 (full)")
	fs.StringVar(&o.url, "url", "", "check the server at this streamable HTTP `URL` instead of starting a command")
	fs.StringVar(&o.cfg.Tool, "tool", "", "`name` of the tool to call (required)")
	fs.Var(&large, "large", "tool arguments, a JSON `object`, whose result set is above the threshold (required)")
	fs.Var(&small, "small", "tool arguments, a JSON `object`, whose result set is within the threshold (L1.inline.small is skipped without them)")
	fs.Var(&details, "details", "comma-separated detail `levels` to call the tool with as well, for example light,medium,full")
	srv := &lro.Options{}
	o.cfg.Server = srv
	var defaultDetail string
	fs.StringVar(&srv.DetailArgument, "detail-arg", "detail", "the tool `argument` that selects the detail level")
	fs.StringVar(&defaultDetail, "default-detail", "", "the detail `level` the tool uses when a call names none (checked when given)")
	fs.StringVar(&srv.QueryArgument, "query-arg", "query", "the tool `argument` the header records as its query")
	fs.IntVar(&srv.ThresholdTokens, "threshold", 1600, "the server's threshold in `tokens`")
	fs.StringVar(&srv.Prefix, "prefix", "atlatl", "the `prefix` of offloaded file names")
	fs.StringVar(&srv.Operation, "operation", "", "the `operation` the files must name (checked when given)")
	outputDir := fs.String("output-dir", "", "the `folder` the files must be in (checked when given)")
	cleanupWithin := fs.Duration("cleanup-within", 0, "check cleanup: wait this `long` for the server to delete an expired file (0: skip L2.cleanup)")
	fs.DurationVar(&srv.TTL, "ttl", time.Hour, "the server's file time to live, for the cleanup check")
	cleanupDir := fs.String("cleanup-dir", "", "the server's output `folder`, for the cleanup check (default: the folder of the first offloaded file); without -output-dir, the files must be in it")
	fs.BoolVar(&o.fallback, "fallback", false, "check the write-failure fallback: start a second instance of the command whose output folder cannot be written")
	fs.StringVar(&o.fallbackURL, "fallback-url", "", "check the write-failure fallback against the server at this `URL`, whose output folder cannot be written")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up after this `long`")
	fs.BoolVar(&o.verbose, "v", false, "show the server's standard error")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, errUsage
	}
	bad := func(format string, args ...any) (*options, error) {
		fmt.Fprintf(stderr, "conform: "+format+"\n", args...)
		fmt.Fprintln(stderr, "Run conform -h for usage.")
		return nil, errUsage
	}
	o.command = fs.Args()
	switch {
	case o.cfg.Tool == "":
		return bad("-tool is required")
	case large.m == nil:
		return bad("-large is required")
	case *level < 1 || *level > 3:
		return bad("-level=%d: want 1, 2 or 3", *level)
	case srv.ThresholdTokens < 1:
		return bad("-threshold=%d: must be at least 1", srv.ThresholdTokens)
	case *cleanupWithin < 0 || srv.TTL <= 0:
		return bad("-cleanup-within and -ttl must be positive")
	case o.url == "" && len(o.command) == 0:
		return bad("give the server: a command after --, or -url")
	case o.url != "" && len(o.command) > 0:
		return bad("give either a command or -url, not both")
	case o.fallback && o.url != "":
		return bad("-fallback starts a second instance of the command; with -url, use -fallback-url")
	case o.fallback && o.fallbackURL != "":
		return bad("give either -fallback or -fallback-url, not both")
	}
	o.cfg.Level = *level
	o.cfg.Large, o.cfg.Small, o.cfg.Details = large.m, small.m, details
	srv.DefaultDetail = recipes.Detail(defaultDetail)
	// The kit checks file_path's folder against ClientDir, or else
	// OutputDir, and plants its expired file in OutputDir.
	srv.ClientDir, srv.CleanupInterval = *outputDir, *cleanupWithin
	if *cleanupWithin > 0 {
		srv.OutputDir = *cleanupDir
	}
	return o, nil
}

// lockedBuffer collects a server's standard error.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// server is a connected server and where its standard error went.
type server struct {
	cs     *mcp.ClientSession
	name   string
	stderr *lockedBuffer
}

// connect starts command with the extra environment variables, or connects
// to url.
func connect(ctx context.Context, url string, command []string, env []string) (*server, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "lro-conform", Version: "v0.1.0"}, nil)
	if url != "" {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
		if err != nil {
			return nil, fmt.Errorf("connecting to %s: %w", url, err)
		}
		return &server{cs: cs, name: url, stderr: &lockedBuffer{}}, nil
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = append(os.Environ(), env...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w\n%s", strings.Join(command, " "), err, stderr.String())
	}
	return &server{cs: cs, name: strings.Join(command, " "), stderr: stderr}, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parse(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitPass
	case err != nil:
		return exitUsage
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()

	srv, err := connect(ctx, o.url, o.command, nil)
	if err != nil {
		fmt.Fprintln(stderr, "conform:", err)
		return exitUsage
	}
	defer srv.cs.Close()

	var fb *server
	switch {
	case o.fallback:
		dir, err := os.MkdirTemp("", "conform-fallback")
		if err != nil {
			fmt.Fprintln(stderr, "conform:", err)
			return exitUsage
		}
		defer os.RemoveAll(dir)
		// The instance starts with a valid output folder (a server refuses
		// an invalid one at start), which then becomes a regular file, so
		// that every write fails while the server runs.
		out := filepath.Join(dir, "out")
		if err := os.Mkdir(out, 0o700); err != nil {
			fmt.Fprintln(stderr, "conform:", err)
			return exitUsage
		}
		if fb, err = connect(ctx, "", o.command, []string{envOutputDir + "=" + out}); err != nil {
			fmt.Fprintln(stderr, "conform: fallback instance:", err)
			return exitUsage
		}
		defer fb.cs.Close()
		err = os.RemoveAll(out)
		if err == nil {
			err = os.WriteFile(out, nil, 0o600)
		}
		if err != nil {
			fmt.Fprintln(stderr, "conform:", err)
			return exitUsage
		}
	case o.fallbackURL != "":
		if fb, err = connect(ctx, o.fallbackURL, nil, nil); err != nil {
			fmt.Fprintln(stderr, "conform: fallback server:", err)
			return exitUsage
		}
		defer fb.cs.Close()
	}
	if fb != nil {
		o.cfg.Fallback = fb.cs
	}

	var table bytes.Buffer
	ok, err := lrotest.Check(ctx, srv.cs, &o.cfg, &table)
	if err != nil {
		fmt.Fprintln(stderr, "conform:", err)
		return exitUsage
	}
	fmt.Fprintf(stdout, "Server: %s\n\n%s", srv.name, table.Bytes())
	if o.verbose {
		for _, s := range []*server{srv, fb} {
			if s != nil && s.stderr.String() != "" {
				fmt.Fprintf(stderr, "\nStandard error of %s:\n%s", s.name, s.stderr.String())
			}
		}
	}
	if !ok {
		return exitFail
	}
	return exitPass
}
