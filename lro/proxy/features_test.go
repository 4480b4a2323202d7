package proxy_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// addFeatures gives the test upstream every other feature of MCP:
// resources (a template, subscriptions), prompts, completions, logging,
// and tools that ask the client for sampling, elicitation and its roots.
func addFeatures(s *mcp.Server) {
	s.AddResource(&mcp.Resource{URI: "test://readme", Name: "readme", MIMEType: "text/plain"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "read me"}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"},
		func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item " + strings.TrimPrefix(req.Params.URI, "test://items/")}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello, " + req.Params.Arguments["who"]}}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "sample", Description: "Asks the client's model.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "2+2?"}}}})
			if err != nil {
				return nil, err
			}
			return textResult("model said " + res.Content.(*mcp.TextContent).Text), nil
		})
	s.AddTool(&mcp.Tool{Name: "elicit", Description: "Asks the user.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
			if err != nil {
				return nil, err
			}
			return textResult(res.Action + " " + res.Content["name"].(string)), nil
		})
	s.AddTool(&mcp.Tool{Name: "roots", Description: "Lists the client's roots.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return textResult(strings.Join(uris, " ")), nil
		})
	s.AddTool(&mcp.Tool{Name: "log", Description: "Logs a message to the client.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "test", Data: "hello log"})
			return textResult("logged"), err
		})
	s.AddTool(&mcp.Tool{Name: "touch_later", Description: "Updates the resource test://later when the test says so, outside of any request.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			go func() {
				<-later
				s.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: "test://later"})
			}()
			return textResult("later"), nil
		})
	s.AddTool(&mcp.Tool{Name: "touch", Description: "Updates the resource test://readme.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("touched"), s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: "test://readme"})
		})
}

// later lets the tool touch_later of an upstream in this process go on.
var later = make(chan struct{})

func complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var values []string
	for _, v := range []string{"alice", "albert", "bob"} {
		if strings.HasPrefix(v, req.Params.Argument.Value) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// events collects what the upstream sends a client on its own.
type events struct {
	mu      sync.Mutex
	logs    []string
	updated []string
}

func (e *events) get() (logs, updated []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.logs), slices.Clone(e.updated)
}

// featureClient returns client options that answer sampling, elicitation
// and roots, and record log messages and resource updates in e.
func featureClient(e *events) *mcp.ClientOptions {
	return &mcp.ClientOptions{
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: "four"}}, nil
		},
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		LoggingMessageHandler: func(ctx context.Context, req *mcp.LoggingMessageRequest) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.logs = append(e.logs, string(req.Params.Level)+" "+req.Params.Data.(string))
		},
		ResourceUpdatedHandler: func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.updated = append(e.updated, req.Params.URI)
		},
	}
}

// TestFeatures exercises every feature of MCP but tools through the proxy,
// over both kinds of upstream, against the same server connected directly:
// what the client sees must be the same.
func TestFeatures(t *testing.T) {
	for _, kind := range upstreamKinds {
		t.Run(kind.name, func(t *testing.T) {
			var viaEvents, directEvents events
			via := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, featureClient(&viaEvents))
			via.AddRoots(&mcp.Root{URI: "file:///work/a", Name: "a"}, &mcp.Root{URI: "file:///work/b"})
			direct := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, featureClient(&directEvents))
			direct.AddRoots(&mcp.Root{URI: "file:///work/a", Name: "a"}, &mcp.Root{URI: "file:///work/b"})

			p, err := proxy.New(kind.start(t, t.TempDir()), &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			sessions := map[string]*mcp.ClientSession{
				"proxy":  connectClient(t, p, via),
				"direct": connectServer(t, newUpstream(t.TempDir()), direct),
			}
			ctx := context.Background()
			type step struct {
				name string
				do   func(cs *mcp.ClientSession) (any, error)
			}
			steps := []step{
				{"initialize", func(cs *mcp.ClientSession) (any, error) {
					ir := *cs.InitializeResult()
					ir.Meta = nil
					return ir, nil
				}},
				{"ping", func(cs *mcp.ClientSession) (any, error) { return nil, cs.Ping(ctx, nil) }},
				{"resources/list", func(cs *mcp.ClientSession) (any, error) { return cs.ListResources(ctx, nil) }},
				{"resources/templates/list", func(cs *mcp.ClientSession) (any, error) { return cs.ListResourceTemplates(ctx, nil) }},
				{"resources/read", func(cs *mcp.ClientSession) (any, error) {
					return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://readme"})
				}},
				{"resources/read a template", func(cs *mcp.ClientSession) (any, error) {
					return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://items/42"})
				}},
				{"resources/subscribe", func(cs *mcp.ClientSession) (any, error) {
					return nil, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "test://readme"})
				}},
				{"prompts/list", func(cs *mcp.ClientSession) (any, error) { return cs.ListPrompts(ctx, nil) }},
				{"prompts/get", func(cs *mcp.ClientSession) (any, error) {
					return cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Ada"}})
				}},
				{"completion/complete", func(cs *mcp.ClientSession) (any, error) {
					return cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "greet"}, Argument: mcp.CompleteParamsArgument{Name: "who", Value: "al"}})
				}},
				{"logging/setLevel", func(cs *mcp.ClientSession) (any, error) {
					return nil, cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"})
				}},
				{"sampling", func(cs *mcp.ClientSession) (any, error) { return text(call(t, cs, "sample", 0)), nil }},
				{"elicitation", func(cs *mcp.ClientSession) (any, error) { return text(call(t, cs, "elicit", 0)), nil }},
				{"roots", func(cs *mcp.ClientSession) (any, error) { return text(call(t, cs, "roots", 0)), nil }},
				{"log message", func(cs *mcp.ClientSession) (any, error) { return text(call(t, cs, "log", 0)), nil }},
				{"resources/updated", func(cs *mcp.ClientSession) (any, error) { return text(call(t, cs, "touch", 0)), nil }},
			}
			for _, st := range steps {
				got := map[string]any{}
				for name, cs := range sessions {
					v, err := st.do(cs)
					if err != nil {
						t.Errorf("%s %s: %v", name, st.name, err)
					}
					got[name] = generic(t, v)
				}
				if diff := cmp.Diff(got["direct"], got["proxy"]); diff != "" {
					t.Errorf("%s (-direct +proxy):\n%s", st.name, diff)
				}
			}
			want := func(e *events) bool {
				logs, updated := e.get()
				return len(logs) > 0 && len(updated) > 0
			}
			waitFor(t, "the log message and the resource update at the proxy's client", func() bool { return want(&viaEvents) })
			waitFor(t, "the log message and the resource update at the direct client", func() bool { return want(&directEvents) })
			gotLogs, gotUpdated := viaEvents.get()
			wantLogs, wantUpdated := directEvents.get()
			if diff := cmp.Diff([]any{wantLogs, wantUpdated}, []any{gotLogs, gotUpdated}); diff != "" {
				t.Errorf("logs and updates (-direct +proxy):\n%s", diff)
			}
		})
	}
}

// connectClient connects c to p, served with p.Run over a pipe.
func connectClient(t *testing.T, p *proxy.Proxy, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c1, c2 := net.Pipe()
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx, &mcp.IOTransport{Reader: c1, Writer: c1}) }()
	t.Cleanup(func() {
		cancel()
		<-ran
	})
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: c2, Writer: c2}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectServer connects c to s in memory.
func connectServer(t *testing.T, s *mcp.Server, c *mcp.Client) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestLatestProtocol connects a client of go-sdk's newest protocol
// (2026-07-28, which starts with server/discover and carries clientInfo in
// every request's _meta) through the proxy: over stdio the upstream speaks
// it, and so does a stateless HTTP upstream; a stateful HTTP upstream
// declines it and the client falls back to initialize, through the proxy as
// it would directly.
func TestLatestProtocol(t *testing.T) {
	stateless := upstreamKind{"http stateless", func(t *testing.T, upDir string) proxy.Upstream {
		srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newUpstream(upDir) }, &mcp.StreamableHTTPOptions{Stateless: true}))
		t.Cleanup(srv.Close)
		return proxy.Upstream{URL: srv.URL}
	}}
	for _, kind := range append(upstreamKinds, stateless) {
		t.Run(kind.name, func(t *testing.T) {
			p, err := proxy.New(kind.start(t, t.TempDir()), &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			ctx, cancel := context.WithCancel(context.Background())
			c1, c2 := net.Pipe()
			ran := make(chan error, 1)
			go func() { ran <- p.Run(ctx, &mcp.IOTransport{Reader: c1, Writer: c1}) }()
			t.Cleanup(func() {
				cancel()
				<-ran
			})
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: c2, Writer: c2}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cs.Close() })
			t.Logf("protocol %s", cs.InitializeResult().ProtocolVersion)
			if names := toolNames(t, cs); !slices.Contains(names, "text") {
				t.Errorf("tools %v lack text", names)
			}
			if d := offloaded(t, call(t, cs, "lines", 300)); d == nil {
				t.Error("lines(300) not offloaded")
			}
			if got := text(call(t, cs, "meta", 0)); !strings.Contains(got, `"proxy":true`) {
				t.Errorf("the upstream does not see an LRO proxy: %s", got)
			}
		})
	}
}

// TestServerMessagesOutsideRequests has an HTTP upstream send a
// notification outside of any request: it travels on the standalone stream
// (GET) of protocols before 2026-07-28, which the proxy opens itself.
func TestServerMessagesOutsideRequests(t *testing.T) {
	later = make(chan struct{}) // closed below: a new one for each run (-count)
	var e events
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, featureClient(&e))
	p, err := proxy.New(proxy.Upstream{URL: startHTTPUpstream(t, newUpstream(t.TempDir())).url()}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cs := connectClient(t, p, c)
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://later"}); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "touch_later", 0)
	close(later)
	waitFor(t, "the update sent outside of any request", func() bool {
		_, updated := e.get()
		return slices.Contains(updated, "test://later")
	})
}
