package memory

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zircote/lro-go/estimate"
)

// PromptIntegration formats recalled memories into a context string for
// prompt injection, under a token budget. It is safe for concurrent use.
type PromptIntegration struct {
	Recall *RecallService
}

// InjectContext recalls every memory matching query (see
// [RecallService.Recall]) and formats them at medium detail into a context
// string of at most tokenBudget estimated tokens. It returns [ErrEmptyQuery]
// when query has no term.
func (p *PromptIntegration) InjectContext(query string, tokenBudget int) (string, error) {
	_, inj, err := p.Inject(query, tokenBudget, Medium)
	return inj.Text, err
}

// Inject is [PromptIntegration.InjectContext] at detail level d that also
// returns the pre-budget recall set: every hit, of which inj.Included made it
// into the context string. It returns [ErrEmptyQuery] when query has no term.
func (p *PromptIntegration) Inject(query string, tokenBudget int, d Detail) (hits []SearchHit, inj Injection, err error) {
	hits, err = p.Recall.Recall(query, 0, "")
	if err != nil {
		return nil, Injection{}, err
	}
	return hits, Format(query, hits, tokenBudget, d), nil
}

// Injection is a formatted context string.
type Injection struct {
	Text     string // the context string
	Included int    // hits that fit in the budget, a prefix of the hits given
	Tokens   int    // estimated tokens of Text, at most the budget
}

// Format formats hits, best first, into a context string under budget
// estimated tokens (see [estimate.Tokens]); it stops at the first hit that
// does not fit. At light detail each memory is one line (title, namespace,
// type, id); at medium a heading, a metadata line and the content; at full
// also the summary. Scores are not shown.
func Format(query string, hits []SearchHit, budget int, d Detail) Injection {
	var b strings.Builder
	var inj Injection
	add := func(s string) bool {
		t := estimate.Tokens(s)
		if inj.Tokens+t > budget {
			return false
		}
		b.WriteString(s)
		inj.Tokens += t
		return true
	}
	if len(hits) == 0 {
		add(fmt.Sprintf("No memories match %q.\n", query))
		inj.Text = b.String()
		return inj
	}
	if !add(fmt.Sprintf("Relevant memories for %q (best first):\n\n", query)) {
		return inj
	}
	for i := range hits {
		if !add(formatHit(&hits[i].Memory, d)) {
			break
		}
		inj.Included++
	}
	inj.Text = b.String()
	return inj
}

func formatHit(m *Memory, d Detail) string {
	if d == Light {
		return fmt.Sprintf("- %s [%s, %s] id=%s\n", m.Title, m.Namespace, m.MemoryType, m.ID)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n", m.Title)
	fmt.Fprintf(&b, "%s · %s · confidence %s", m.Namespace, m.MemoryType, strconv.FormatFloat(m.Confidence(), 'f', 2, 64))
	if len(m.Tags) > 0 {
		fmt.Fprintf(&b, " · tags: %s", strings.Join(m.Tags, ", "))
	}
	fmt.Fprintf(&b, " · id=%s\n", m.ID)
	if d == Full && m.Summary != "" {
		fmt.Fprintf(&b, "Summary: %s\n", m.Summary)
	}
	b.WriteString(m.Content)
	b.WriteString("\n\n")
	return b.String()
}
