package memory

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// Defaults of the synthetic corpus.
const (
	// DefaultCorpusSize is the number of memories [Generate] is usually asked
	// for: the scale of the LRO paper's largest corpus.
	DefaultCorpusSize = 500
	// DefaultSeed is the seed of the default corpus.
	DefaultSeed uint64 = 1
)

// corpusEpoch is the earliest creation time of a generated memory. Fixed, so
// that the corpus does not depend on the clock.
var corpusEpoch = time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC)

// Generate returns n synthetic memories drawn from seed. The same n and seed
// always give the same memories, byte for byte, and a smaller n gives a
// prefix of a larger one.
//
// The memories spread unevenly over seven namespaces of the three memory
// types, carry every MIF field, and average about 155 estimated tokens
// (about 620 characters) as full-detail JSON records, like the corpus of the
// LRO paper.
func Generate(n int, seed uint64) []Memory {
	g := &generator{r: rand.New(rand.NewPCG(seed, 0x6d656d6f72792d31))}
	ms := make([]Memory, 0, max(n, 0))
	for range n {
		ms = append(ms, g.next(ms))
	}
	return ms
}

type generator struct {
	r *rand.Rand
}

// kind is one namespace of the corpus and how to write its memories.
type kind struct {
	namespace    string
	memoryType   MemoryType
	weight       int     // relative share of the corpus
	halfLifeDays float64 // decay half life
	tag          string  // tag every memory of the kind carries
	write        func(g *generator, s *slots) (title, content, summary string)
}

// slots are the values drawn for one memory, shared by its text and fields.
type slots struct {
	component, other, tech, alt string
}

var kinds = []kind{
	{"_semantic/decisions", Semantic, 18, 180, "decision", (*generator).decision},
	{"_semantic/architecture", Semantic, 14, 365, "architecture", (*generator).architecture},
	{"_semantic/preferences", Semantic, 8, 365, "preference", (*generator).preference},
	{"_episodic/sessions", Episodic, 20, 30, "session", (*generator).session},
	{"_episodic/incidents", Episodic, 12, 90, "incident", (*generator).incident},
	{"_procedural/runbooks", Procedural, 16, 180, "runbook", (*generator).runbook},
	{"_procedural/patterns", Procedural, 12, 365, "pattern", (*generator).pattern},
}

var (
	components = []string{"job scheduler", "billing service", "auth gateway", "search index",
		"event bus", "ingest pipeline", "web frontend", "mobile API", "metrics store",
		"cache layer", "notification service", "config service"}
	techs = []string{"PostgreSQL", "Redis", "Kafka", "NATS", "SQLite", "gRPC", "OpenTelemetry",
		"Kubernetes", "Terraform", "S3", "Elasticsearch", "Envoy"}
	topics   = []string{"performance", "security", "reliability", "cost", "testing", "observability"}
	people   = []string{"Ana", "Bruno", "Chen", "Dara", "Emeka", "Farah", "Goran", "Hana"}
	teams    = []string{"platform", "payments", "identity", "data", "growth"}
	agents   = []string{"claude-code", "atlatl-ingest", "cursor", "copilot"}
	sources  = []string{"conversation", "document", "observation", "inference"}
	statuses = []string{"active", "active", "active", "active", "active", "active", "active",
		"active", "active", "active", "active", "active", "active", "active", "active",
		"draft", "draft", "superseded", "superseded", "archived"}
	relTypes = []string{"relates_to", "supersedes", "caused_by", "implements"}
)

func (g *generator) pick(ss []string) string { return ss[g.r.IntN(len(ss))] }

// pickOther picks an element of ss other than not.
func (g *generator) pickOther(ss []string, not string) string {
	for {
		if s := g.pick(ss); s != not {
			return s
		}
	}
}

func (g *generator) kind() *kind {
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	n := g.r.IntN(total)
	for i := range kinds {
		if n < kinds[i].weight {
			return &kinds[i]
		}
		n -= kinds[i].weight
	}
	panic("unreachable")
}

// uuid returns a random version 4 UUID drawn from the generator.
func (g *generator) uuid() string {
	var b [16]byte
	hi, lo := g.r.Uint64(), g.r.Uint64()
	for i := range 8 {
		b[i] = byte(hi >> (56 - 8*i))
		b[8+i] = byte(lo >> (56 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// slug turns "job scheduler" into "job-scheduler" and "PostgreSQL" into
// "postgresql".
func slug(s string) string { return strings.ReplaceAll(strings.ToLower(s), " ", "-") }

func (g *generator) next(prev []Memory) Memory {
	k := g.kind()
	s := &slots{component: g.pick(components), tech: g.pick(techs)}
	s.other = g.pickOther(components, s.component)
	s.alt = g.pickOther(techs, s.tech)
	title, content, summary := k.write(g, s)

	created := corpusEpoch.Add(time.Duration(g.r.Int64N(540*24*3600)) * time.Second)
	modified := created
	if g.r.IntN(10) < 6 {
		modified = created.Add(time.Duration(g.r.Int64N(30*24*3600)) * time.Second)
	}
	status := g.pick(statuses)
	tags := []string{k.tag, slug(s.component)}
	if g.r.IntN(2) == 0 {
		tags = append(tags, g.pick(topics))
	}

	m := Memory{
		ID:         g.uuid(),
		MemoryType: k.memoryType,
		Content:    content,
		Created:    created,
		Modified:   modified,
		Namespace:  k.namespace,
		Title:      title,
		Tags:       tags,
		Status:     status,
		Summary:    summary,
		Provenance: &Provenance{
			Confidence: round(0.55+0.44*g.r.Float64(), 2),
			TrustLevel: []string{"high", "medium", "low"}[g.r.IntN(3)],
			SourceType: g.pick(sources),
			Agent:      g.pick(agents),
		},
	}

	// The enrichment fields are optional in MIF; each appears on a share of
	// the corpus, which keeps the average full record near 155 tokens.
	if g.r.IntN(3) == 0 {
		m.Entities = []Entity{{Name: s.tech, Type: "technology"}}
	}
	if len(prev) > 0 && g.r.IntN(4) == 0 {
		m.Relationships = []Relationship{{Type: g.pick(relTypes), Target: prev[g.r.IntN(len(prev))].ID}}
	}
	if g.r.IntN(5) == 0 {
		m.WikiLinks = []string{s.other}
	}
	if g.r.IntN(8) == 0 {
		m.Embedding = make([]float32, 8)
		for i := range m.Embedding {
			m.Embedding[i] = float32(round(2*g.r.Float64()-1, 2))
		}
	}
	switch {
	case k.memoryType == Episodic && g.r.IntN(2) == 0:
		m.Temporal = &Temporal{
			Decay: &Decay{Model: "exponential", HalfLifeDays: k.halfLifeDays, Strength: round(0.2+0.8*g.r.Float64(), 2)},
			TTL:   "P90D",
		}
	case status == "superseded" || status == "archived":
		until := modified
		m.Temporal = &Temporal{ValidUntil: &until}
	}
	if g.r.IntN(10) == 0 {
		m.Extensions = map[string]any{"team": g.pick(teams)}
	}
	if k.memoryType == Procedural && g.r.IntN(3) == 0 {
		m.Blocks = []Block{{Type: "code", Text: "make -C ops " + slug(s.component)}}
	}
	if k.memoryType == Semantic && g.r.IntN(6) == 0 {
		n := 1 + g.r.IntN(120)
		m.Citations = []Citation{{Title: fmt.Sprintf("ADR-%03d", n), URL: fmt.Sprintf("https://wiki.example.com/adr/%03d", n)}}
	}
	return m
}

func (g *generator) decision(s *slots) (title, content, summary string) {
	reason := g.pick([]string{"we already run it in prod", "keeps p99 under 50 ms", "one less moving part", "mature Go client"})
	con := g.pick([]string{"another cluster to run", "weak ordering guarantees", "cost grows with use"})
	return fmt.Sprintf("Use %s for the %s", s.tech, s.component),
		fmt.Sprintf("Use %s for the %s: %s. Rejected %s: %s.", s.tech, s.component, reason, s.alt, con),
		fmt.Sprintf("%s over %s for the %s.", s.tech, s.alt, s.component)
}

func (g *generator) architecture(s *slots) (title, content, summary string) {
	detail := g.pick([]string{
		"Writes are idempotent by request id",
		"Reads are cached for five minutes",
		"Queues shed load with 429s",
		"Every hop propagates trace context",
	})
	return fmt.Sprintf("%s to %s via %s", capitalize(s.component), s.other, s.tech),
		fmt.Sprintf("The %s calls the %s via %s. %s.", s.component, s.other, s.tech, detail),
		fmt.Sprintf("How the %s reaches the %s.", s.component, s.other)
}

func (g *generator) preference(s *slots) (title, content, summary string) {
	prefs := [][2]string{
		{"table-driven tests", "Prefer table-driven tests with a reason per case"},
		{"small interfaces", "Keep interfaces small, defined where used"},
		{"structured logging", "Log structured fields, not formatted strings"},
		{"explicit timeouts", "Give every outbound call a timeout"},
		{"feature flags", "Put risky changes behind an expiring flag"},
	}
	p := prefs[g.r.IntN(len(prefs))]
	return "Preference: " + p[0],
		fmt.Sprintf("%s. Raised by %s in review of the %s.", p[1], g.pick(people), s.component),
		fmt.Sprintf("Team preference: %s.", p[0])
}

func (g *generator) session(s *slots) (title, content, summary string) {
	verb := g.pick([]string{"refactoring", "profiling", "migrating", "debugging", "load testing"})
	outcome := g.pick([]string{"Cut hot-path allocations by a third", "Capped two unbounded retries",
		"Moved the last callers to " + s.tech, "Added missing integration tests"})
	next := g.pick([]string{"open a PR", "measure under prod traffic", "delete the old path"})
	return fmt.Sprintf("Session: %s the %s", verb, s.component),
		fmt.Sprintf("With %s, %s the %s. %s. Next: %s.", g.pick(people), verb, s.component, outcome, next),
		fmt.Sprintf("%s the %s.", capitalize(verb), s.component)
}

func (g *generator) incident(s *slots) (title, content, summary string) {
	symptoms := [][2]string{
		{"latency spike", "hit p99 above 2 s"},
		{"error burst", "returned 5xx on 4% of calls"},
		{"outage", "stopped serving"},
		{"event lag", "fell 40 min behind"},
	}
	sym := symptoms[g.r.IntN(len(symptoms))]
	cause := g.pick([]string{"a pool config push", "a " + s.tech + " upgrade", "a cert expiry", "a locking migration"})
	fix := g.pick([]string{"rolling back", "raising the pool size", "rotating the cert", "draining nodes"})
	return fmt.Sprintf("Incident: %s %s", s.component, sym[0]),
		fmt.Sprintf("The %s %s after %s; mitigated by %s in %d min.", s.component, sym[1], cause, fix, 5+g.r.IntN(55)),
		fmt.Sprintf("%s %s, fixed by %s.", capitalize(s.component), sym[0], fix)
}

func (g *generator) runbook(s *slots) (title, content, summary string) {
	task := g.pick([]string{"restart", "scale", "rotate secrets of", "fail over", "back up", "drain"})
	check := g.pick([]string{"watch error rates", "confirm health checks", "watch " + s.tech + " lag"})
	return fmt.Sprintf("Runbook: %s the %s", task, s.component),
		fmt.Sprintf("To %s the %s: announce in #ops, run the %s job, then %s.", task, s.component, slug(task), check),
		fmt.Sprintf("How to %s the %s.", task, s.component)
}

func (g *generator) pattern(s *slots) (title, content, summary string) {
	pats := [][2]string{
		{"retry with jitter", "retry idempotent calls with capped backoff and jitter"},
		{"outbox publishing", "write events to an outbox in the same transaction"},
		{"idempotent consumers", "dedupe messages by key before applying them"},
		{"circuit breaking", "open the breaker after five straight failures"},
	}
	p := pats[g.r.IntN(len(pats))]
	return fmt.Sprintf("Pattern: %s with %s", p[0], s.tech),
		fmt.Sprintf("When the %s calls %s, %s.", s.component, s.tech, p[1]),
		fmt.Sprintf("Use %s around %s.", p[0], s.tech)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
