package lro

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro/extract"
)

// ExtractOptions returns the options of the extraction tools of package
// [extract] that read the files written with opts: the same folder, prefix,
// threshold, tokenizer, observer and clock, and the package's default limits.
// Use it to change a limit; [AddExtractTools] is the one-line form.
// ExtractOptions fails for options that [Options.Validate] rejects.
func (opts *Options) ExtractOptions() (*extract.Options, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return &extract.Options{
		Dir:             c.dir,
		Prefix:          c.Prefix,
		ThresholdTokens: c.ThresholdTokens,
		Tokenizer:       c.Tokenizer,
		Observer:        c.Observer,
		Now:             c.Now,
	}, nil
}

// AddExtractTools registers lro_extract, lro_read and lro_search on s, over
// the files that [Wrap], [AddTool] and [Middleware] write with opts, so that
// clients without a shell can query offloaded results through MCP. Set
// [Options.ExtractTools] in the options of the offloading tools too, so that
// their descriptors' guidance points to lro_extract:
//
//	opts := &lro.Options{ExtractTools: true}
//	if err := lro.AddExtractTools(server, opts); err != nil {
//		return err
//	}
//	lro.AddTool(server, tool, handler, opts)
func AddExtractTools(s *mcp.Server, opts *Options) error {
	eo, err := opts.ExtractOptions()
	if err != nil {
		return err
	}
	return extract.AddTools(s, eo)
}
