// Command lro-proxy puts Large Result Offloading (LRO) in front of any MCP
// server: the specification's local LRO proxy. Install it with
//
//	go install github.com/zircote/lro-go/examples/lro-proxy@latest
//
// It serves MCP over stdio to the client (an IDE, an agent) and relays every
// message to the upstream server, either at a streamable HTTP URL:
//
//	lro-proxy -url https://mcp.example.com/mcp -header 'Authorization: Bearer ${API_TOKEN}'
//
// or started as a command that serves MCP over stdio:
//
//	lro-proxy -- npx -y @modelcontextprotocol/server-filesystem ~/src
//
// Everything passes as it is (tools, resources, prompts, completions,
// logging, sampling, elicitation, roots, notifications), except that a tool
// result estimated above the threshold (1,600 tokens by default) is written
// to a JSONL file on this machine and the client receives a descriptor with
// the file's path and jq recipes instead. Run it with -h for every flag. Logs
// go to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/proxy"
)

// The defaults of extract.Options.Timeout and MaxMemoryBytes, which the
// -extract-timeout and -extract-max-memory flags show.
const (
	extractDefaultTimeout         = 10 * time.Second
	extractDefaultMaxMemory int64 = 512 << 20
)

func main() {
	extract.RunWorker() // lro_extract and lro_search run their queries in this program started again
	// A client that closed its end of stdout makes a write fail (EPIPE)
	// rather than kill the proxy, which then stops its upstream as on EOF.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stderr, os.LookupEnv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "lro-proxy:", strings.TrimPrefix(err.Error(), "proxy: "))
		os.Exit(1)
	}
}

// errUsage reports bad flags or arguments; the error and a hint have been
// printed.
var errUsage = errors.New("usage")

// stdout is where -version prints.
var stdout io.Writer = os.Stdout

// version returns the module version lro-proxy was built from: its tag when
// installed with go install, a pseudo-version or "(devel)" when built from
// a clone.
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

const usageHead = `Usage: lro-proxy [flags] -url URL
       lro-proxy [flags] [--] COMMAND [ARG...]

A local Large Result Offloading proxy. It serves MCP over stdio to its client
and relays every message to an upstream MCP server: one at a streamable HTTP
URL (-url), or one it starts as COMMAND, speaking MCP over stdio (write -- before
a command whose arguments start with a dash). A tool result estimated above the
token threshold is written to a JSONL file on this machine, and the client
receives a descriptor with the file's path, a line schema and ten jq recipes
instead; the file holds the whole result, exactly as the upstream sent it.
Everything else passes as it is. The tools lro_extract, lro_read and lro_search
query the files, for clients without a shell, each call within a time limit
(-extract-timeout) and a memory limit
(-extract-max-memory).

The proxy identifies itself to the upstream as an LRO proxy (capability
extension "io.github.zircote/lro": {"proxy": true}, clientInfo.proxy, and the
same key in the _meta of every tools/call), so an upstream built with lro-go
returns full results inline and the files land here. When the upstream goes
away, requests in flight fail (tool calls with a tool error) and the next
request connects again (starting COMMAND again).

Offloading is configured, each source overriding the one before: built-in
defaults; the [prompt.offload] section of the TOML file given by -config
(keys enabled, threshold_tokens, ttl_seconds, output_dir, profile,
preview_records, and per-tool tables [prompt.offload.tools.NAME]); the
environment variables ATLATL_PROMPT__OFFLOAD__ENABLED, ..._THRESHOLD_TOKENS,
..._TTL_SECONDS, ..._OUTPUT_DIR, ..._PROFILE and ..._PREVIEW_RECORDS; and the
flags -threshold, -output-dir and -preview-records.
From the first offload on, offloaded files whose TTL has passed (default
3600 s) are deleted.

Logs go to stderr, and so does the standard error of COMMAND.

Flags:
`

// headers collects repeated -header flags.
type headers []string

func (h *headers) String() string     { return strings.Join(*h, ", ") }
func (h *headers) Set(v string) error { *h = append(*h, v); return nil }

// config is the parsed command line.
type config struct {
	up         proxy.Upstream
	opts       *lro.Options
	timeout    time.Duration
	maxMessage int
	extract    extractLimits
}

// extractLimits are the limits of one call of lro_extract, lro_read or
// lro_search.
type extractLimits struct {
	timeout        time.Duration
	maxMemoryBytes int64
}

// setup parses the flags, the configuration and the upstream.
func setup(args []string, stderr io.Writer, lookup func(string) (string, bool)) (*config, error) {
	fs := flag.NewFlagSet("lro-proxy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// The whole usage for -h; after a mistake, its one-line error and a
	// hint, not 50 lines of flags above it.
	fs.Usage = func() {}
	printUsage := func() {
		fmt.Fprint(fs.Output(), usageHead)
		fs.PrintDefaults()
	}
	hint := func() { fmt.Fprintln(stderr, "run lro-proxy -h for usage") }
	showVersion := fs.Bool("version", false, "print the version of lro-proxy and exit")
	url := fs.String("url", "", "streamable HTTP endpoint `URL` of the upstream server, such as http://localhost:8080/mcp (instead of COMMAND)")
	var hdrs headers
	fs.Var(&hdrs, "header", "HTTP `header` 'Name: value' sent with every request to -url; repeat for more. $VAR and ${VAR} in the value are replaced by the environment variable (an unset one is an error), $$ by $: -header 'Authorization: Bearer ${API_TOKEN}'")
	configPath := fs.String("config", "", "read the [prompt.offload] section of this TOML `file`")
	threshold := fs.Int("threshold", 0, "offload result sets estimated above this many `tokens` (overrides config and environment; default 1600)")
	outputDir := fs.String("output-dir", "", "write offloaded files to this `folder` (overrides config and environment; default the system temporary folder)")
	preview := fs.Int("preview-records", 3, "show this many `records` of an offloaded result in its descriptor, the first ones and the last (0 for none, up to 16; overrides config and environment)")
	timeout := fs.Duration("connect-timeout", 30*time.Second, "give up after this `duration` on connecting to the upstream, on its first message and on a stalled write to it (the wait for answers after stdin ends: a minute more)")
	maxMessage := fs.Int("max-message", 256<<20, "the largest message, in `bytes`, read from the upstream or the client")
	extractTimeout := fs.Duration("extract-timeout", extractDefaultTimeout, "the time limit of one lro_extract, lro_read or lro_search call")
	extractMemory := fs.Int64("extract-max-memory", extractDefaultMaxMemory>>20, "the `MiB` of memory one lro_extract or lro_search call may use (its worker process, and its answer in the server)")
	noRedact := fs.Bool("no-redact", false, "write offloaded results with their credentials (by default each is replaced by a marker such as [REDACTED:github-pat]; overrides config and environment)")
	var redactPatterns headers
	fs.Var(&redactPatterns, "redact-pattern", "also redact what this RE2 `expression` matches (its first named group, if any); repeat for more")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage()
			return nil, err
		}
		hint() // below the flag package's line, "flag provided but not defined: -x"
		return nil, errUsage
	}
	if *showVersion {
		fmt.Fprintln(stdout, "lro-proxy", version())
		return nil, flag.ErrHelp
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	usage := func(format string, a ...any) error {
		fmt.Fprintf(stderr, "lro-proxy: "+format+"\n", a...)
		hint()
		return errUsage
	}

	c := &config{timeout: *timeout, maxMessage: *maxMessage}
	switch {
	case *url == "" && fs.NArg() == 0:
		return nil, usage("no upstream: give -url URL or a COMMAND")
	case *url != "" && fs.NArg() > 0:
		return nil, usage("both -url %s and the command %q: give one upstream", *url, strings.Join(fs.Args(), " "))
	case *url != "":
		c.up.URL = *url
	default:
		c.up.Cmd = exec.Command(fs.Arg(0), fs.Args()[1:]...)
		c.up.Cmd.Stderr = stderr
	}
	if len(hdrs) > 0 && *url == "" {
		return nil, usage("-header needs -url")
	}
	if len(hdrs) > 0 {
		c.up.Header = http.Header{}
	}
	for _, h := range hdrs {
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("flag -header %q: want 'Name: value'", h)
		}
		v, err := expand(strings.TrimSpace(value), lookup)
		if err != nil {
			return nil, fmt.Errorf("flag -header %s: %w", name, err)
		}
		c.up.Header.Add(name, v)
	}
	if *timeout <= 0 {
		return nil, fmt.Errorf("flag -connect-timeout=%v: must be positive", *timeout)
	}
	if *maxMessage <= 0 {
		return nil, fmt.Errorf("flag -max-message=%d: must be positive", *maxMessage)
	}
	if *extractTimeout <= 0 {
		return nil, fmt.Errorf("flag -extract-timeout=%v: must be positive", *extractTimeout)
	}
	if *extractMemory <= 0 || *extractMemory > math.MaxInt64>>20 {
		return nil, fmt.Errorf("flag -extract-max-memory=%d: must be a positive number of MiB", *extractMemory)
	}
	if err := (&extract.Options{Timeout: *extractTimeout, MaxMemoryBytes: *extractMemory << 20}).Validate(); err != nil {
		return nil, fmt.Errorf("flag -extract-max-memory=%d: %w", *extractMemory, err)
	}
	c.extract = extractLimits{*extractTimeout, *extractMemory << 20}

	// Flags are the explicit layer: they override the file and the
	// environment.
	explicit := &lro.Options{}
	if set["threshold"] {
		if *threshold < 1 {
			return nil, fmt.Errorf("flag -threshold=%d: must be at least 1", *threshold)
		}
		explicit.ThresholdTokens = *threshold
	}
	if set["output-dir"] {
		explicit.OutputDir = *outputDir
	}
	if set["preview-records"] {
		explicit.PreviewRecords = *preview
		if *preview == 0 {
			explicit.PreviewRecords = -1 // none
		}
		if *preview < 0 || *preview > 16 {
			return nil, fmt.Errorf("flag -preview-records=%d: must be from 0 to 16", *preview)
		}
	}
	explicit.DisableRedaction = *noRedact
	explicit.RedactPatterns = redactPatterns
	opts, err := lro.LoadOptions(explicit, *configPath)
	if err != nil {
		return nil, err
	}
	if opts.Store != nil {
		opts.Store.Close()
		return nil, errors.New("storage (the [prompt.offload] key or ATLATL_PROMPT__OFFLOAD__STORAGE) is for servers run as several replicas; the proxy writes offloaded results to a folder on this machine (output_dir)")
	}
	c.opts = opts
	return c, nil
}

// expand replaces $VAR and ${VAR} in s by the environment variables, and $$
// by $. An unset variable is an error, so a missing token is not sent as an
// empty one.
func expand(s string, lookup func(string) (string, bool)) (string, error) {
	var missing []string
	out := os.Expand(s, func(name string) string {
		if name == "$" {
			return "$"
		}
		v, ok := lookup(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("environment variable %s is not set", strings.Join(missing, ", "))
	}
	return out, nil
}

// run serves the proxy over stdio until the client disconnects or ctx is
// done.
func run(ctx context.Context, args []string, stderr io.Writer, lookup func(string) (string, bool)) error {
	c, err := setup(args, stderr, lookup)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	c.opts.Observer = event.Slog(logger)
	p, err := proxy.New(c.up, &proxy.Options{
		LRO:                c.opts,
		Logger:             logger,
		ConnectTimeout:     c.timeout,
		MaxMessageBytes:    c.maxMessage,
		RegisterLocalTools: localTools(c.opts, c.extract),
	})
	if err != nil {
		return err
	}
	defer p.Close() // after the local calls in flight, and their workers, ended
	logger.Info("lro proxy serving on stdio",
		"upstream", c.up.String(),
		"offload", !c.opts.Disabled,
		"threshold_tokens", c.opts.ThresholdTokens,
		"ttl", c.opts.TTL,
		"output_dir", outputDir(c.opts))
	err = p.Run(ctx, &mcp.StdioTransport{MaxLineLength: c.maxMessage})
	if errors.Is(err, context.Canceled) {
		return nil // a signal
	}
	return err
}

// localTools returns the hook that registers the tools the proxy serves
// itself, next to the upstream's: lro_extract, lro_read and lro_search over
// the files this proxy writes, so that clients without a shell can query
// them, each call within limits. It sets opts.ExtractTools, so that the
// descriptors' guidance points to lro_extract.
func localTools(opts *lro.Options, limits extractLimits) func(*mcp.Server) error {
	opts.ExtractTools = true
	return func(s *mcp.Server) error {
		return extract.AddTools(s, &extract.Options{LRO: &lro.Options{OutputDir: opts.OutputDir, Prefix: opts.Prefix, ThresholdTokens: opts.ThresholdTokens, Tokenizer: opts.Tokenizer, Observer: opts.Observer}, Timeout: limits.timeout, MaxMemoryBytes: limits.maxMemoryBytes})
	}
}

func outputDir(opts *lro.Options) string {
	if opts.OutputDir != "" {
		return opts.OutputDir
	}
	return os.TempDir()
}
