package offload

import (
	"context"
	"encoding/json"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/event"
)

// write writes the records of p to a new file and returns the JSON of its
// descriptor. Nothing is left on disk when it fails, whatever the failure
// (a panic of a WrapWriter included).
func (c *Config) write(ctx context.Context, call Call, r *result, p *plan) (desc []byte, err error) {
	defer recovered(&err)
	start := c.Now()
	op := jsonl.SanitizeOperation(call.Operation)
	create := c.Create
	if create == nil {
		create = jsonl.Create
	}
	w, err := create(op, &jsonl.Options{Dir: c.Dir, Prefix: c.Prefix, Now: c.Now, WrapWriter: c.WrapWriter})
	if err != nil {
		return nil, err
	}
	defer w.Abort() // no-op after a successful Commit

	t := &tally{}
	if c.wantsSchema() {
		t.schema = &descriptor.Inferrer{}
	}
	count := p.count()
	h := jsonl.Header{
		Operation:       op,
		Query:           call.Query,
		Count:           count,
		SchemaVersion:   c.SchemaVersion,
		EstimatedTokens: p.tokens,
		Detail:          string(call.Detail),
		Result:          json.RawMessage(p.result),
	}
	for _, ru := range p.runs {
		h.RecordsAt = append(h.RecordsAt, jsonl.Placement{At: ru.at, As: ru.as, Count: ru.count, InText: ru.inText, FinalNewline: ru.finalNewline})
	}
	for _, cp := range p.copies {
		h.Copies = append(h.Copies, jsonl.Copy{At: cp.at, Of: cp.of})
	}
	if err := w.WriteHeader(h); err != nil {
		return nil, err
	}
	// One pass writes the records and gathers what the descriptor says of
	// them.
	err = p.each(func(line []byte) error {
		t.add(line)
		return w.WriteRecord(line)
	})
	if err != nil {
		return nil, err
	}
	in := descriptor.Input{
		Path:            c.clientPath(w.Path()),
		Operation:       op,
		Detail:          string(call.Detail),
		Count:           count,
		EstimatedTokens: p.tokens,
	}
	// The descriptor is built before the commit, so that a descriptor that
	// cannot be built leaves no file behind.
	desc, err = c.describe(in, call, t, p)
	if err != nil {
		return nil, err
	}
	if err := w.Commit(); err != nil {
		return nil, err
	}
	event.Emit(ctx, c.Observer, event.Offloaded{
		Tool:            call.Tool,
		Operation:       op,
		Path:            w.Path(),
		Count:           count,
		EstimatedTokens: p.tokens,
		ThresholdTokens: c.Threshold,
		Detail:          in.Detail,
		Bytes:           w.Size(),
		Duration:        c.Now().Sub(start),
	})
	return desc, nil
}
