package main

import (
	"encoding/json"
	"fmt"

	"github.com/tiktoken-go/tokenizer"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/examples/memory/memory"
)

// recordsMeasured is how many records of the example corpus measureRecords
// counts at each detail level.
const recordsMeasured = 1000

// recordMean is the mean size of one record line at a detail level: bytes,
// the library's estimator (estimate.Heuristic), and the o200k_base and
// cl100k_base BPE tokenizers.
type recordMean struct {
	Detail  memory.Detail
	Records int
	Bytes   float64
	Est     float64
	O200k   float64
	Cl100k  float64
}

// measureRecords measures every record of the first n memories of the
// example corpus as a JSONL line (its JSON, without the newline) at each
// detail level, and returns the means.
func measureRecords(n int) ([]recordMean, error) {
	o200k, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil, fmt.Errorf("o200k_base: %w", err)
	}
	cl100k, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		return nil, fmt.Errorf("cl100k_base: %w", err)
	}
	corpus := memory.Generate(n, memory.DefaultSeed)
	var out []recordMean
	for _, d := range []memory.Detail{memory.Light, memory.Medium, memory.Full} {
		var sum [4]int // bytes, estimator, o200k_base, cl100k_base
		for i := range corpus {
			b, err := json.Marshal(memory.Project(&corpus[i], d))
			if err != nil {
				return nil, err
			}
			o, err := o200k.Count(string(b))
			if err != nil {
				return nil, fmt.Errorf("o200k_base: %w", err)
			}
			c, err := cl100k.Count(string(b))
			if err != nil {
				return nil, fmt.Errorf("cl100k_base: %w", err)
			}
			sum[0] += len(b)
			sum[1] += estimate.Heuristic{}.Tokens(b)
			sum[2] += o
			sum[3] += c
		}
		f := float64(n)
		out = append(out, recordMean{Detail: d, Records: n, Bytes: float64(sum[0]) / f, Est: float64(sum[1]) / f,
			O200k: float64(sum[2]) / f, Cl100k: float64(sum[3]) / f})
	}
	return out, nil
}
