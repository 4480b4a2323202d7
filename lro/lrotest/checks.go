package lrotest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// outcome gathers what the checks found about one requirement.
type outcome struct {
	passes int
	fails  []string
	skips  []string
}

// checker runs one Check.
type checker struct {
	cs     *mcp.ClientSession
	cfg    Config
	tool   *mcp.Tool
	runner runner

	outcomes []outcome

	// The call being checked.
	label    string
	touched  map[string]bool
	blockers []string

	files     []offloadedFile // this run's offloaded files on this machine
	fullCount int             // records of the first offloaded file, or -1
	plant     *planted

	local, fetched int    // files read from file_path, fetched with resources/read
	tmp            string // the private folder of fetched copies; "" until one is kept
}

// offloadedFile is a file this run made the server write.
type offloadedFile struct {
	path    string
	created time.Time
}

func newChecker(cs *mcp.ClientSession, cfg *Config) (*checker, error) {
	if cs == nil {
		return nil, fmt.Errorf("%w: nil session", ErrInvalidConfig)
	}
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil Config (Tool and Large are required)", ErrInvalidConfig)
	}
	c := &checker{cs: cs, cfg: *cfg, outcomes: make([]outcome, len(catalogue)), fullCount: -1}
	k := &c.cfg
	k.Large = maps.Clone(k.Large)
	k.Small = maps.Clone(k.Small)
	k.Details = slices.Clone(k.Details)
	if k.Cleanup != nil {
		cl := *k.Cleanup
		k.Cleanup = &cl
	}
	switch {
	case k.Tool == "":
		return nil, fmt.Errorf("%w: Config.Tool is empty", ErrInvalidConfig)
	case k.Large == nil:
		return nil, fmt.Errorf("%w: Config.Large is nil; give arguments whose result is offloaded", ErrInvalidConfig)
	case k.Level < 0 || k.Level > Level3:
		return nil, fmt.Errorf("%w: Config.Level = %d, want 1, 2 or 3", ErrInvalidConfig, int(k.Level))
	case k.ThresholdTokens < 0:
		return nil, fmt.Errorf("%w: Config.ThresholdTokens = %d, must not be negative", ErrInvalidConfig, k.ThresholdTokens)
	case k.RecipeTimeout < 0:
		return nil, fmt.Errorf("%w: Config.RecipeTimeout = %v, must not be negative", ErrInvalidConfig, k.RecipeTimeout)
	case k.Cleanup != nil && (k.Cleanup.TTL < 0 || k.Cleanup.Within < 0):
		return nil, fmt.Errorf("%w: Config.Cleanup: TTL %v and Within %v must not be negative", ErrInvalidConfig, k.Cleanup.TTL, k.Cleanup.Within)
	}
	if k.Level == 0 {
		k.Level = Level3
	}
	if k.DetailArgument == "" {
		k.DetailArgument = DefaultDetailArgument
	}
	if k.QueryArgument == "" {
		k.QueryArgument = DefaultQueryArgument
	}
	if k.ThresholdTokens == 0 {
		k.ThresholdTokens = DefaultThresholdTokens
	}
	if k.Prefix == "" {
		k.Prefix = DefaultPrefix
	}
	if k.RecipeTimeout == 0 {
		k.RecipeTimeout = DefaultRecipeTimeout
	}
	if k.Cleanup != nil {
		if k.Cleanup.TTL == 0 {
			k.Cleanup.TTL = DefaultTTL
		}
		if k.Cleanup.Within == 0 {
			k.Cleanup.Within = DefaultCleanupWithin
		}
	}
	for _, d := range k.Details {
		if strings.TrimSpace(d) == "" {
			return nil, fmt.Errorf("%w: Config.Details holds an empty detail level", ErrInvalidConfig)
		}
	}
	if sr, ok := newShellRunner(); ok && !k.InProcess {
		c.runner = sr
	} else {
		c.runner = &gojqRunner{}
	}
	return c, nil
}

func (c *checker) findTool(ctx context.Context) error {
	var names []string
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("lrotest: tools/list: %w", err)
		}
		if t.Name == c.cfg.Tool {
			c.tool = t
			return nil
		}
		names = append(names, t.Name)
	}
	return fmt.Errorf("%w: the server lists no tool %q (it lists %s)", ErrInvalidConfig, c.cfg.Tool, strings.Join(names, ", "))
}

// Recording outcomes.

func (c *checker) req(id string) (*outcome, Requirement, bool) {
	i, ok := byID[id]
	if !ok {
		panic("lrotest: unknown requirement " + id)
	}
	r := catalogue[i]
	if c.touched != nil {
		c.touched[id] = true
	}
	return &c.outcomes[i], r, r.Level <= c.cfg.Level
}

func (c *checker) prefix(msg string) string {
	if c.label == "" {
		return msg
	}
	return c.label + ": " + msg
}

func (c *checker) pass(id string) {
	if o, _, ok := c.req(id); ok {
		o.passes++
	}
}

// fail records a violation: a failure of a MUST, a warning for a SHOULD.
func (c *checker) fail(id, format string, args ...any) {
	if o, _, ok := c.req(id); ok {
		o.fails = append(o.fails, c.prefix(fmt.Sprintf(format, args...)))
	}
}

func (c *checker) skip(id, format string, args ...any) {
	if o, _, ok := c.req(id); ok {
		o.skips = append(o.skips, c.prefix(fmt.Sprintf(format, args...)))
	}
}

// check records a pass when problems is empty and a violation otherwise.
func (c *checker) check(id string, problems []string) {
	if len(problems) == 0 {
		c.pass(id)
		return
	}
	c.fail(id, "%s", strings.Join(problems, "; "))
}

// block notes that a prerequisite failed: the requirements of this call
// that are not checked are skipped naming it.
func (c *checker) block(id string) { c.blockers = append(c.blockers, id) }

func (c *checker) begin(label string) {
	c.label = label
	c.touched = map[string]bool{}
	c.blockers = nil
}

// end skips every requirement of scope s that the call did not check.
func (c *checker) end(s scope) {
	reason := "not checked"
	if len(c.blockers) > 0 {
		reason = "not checked: depends on " + strings.Join(c.blockers, ", ")
	}
	for _, r := range catalogue {
		if r.scope == s && !c.touched[r.ID] {
			c.skip(r.ID, "%s", reason)
		}
	}
	c.label, c.touched, c.blockers = "", nil, nil
}

func (c *checker) report() *Report {
	rep := &Report{Tool: c.cfg.Tool, Level: c.cfg.Level, Recipes: c.runner.name(), Files: c.filesText()}
	if c.cfg.Level < Level2 {
		rep.Recipes = "not at all (Level 1 does not run them)"
	}
	for i, r := range catalogue {
		if r.Level > c.cfg.Level {
			continue
		}
		o := c.outcomes[i]
		res := Result{Requirement: r}
		switch {
		case len(o.fails) > 0 && r.Strength == Should:
			res.Status, res.Reasons = Warn, o.fails
		case len(o.fails) > 0:
			res.Status, res.Reasons = Fail, o.fails
		case o.passes > 0:
			res.Status = Pass
		default:
			res.Status, res.Reasons = Skip, dedupe(o.skips)
			if len(res.Reasons) == 0 {
				res.Reasons = []string{"not checked"}
			}
		}
		rep.Results = append(rep.Results, res)
	}
	return rep
}

// fetchedText says how fetched files were read and checked.
const fetchedText = "fetched with resources/read of their resource_link (lro://results/{handle}), their file_path being where a client that downloads them keeps them, into a private temporary folder; the recipes ran on those copies in place of file_path"

// filesText says how the offloaded files were read, for [Report].Files.
func (c *checker) filesText() string {
	switch {
	case c.local == 0 && c.fetched == 0:
		return "none read"
	case c.fetched == 0:
		return "read from file_path on this machine"
	case c.local == 0:
		return fetchedText
	}
	return fmt.Sprintf("%d read from file_path on this machine, %d %s", c.local, c.fetched, fetchedText)
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// run makes every call and check.
func (c *checker) run(ctx context.Context) {
	if c.cfg.Small != nil {
		c.runSmall(ctx)
	} else {
		c.skip("L1.inline.small", "no Config.Small: give arguments whose result is within the threshold")
	}
	for _, lc := range c.largeCases() {
		c.runLarge(ctx, lc)
	}
	if c.cfg.Level >= Level3 {
		c.runFallback(ctx)
	}
	c.skip("L3.events", "not observable over MCP: events are emitted inside the server; check them in-process (lro's TestConformanceLevel3 does)")
	if c.cfg.Level >= Level2 {
		c.finishCleanup(ctx)
	}
}

// largeCase is one call with the large arguments.
type largeCase struct {
	label  string
	args   map[string]any
	detail string // the detail level the file must have; "" when unknown
}

func (c *checker) largeCases() []largeCase {
	asGiven, _ := c.cfg.Large[c.cfg.DetailArgument].(string)
	first := largeCase{label: "large", args: c.cfg.Large, detail: asGiven}
	if asGiven != "" {
		first.label = fmt.Sprintf("large (%s=%s)", c.cfg.DetailArgument, asGiven)
	} else if c.cfg.DefaultDetail != "" {
		first.detail = c.cfg.DefaultDetail
		first.label = fmt.Sprintf("large (no %s: default %s)", c.cfg.DetailArgument, c.cfg.DefaultDetail)
	}
	cases := []largeCase{first}
	for _, d := range c.cfg.Details {
		if d == asGiven {
			continue
		}
		args := maps.Clone(c.cfg.Large)
		args[c.cfg.DetailArgument] = d
		cases = append(cases, largeCase{label: fmt.Sprintf("large (%s=%s)", c.cfg.DetailArgument, d), args: args, detail: d})
	}
	return cases
}

// The small call.

func (c *checker) runSmall(ctx context.Context) {
	c.begin("small")
	defer c.end(scopeSmall)
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.cfg.Tool, Arguments: c.cfg.Small})
	switch {
	case err != nil:
		c.fail("L1.inline.small", "the call failed: %v", err)
	case res.IsError:
		c.fail("L1.inline.small", "the tool returned an error: %s", oneLine(resultText(res), 200))
	default:
		if d := findDescriptor(res, true); d != nil {
			c.fail("L1.inline.small", "the result was offloaded (%s); the small arguments must give a result within the threshold of %d tokens",
				describeDescriptor(d), c.cfg.ThresholdTokens)
			return
		}
		c.pass("L1.inline.small")
	}
}
