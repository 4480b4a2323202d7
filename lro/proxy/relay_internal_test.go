package proxy

import (
	"encoding/json"
	"log/slog"
	"testing"
	"testing/synctest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestOwnRequestAnsweredAgain: answers to a request of the relay's own
// (the replayed initialize) beyond the one it waits for are dropped; they
// do not block the reading of the upstream for ever.
func TestOwnRequestAnsweredAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &relay{p: &Proxy{logger: slog.New(slog.DiscardHandler)}, calls: map[jsonrpc.ID]*call{}, own: map[jsonrpc.ID]chan *jsonrpc.Response{}}
		id, _ := jsonrpc.MakeID("lro-proxy-1")
		answer := make(chan *jsonrpc.Response, 1) // as replay makes it
		r.own[id] = answer
		read := make(chan struct{})
		go func() {
			defer close(read)
			for range 3 {
				r.fromUpstream(nil, &jsonrpc.Response{ID: id, Result: json.RawMessage(`{}`)})
			}
		}()
		synctest.Wait()
		select {
		case <-read:
		default:
			t.Error("the third answer blocked the reading of the upstream")
			for range 2 {
				<-answer // let it go
			}
			<-read
		}
		if resp := <-answer; resp.ID != id {
			t.Errorf("the answer kept has the id %v; want %v", resp.ID.Raw(), id.Raw())
		}
	})
}
