package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
)

// syncTools lists the upstream's tools on cs and makes the proxy's server
// expose exactly them: new and changed tools are added, tools the upstream
// no longer has are removed. The server tells its clients when its list
// changes.
func (p *Proxy) syncTools(ctx context.Context, cs *mcp.ClientSession) error {
	var list []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		list = append(list, t)
	}

	p.toolsMu.Lock()
	defer p.toolsMu.Unlock()
	seen := map[string]bool{}
	var added, changed, failed []string
	for _, t := range list {
		if t == nil || seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		if p.local[t.Name] {
			p.logger.Warn("upstream tool not exposed: the proxy has a local tool of the same name", "tool", t.Name)
			continue
		}
		def, err := json.Marshal(t)
		if err != nil {
			continue
		}
		prev, had := p.tools[t.Name]
		if had && bytes.Equal(prev, def) {
			continue
		}
		if err := p.expose(t); err != nil {
			p.logger.Warn("upstream tool not exposed", "tool", t.Name, "err", err)
			failed = append(failed, t.Name)
			if had {
				p.server.RemoveTools(t.Name)
				delete(p.tools, t.Name)
				delete(p.retry, t.Name)
			}
			continue
		}
		p.tools[t.Name] = def
		p.retry[t.Name] = t.Annotations != nil && (t.Annotations.ReadOnlyHint || t.Annotations.IdempotentHint)
		if had {
			changed = append(changed, t.Name)
		} else {
			added = append(added, t.Name)
		}
	}
	var removed []string
	for name := range p.tools {
		if !seen[name] {
			removed = append(removed, name)
			delete(p.tools, name)
			delete(p.retry, name)
		}
	}
	if len(removed) > 0 {
		slices.Sort(removed)
		p.server.RemoveTools(removed...)
	}
	if len(added)+len(changed)+len(removed)+len(failed) > 0 {
		p.logger.Info("upstream tools", "exposed", len(p.tools), "added", added, "changed", changed, "removed", removed, "not_exposed", failed)
	}
	return nil
}

// expose registers the proxy's copy of an upstream tool: the same name,
// title, description, schemas, annotations, icons and _meta, except that an
// output schema is widened to accept the offload descriptor when the tool's
// results may be offloaded.
func (p *Proxy) expose(t *mcp.Tool) (err error) {
	exposed := *t
	if t.OutputSchema != nil && !p.offloadDisabled(t.Name) {
		if exposed.OutputSchema, err = lro.WidenOutputSchema(t.OutputSchema); err != nil {
			return fmt.Errorf("output schema: %w", err)
		}
	}
	// AddTool panics on a tool it cannot serve, such as one whose input
	// schema is not of type object: that upstream tool is left out.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	p.server.AddTool(&exposed, p.handler)
	return nil
}

// offloadDisabled reports whether the results of the named tool are never
// offloaded.
func (p *Proxy) offloadDisabled(name string) bool {
	return p.lro.Disabled || p.lro.Tools[name].Disabled
}
