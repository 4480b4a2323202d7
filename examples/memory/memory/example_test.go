package memory_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/zircote/lro-go/examples/memory/memory"
)

func ExampleProject() {
	m := memory.Memory{
		ID:         "0b6f1c2e-5d4a-4e8b-9f3a-2c1d0e9f8a7b",
		MemoryType: memory.Semantic,
		Content:    "Use Redis for the job scheduler: keeps p99 under 50 ms.",
		Created:    time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC),
		Modified:   time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC),
		Namespace:  "_semantic/decisions",
		Title:      "Use Redis for the job scheduler",
		Tags:       []string{"decision"},
		Status:     "active",
		Summary:    "Redis for the job scheduler.",
		Provenance: &memory.Provenance{Confidence: 0.9, TrustLevel: "high", SourceType: "conversation", Agent: "claude-code"},
	}
	for _, d := range []memory.Detail{memory.Light, memory.Medium, memory.Full} {
		b, _ := json.Marshal(memory.Project(&m, d))
		fmt.Printf("%s: %s\n", d, b)
	}
	// Output:
	// light: {"id":"0b6f1c2e-5d4a-4e8b-9f3a-2c1d0e9f8a7b","memory_type":"semantic","content":"","created":"2025-03-04T10:00:00Z","modified":"2025-03-04T10:00:00Z","namespace":"_semantic/decisions","title":"Use Redis for the job scheduler","tags":["decision"],"status":"active"}
	// medium: {"id":"0b6f1c2e-5d4a-4e8b-9f3a-2c1d0e9f8a7b","memory_type":"semantic","content":"Use Redis for the job scheduler: keeps p99 under 50 ms.","created":"2025-03-04T10:00:00Z","modified":"2025-03-04T10:00:00Z","namespace":"_semantic/decisions","title":"Use Redis for the job scheduler","tags":["decision"],"status":"active","confidence":0.9,"summary":"Redis for the job scheduler."}
	// full: {"id":"0b6f1c2e-5d4a-4e8b-9f3a-2c1d0e9f8a7b","memory_type":"semantic","content":"Use Redis for the job scheduler: keeps p99 under 50 ms.","created":"2025-03-04T10:00:00Z","modified":"2025-03-04T10:00:00Z","namespace":"_semantic/decisions","title":"Use Redis for the job scheduler","tags":["decision"],"status":"active","summary":"Redis for the job scheduler.","provenance":{"confidence":0.9,"trust_level":"high","source_type":"conversation","agent":"claude-code"}}
}

func ExampleRecallService_Recall() {
	store, err := memory.NewStore(memory.Generate(memory.DefaultCorpusSize, memory.DefaultSeed))
	if err != nil {
		panic(err)
	}
	recall := &memory.RecallService{Store: store}
	hits, err := recall.Recall("runbook envoy", 3, "_procedural")
	if err != nil {
		panic(err)
	}
	for _, h := range hits {
		fmt.Printf("%.2f %s\n", h.Score, h.Memory.Title)
	}
	// Output:
	// 0.50 Runbook: restart the ingest pipeline
	// 0.50 Runbook: scale the metrics store
}
