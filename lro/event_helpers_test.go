package lro_test

import (
	"context"
	"log/slog"

	"github.com/zircote/lro-go/lro/event"
)

// is reports whether e is an event of type E.
func is[E event.Event](e event.Event) bool {
	_, ok := e.(E)
	return ok
}

// eventName returns the name event.Slog logs as the message of e: the
// specification's name of the event.
func eventName(e event.Event) string {
	var h messageHandler
	event.Slog(slog.New(&h)).Observe(context.Background(), e)
	return h.message
}

// messageHandler is a slog.Handler that keeps the message of the last
// record.
type messageHandler struct{ message string }

func (*messageHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *messageHandler) Handle(_ context.Context, r slog.Record) error {
	h.message = r.Message
	return nil
}
func (h *messageHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *messageHandler) WithGroup(string) slog.Handler      { return h }
