package equiv

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/proxy"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// A setup is one configuration the tool runs under.
type setup struct {
	front   string // "wrap" (lro.Wrap), "middleware" (lro.Middleware), "proxy" or "memory" (the example's binary)
	store   string // "dir" (OutputDir, no Store), "folder" or "bucket"
	profile string // full, no_recipes, no_schema, bare_pointer
	native  bool   // lro.Options.ExtractTools
	dir     string // the output folder
	bucket  *blob.Bucket
}

// built is what [options] makes of a setup.
type built struct {
	lro     *lro.Options
	extract *extract.Options // nil: no extraction tools
	proxy   *proxy.Options   // for front "proxy"
	store   *store.Store     // nil for "dir"
	args    []string         // for front "memory": the binary's flags
	env     []string         // for front "memory": its environment
}

// options builds every option of every setup: the one function that a
// step renaming options edits.
func options(s setup) (*built, error) {
	profiles := map[string]descriptor.Profile{
		"full":         descriptor.ProfileFull,
		"no_recipes":   descriptor.ProfileNoRecipes,
		"no_schema":    descriptor.ProfileNoSchema,
		"bare_pointer": descriptor.ProfileBarePointer,
	}
	profile, ok := profiles[s.profile]
	if !ok {
		return nil, fmt.Errorf("unknown profile %q", s.profile)
	}
	if s.front == "memory" {
		b := &built{env: []string{"ATLATL_PROMPT__OFFLOAD__PROFILE=" + s.profile}}
		switch s.store {
		case "dir":
			b.args = []string{"-output-dir", s.dir}
		case "folder":
			b.args = []string{"-storage", s.dir}
		case "bucket":
			b.args = []string{"-storage", "file://" + filepath.ToSlash(s.dir)}
		}
		if s.native {
			b.args = append(b.args, "-extract")
		}
		return b, nil
	}
	lo := &lro.Options{
		Profile:      profile,
		ExtractTools: s.native,
		// No automatic janitor, which would outlive the synctest bubble.
		CleanupInterval: -1,
	}
	b := &built{lro: lo}
	var err error
	switch s.store {
	case "dir":
		lo.OutputDir = s.dir
	case "folder":
		b.store, err = store.Open(context.Background(), s.dir, &store.Options{})
	case "bucket":
		b.store, err = store.NewBucket(blobstore.New(s.bucket), &store.Options{})
	}
	if err != nil {
		return nil, err
	}
	lo.Store = b.store
	if s.native {
		b.extract = &extract.Options{LRO: lo}
	}
	if s.front == "proxy" {
		b.proxy = &proxy.Options{LRO: lo}
		if b.extract != nil {
			eo := b.extract
			b.proxy.RegisterLocalTools = func(srv *mcp.Server) error { return extract.AddTools(srv, eo) }
		}
	}
	return b, nil
}

// wrap registers the tool h on srv, offloaded as b says, through front.
func wrap(srv *mcp.Server, front string, t *mcp.Tool, h mcp.ToolHandler, b *built) {
	switch front {
	case "middleware":
		srv.AddTool(t, h)
		srv.AddReceivingMiddleware(lro.Middleware(b.lro, t.Name))
	default:
		srv.AddTool(t, lro.Wrap(h, b.lro))
	}
}

// upstream is the proxy's upstream: this test binary serving the corpus.
func upstream(bin string) proxy.Upstream {
	cmd := exec.Command(bin)
	cmd.Env = append(cmd.Environ(), upstreamEnv+"=1")
	return proxy.Upstream{Cmd: cmd}
}
