package offload

import (
	"context"

	"github.com/zircote/lro-go/lro/event"
)

// emit delivers e to o. A nil o discards the event.
func emit(ctx context.Context, o event.Observer, e event.Event) {
	if o != nil {
		o.Observe(ctx, e)
	}
}
