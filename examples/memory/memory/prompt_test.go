package memory

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/zircote/lro-go/estimate"
)

func TestFormat(t *testing.T) {
	s := fixture(t)
	hits, err := (&RecallService{Store: s}).Recall("redis", 0, "")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name         string
		budget       int
		detail       Detail
		wantIncluded int
		wantIn       []string
		wantNotIn    []string
	}{
		{"a large budget takes every hit", 10000, Medium, 4,
			[]string{`Relevant memories for "redis"`, "## Use Redis for locks", "Redis gives us cheap locks.", "confidence 0.00", "id=e"}, []string{"Summary:"}},
		{"light is one line per memory without content", 10000, Light, 4,
			[]string{"- Use Redis for locks [_semantic/decisions, ] id=e"}, []string{"cheap locks"}},
		{"full adds the summary", 10000, Full, 4, nil, nil},
		{"a small budget keeps a prefix", 80, Medium, 2, []string{"id=e", "id=f"}, []string{"id=a", "id=b"}},
		{"a budget below the header gives nothing", 3, Medium, 0, nil, []string{"Relevant"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inj := Format("redis", hits, tt.budget, tt.detail)
			if inj.Included != tt.wantIncluded {
				t.Errorf("Included = %d, want %d\n%s", inj.Included, tt.wantIncluded, inj.Text)
			}
			if inj.Tokens > tt.budget || estimate.Tokens(inj.Text) > tt.budget {
				t.Errorf("Tokens = %d (text %d), over budget %d", inj.Tokens, estimate.Tokens(inj.Text), tt.budget)
			}
			for _, w := range tt.wantIn {
				if !strings.Contains(inj.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, inj.Text)
				}
			}
			for _, w := range tt.wantNotIn {
				if strings.Contains(inj.Text, w) {
					t.Errorf("text has %q:\n%s", w, inj.Text)
				}
			}
		})
	}
}

func TestInjectContext(t *testing.T) {
	s := fixture(t)
	p := &PromptIntegration{Recall: &RecallService{Store: s}}
	got, err := p.InjectContext("redis", 10000)
	if err != nil {
		t.Fatal(err)
	}
	hits, _ := p.Recall.Recall("redis", 0, "")
	if diff := cmp.Diff(Format("redis", hits, 10000, Medium).Text, got); diff != "" {
		t.Errorf("InjectContext mismatch (-want +got):\n%s", diff)
	}
	none, err := p.InjectContext("postgres", 100)
	if err != nil || none != "No memories match \"postgres\".\n" {
		t.Errorf("InjectContext(postgres) = %q, %v", none, err)
	}
}
