package main

import (
	"encoding/json"
	"testing"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/examples/memory/memory"
)

func TestMeasureRecords(t *testing.T) {
	got, err := measureRecords(10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Detail != memory.Light || got[2].Detail != memory.Full {
		t.Fatalf("measureRecords() = %+v, want light, medium, full", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Bytes <= got[i-1].Bytes || got[i].O200k <= got[i-1].O200k {
			t.Errorf("%s records (%v bytes, %v tokens) are not larger than %s ones (%v, %v)", got[i].Detail, got[i].Bytes, got[i].O200k, got[i-1].Detail, got[i-1].Bytes, got[i-1].O200k)
		}
	}
	for _, m := range got {
		if m.Cl100k == 0 || m.Records != 10 {
			t.Errorf("%s: %+v, want 10 records counted with cl100k_base too", m.Detail, m)
		}
	}
	// The estimator's counts are those of package estimate: the records' mean.
	corpus := memory.Generate(10, memory.DefaultSeed)
	sum := 0
	for i := range corpus {
		b, err := json.Marshal(memory.Project(&corpus[i], memory.Full))
		if err != nil {
			t.Fatal(err)
		}
		sum += estimate.Heuristic{}.Tokens(b)
	}
	if want := float64(sum) / 10; got[2].Est != want {
		t.Errorf("full records: estimator mean %v, want %v (estimate.Heuristic)", got[2].Est, want)
	}
}
