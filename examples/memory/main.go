// Command memory is an example MCP memory server with Large Result
// Offloading (LRO).
//
// It serves a store of MIF memories through four tools, recall_memories,
// search_memories, list_memories and inject_context, registered with
// [lro.AddTool]. Small results are returned inline; a result set estimated
// above the threshold (1,600 tokens by default) is written to a JSONL file
// and the tool returns a compact descriptor with the file's path and
// ready-to-run jq recipes instead.
//
// By default it serves MCP over stdio on a synthetic corpus of 500 memories:
//
//	go run ./examples/memory
//
// With -http it serves streamable HTTP at /mcp, and the HTTP API's
// GET /v1/memories (offset pagination, no offloading), instead. With
// -storage it keeps offloaded results in a bucket (S3 and S3-compatible
// servers, or file:///folder) that several replicas share, and serves HTTP
// statelessly, so that any replica answers any call:
//
//	go run ./examples/memory -http :8080 -storage 's3://bucket?endpoint=http://127.0.0.1:7070&region=us-east-1&use_path_style=true'
//
// Run it with -h for every flag. Logs go to stderr.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/examples/memory/memory"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/store"
	// Bucket URLs for -storage and the storage key: s3:// (S3 and
	// S3-compatible servers) and file://.
	_ "github.com/zircote/lro-go/lro/store/blobstore"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/s3blob"
)

// The defaults of extract.Options.Timeout and MaxMemoryBytes, which the
// -extract-timeout and -extract-max-memory flags show.
const (
	extractDefaultTimeout         = 10 * time.Second
	extractDefaultMaxMemory int64 = 512 << 20
)

func main() {
	extract.RunWorker() // lro_extract and lro_search run their queries in this program started again
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.Is(err, errUsage):
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "memory:", err)
		os.Exit(1)
	}
}

// errUsage reports bad flags; the flag package has already said why.
var errUsage = errors.New("usage")

// app is a configured server, ready to serve.
type app struct {
	store  *memory.Store
	opts   *lro.Options
	http   string // address, or "" for stdio
	logger *slog.Logger
}

const usageHead = `Usage: memory [flags]

An MCP memory server with Large Result Offloading. It serves MIF memories
through the tools recall_memories, search_memories, list_memories and
inject_context over stdio (or, with -http, streamable HTTP at /mcp plus the
HTTP API GET /v1/memories?limit=&offset=&namespace=&detail=). A result set
estimated above the token threshold is written to a JSONL file and replaced
by a descriptor holding its path and jq recipes.

The memories are a synthetic corpus (-records, -seed) or a JSONL file (-load:
one memory object per line; an offloaded LRO file, header included, works
too).

Offloading is configured, each source overriding the one before: built-in
defaults; the [prompt.offload] section of the TOML file given by -config
(keys enabled, threshold_tokens, ttl_seconds, output_dir, client_dir,
storage, profile, preview_records, redact and redact_patterns, and per-tool
tables [prompt.offload.tools.NAME] with enabled, threshold_tokens, profile,
always, redact and redact_patterns: see examples/memory/config.example.toml);
the environment variables ATLATL_PROMPT__OFFLOAD__ENABLED,
..._THRESHOLD_TOKENS, ..._TTL_SECONDS, ..._OUTPUT_DIR, ..._CLIENT_DIR,
..._STORAGE, ..._PROFILE, ..._PREVIEW_RECORDS, ..._REDACT,
..._REDACT_PATTERNS (one a line) and ..._ALWAYS (tool names, comma-separated);
and the flags -threshold, -output-dir and -storage. An unknown key or
variable, or a bad value, is an error naming it.

With a storage bucket (s3://bucket?endpoint=...&region=..., file:///folder),
offloaded results are kept in the bucket under names that are their handles,
every replica of the server reads them (lro_extract, lro_read, lro_search and
resources/read of lro://results/{handle}, all served then), and HTTP is
served statelessly: run as many replicas as needed behind a load balancer.
S3 credentials come from the AWS environment variables or shared files.

A client that identifies itself as a local LRO proxy (examples/lro-proxy; the
capability extension or request _meta "io.github.zircote/lro": {"proxy": true})
receives full results inline: the proxy offloads them on its own machine.

The automatic janitor deletes offloaded files whose TTL has passed
(ttl_seconds, default 3600): at start, then each at its expiry, waiting at
most an hour (or -cleanup-interval) between sweeps.

Logs go to stderr.

Flags:
`

// setup parses the flags and configuration, and builds the store.
func setup(args []string, stderr io.Writer) (*app, error) {
	fs := flag.NewFlagSet("memory", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageHead)
		fs.PrintDefaults()
	}
	records := fs.Int("records", memory.DefaultCorpusSize, "number of memories in the synthetic corpus")
	seed := fs.Uint64("seed", memory.DefaultSeed, "seed of the synthetic corpus; the same seed gives the same corpus")
	load := fs.String("load", "", "read the memories from this JSONL `file` instead of generating them")
	httpAddr := fs.String("http", "", "serve streamable HTTP at /mcp and the HTTP API at /v1/memories on this `address` (for example localhost:8080) instead of stdio")
	configPath := fs.String("config", "", "read the [prompt.offload] section of this TOML `file`")
	threshold := fs.Int("threshold", 0, "offload result sets estimated above this many `tokens` (overrides config and environment; default 1600)")
	extractTools := fs.Bool("extract", false, "also serve lro_extract, lro_read and lro_search, which query offloaded files without a shell; descriptors then point to them")
	extractTimeout := fs.Duration("extract-timeout", extractDefaultTimeout, "with -extract: the time limit of one lro_extract, lro_read or lro_search call")
	extractMemory := fs.Int64("extract-max-memory", extractDefaultMaxMemory>>20, "with -extract: the `MiB` of memory one lro_extract or lro_search call may use (its worker process, and its answer in the server)")
	outputDir := fs.String("output-dir", "", "write offloaded files to this `folder` (overrides config and environment; default, and what -output-dir \"\" sets, the system temporary folder)")
	storage := fs.String("storage", "", "keep offloaded files in this bucket `URL` (s3://bucket?endpoint=...&region=..., file:///folder), which several replicas share, and serve HTTP statelessly (overrides config and environment; -storage \"\" for none)")
	cleanupInterval := fs.Duration("cleanup-interval", 0, "sweep the output folder or bucket for expired files this `often` (default 1h)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, errUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "memory: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return nil, errUsage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	// Flags are the explicit layer: they override the file and the
	// environment.
	explicit := &lro.Options{}
	if set["threshold"] {
		if *threshold < 1 {
			return nil, fmt.Errorf("flag -threshold=%d: must be at least 1", *threshold)
		}
		if *threshold > math.MaxUint32 {
			// As threshold_tokens and its variable: the specification's
			// threshold is a u32.
			return nil, fmt.Errorf("flag -threshold=%d: out of range 1..%d", *threshold, uint32(math.MaxUint32))
		}
		explicit.ThresholdTokens = *threshold
	}
	if set["output-dir"] {
		explicit.OutputDir = *outputDir
		if !set["storage"] {
			// -output-dir "" is the default it names, the system
			// temporary folder, over the folder of the file or the
			// environment (beside -storage, the store's folder).
			explicit.OutputDir = cmp.Or(*outputDir, os.TempDir())
		}
	}
	if set["storage"] {
		// The flag's store, opened below with the TTL in effect, replaces
		// the storage of the file and the environment, which LoadOptions
		// then neither checks nor opens.
		explicit.Store = new(store.Store)
	}
	explicit.ExtractTools = *extractTools
	if *extractTimeout <= 0 {
		return nil, fmt.Errorf("flag -extract-timeout=%v: must be positive", *extractTimeout)
	}
	if *extractMemory <= 0 || *extractMemory > math.MaxInt64>>20 {
		return nil, fmt.Errorf("flag -extract-max-memory=%d: must be a positive number of MiB", *extractMemory)
	}
	if err := (&extract.Options{Timeout: *extractTimeout, MaxMemoryBytes: *extractMemory << 20}).Validate(); err != nil {
		return nil, fmt.Errorf("flag -extract-max-memory=%d: %w", *extractMemory, err)
	}
	extractLimits.Timeout, extractLimits.MaxMemoryBytes = *extractTimeout, *extractMemory<<20
	if set["cleanup-interval"] {
		if *cleanupInterval <= 0 {
			return nil, fmt.Errorf("flag -cleanup-interval=%v: must be positive", *cleanupInterval)
		}
		explicit.CleanupInterval = *cleanupInterval
	}
	opts, err := lro.LoadOptions(explicit, *configPath)
	if err != nil {
		return nil, err
	}
	// A tool's settings under a name that no tool has would be ignored: a
	// typo would go unnoticed, as an unknown key does not.
	for _, name := range slices.Sorted(maps.Keys(opts.Tools)) {
		if !slices.Contains(offloadingTools, name) {
			if opts.Store != nil {
				opts.Store.Close()
			}
			return nil, fmt.Errorf("offload settings of the tool %q ([prompt.offload.tools.%s] or ATLATL_PROMPT__OFFLOAD__ALWAYS): no such tool (want %s)", name, name, strings.Join(offloadingTools, ", "))
		}
	}
	if set["storage"] && *storage != "" { // -storage "": none
		st, err := store.Open(context.Background(), *storage, &store.Options{Prefix: opts.Prefix, TTL: opts.TTL})
		if err != nil {
			return nil, fmt.Errorf("flag -storage: %w", err)
		}
		opts.Store = st
	}
	if opts.Store != nil && opts.Store.Bucket() != nil {
		if opts.OutputDir != "" {
			opts.Store.Close()
			return nil, fmt.Errorf("an output folder (flag -output-dir, output_dir or ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: %q) cannot be combined with a bucket (flag -storage, storage or ATLATL_PROMPT__OFFLOAD__STORAGE): results go to the bucket", opts.OutputDir)
		}
		// The client cannot read a bucket: the descriptors point to the
		// extraction tools, which every replica serves. (store.Open has
		// listed the bucket once.)
		opts.ExtractTools = true
	}
	if set["storage"] && opts.Store != nil {
		// The flag's store replaced the one LoadOptions checked.
		if err := opts.Validate(); err != nil {
			opts.Store.Close()
			return nil, fmt.Errorf("flag -storage: %w", err)
		}
	}

	var ms []memory.Memory
	switch {
	case *load != "" && (set["records"] || set["seed"]):
		return nil, errors.New("flag -load cannot be combined with -records or -seed")
	case *load != "":
		if ms, err = memory.LoadFile(*load); err != nil {
			return nil, err
		}
	case *records < 0:
		return nil, fmt.Errorf("flag -records=%d: must not be negative", *records)
	case *records > maxRecords:
		return nil, fmt.Errorf("flag -records=%d: at most %d (about 2 KB of memory each)", *records, maxRecords)
	default:
		ms = memory.Generate(*records, *seed)
	}
	store, err := memory.NewStore(ms)
	if err != nil {
		return nil, err
	}

	logger := slog.New(slog.NewTextHandler(stderr, nil))
	opts.Observer = event.Slog(logger)
	return &app{store: store, opts: opts, http: *httpAddr, logger: logger}, nil
}

// run serves until ctx is done (a signal: the calls in flight are cancelled,
// and run returns nil) or, over stdio, the client disconnects.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	a, err := setup(args, stderr)
	if err != nil {
		return err
	}
	bucket := a.opts.Store != nil && a.opts.Store.Bucket() != nil
	if a.opts.Store != nil {
		defer a.opts.Store.Close()
	}
	s := newServer(a.store, a.opts)
	s.AddReceivingMiddleware(cancelWith(ctx))
	where := []any{"output_dir", outputDir(a.opts)}
	if bucket {
		where = []any{"storage", "bucket"}
	}
	a.logger.Info("memory server starting", append([]any{
		"memories", a.store.Len(),
		"offload", !a.opts.Disabled,
		"threshold_tokens", a.opts.ThresholdTokens,
		"ttl", a.opts.TTL}, where...)...)
	// The specification's offload_cleanup task runs by itself: registering
	// the tools started the automatic janitor of the folder or bucket, which
	// sweeps at once (what an earlier run left goes before any offload),
	// then at each expiry or after -cleanup-interval, with an
	// OffloadFileExpired event each.
	if a.http == "" {
		stdioHint(stderr, os.Stdin)
		// The requests of a client that closes its input are answered
		// before the server stops (drainingTransport).
		err := s.Run(ctx, &drainingTransport{Transport: &mcp.StdioTransport{}, grace: drainGrace, logger: a.logger})
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			return nil // a signal
		}
		return err
	}
	if !a.opts.Disabled && !bucket {
		a.logger.Warn("offloading over HTTP writes files on this host; clients elsewhere cannot read them (disable with ATLATL_PROMPT__OFFLOAD__ENABLED=false, or connect through the local LRO proxy, examples/lro-proxy, which receives full results inline and offloads on the client's machine)")
	}
	ln, err := net.Listen("tcp", a.http)
	if err != nil {
		return err
	}
	// With a bucket, no call depends on the replica that served an
	// earlier one: HTTP is served statelessly (which the 2026-07-28
	// protocol requires of streamable HTTP in go-sdk).
	srv := &http.Server{Handler: newHTTPHandler(s, a.store, a.logger, bucket), ReadHeaderTimeout: 10 * time.Second}
	if bucket {
		// Served statelessly, no request streams for long: an answer a
		// client does not read (a resources/read of 16 MiB, say) is not
		// held for longer than this.
		srv.WriteTimeout = httpWriteTimeout
	}
	// Shutdown waits for the requests in flight, and a session's stream of
	// server messages (a GET) lasts as long as the session: end the
	// sessions, whose calls cancelWith has cancelled.
	srv.RegisterOnShutdown(func() {
		for ss := range s.Sessions() {
			ss.Close()
		}
	})
	a.logger.Info("serving HTTP", "mcp", "http://"+ln.Addr().String()+"/mcp", "api", "http://"+ln.Addr().String()+"/v1/memories", "stateless", bucket)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		// The calls in flight are cancelled and the sessions end: what may
		// be left is a request that ignores its context, or a connection a
		// client opened but has sent nothing on yet, which Shutdown would
		// wait 5 s for. Give them shutdownGrace.
		shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		if err := srv.Shutdown(shutdownCtx); !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return srv.Close()
	}
}

// cancelWith returns server middleware that cancels the context of every
// request in flight when life is done, with life's cause: go-sdk v1.8.0's
// Server.Run and ServerSession.Close wait for the requests in flight
// without cancelling them, so a server stopped by a signal would wait for
// its calls to reach their time limits (an extraction call's worker is
// killed when its context is done). Over HTTP, run also ends the sessions
// when the http.Server shuts down (RegisterOnShutdown).
func cancelWith(life context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			stop := context.AfterFunc(life, func() { cancel(context.Cause(life)) })
			defer stop()
			return next(ctx, method, req)
		}
	}
}

// outputDir returns the folder that offloaded files are written to with
// opts: OutputDir, or the folder of a folder Store, or else the system's
// temporary folder, as an absolute path.
func outputDir(opts *lro.Options) string {
	dir := opts.OutputDir
	if opts.Store != nil && opts.Store.Bucket() == nil {
		dir = opts.Store.Dir()
	}
	if dir == "" {
		dir = os.TempDir()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return dir
}

// stdioHint tells someone who started the server from a terminal that it
// waits for an MCP client on stdin, rather than leave them before a silent
// prompt. A character device counts as a terminal (/dev/null too, where the
// hint does no harm).
func stdioHint(w io.Writer, stdin *os.File) {
	if fi, err := stdin.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fmt.Fprintln(w, "memory: serving MCP over stdio: waiting for an MCP client on stdin (run it from a client such as Claude Code, or with -http ADDR; -h for usage)")
	}
}

// maxRecords bounds -records: the synthetic corpus is held in memory, and
// a number too large made the server die of it.
const maxRecords = 1_000_000

// httpWriteTimeout bounds a request served statelessly, its answer
// written.
const httpWriteTimeout = time.Minute

// shutdownGrace is how long the HTTP server lets its last requests finish
// after a signal, before it closes their connections.
const shutdownGrace = time.Second
