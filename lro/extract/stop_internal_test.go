package extract

import (
	"context"
	"testing"
	"time"
)

// TestTimedOut: the tool's handler adds to a time limit's message the wait
// for a worker, when it took a tenth of the limit or more, and what the
// call may do; it leaves other errors as they are.
func TestTimedOut(t *testing.T) {
	c := &config{Options: Options{Timeout: 10 * time.Second, Workers: 4}}
	ctx, cancel := context.WithTimeoutCause(context.Background(), 0, errTimeout)
	defer cancel()
	<-ctx.Done()
	tests := []struct {
		name   string
		err    error
		tool   string
		waited time.Duration
		want   string
	}{
		{"a search that waited", c.stopped(ctx), toolSearch, 2 * time.Second,
			"stopped after 10s, the time limit of one call (Timeout), 2s of it waiting for one of the 4 workers (Workers), busy with other calls: narrow the pattern, or search from a later line (start_line)"},
		{"an extraction that did not wait", c.stopped(ctx), toolExtract, time.Second / 2,
			"stopped after 10s, the time limit of one call (Timeout): the query is too slow or does not end; narrow it or use a recipe"},
		{"another error", errorf("line 3 is not a valid record"), toolRead, 5 * time.Second, "line 3 is not a valid record"},
		{"a cancelled call", c.stopped(context.Background()), toolRead, 5 * time.Second, "the call was cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.timedOut(tt.err, tt.tool, tt.waited).Error(); got != tt.want {
				t.Errorf("message %q, want %q", got, tt.want)
			}
		})
	}
}
