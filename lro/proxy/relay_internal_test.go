package proxy

import (
	"encoding/json"
	"log/slog"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
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

// TestDecodeBatch: a batch decodes into its messages, as written, or fails
// as a whole, as go-sdk's reader of a command's stdout does.
func TestDecodeBatch(t *testing.T) {
	msgs, err := decodeBatch([]byte(`[{"jsonrpc":"2.0","method":"x/n","params":{"n":1e400}} , {"jsonrpc":"2.0","id":1,"result":{"a":1.50}}]`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		data, _ := jsonrpc.EncodeMessage(m)
		got = append(got, string(data))
	}
	want := []string{`{"jsonrpc":"2.0","method":"x/n","params":{"n":1e400}}`, `{"jsonrpc":"2.0","id":1,"result":{"a":1.50}}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ batch, why string }{
		{`[]`, "empty"},
		{`[{"jsonrpc":"2.0","method":"x/n"},{"jsonrpc":"1.0","method":"x/n"}]`, "a message is invalid"},
		{`[{"jsonrpc":"2.0","method":"x/n"},1]`, "an element is no object"},
		{`[{"jsonrpc":"2.0","method":"x/n"}`, "cut short"},
		{`[{"jsonrpc":"2.0","method":"x/n"}] []`, "a second value"},
	} {
		if msgs, err := decodeBatch([]byte(tc.batch)); err == nil {
			t.Errorf("%s (%s): %d messages; want an error", tc.batch, tc.why, len(msgs))
		}
	}
}

// TestSameText: a reply's id is taken for a request's of the other type
// only when its text is the same: a string id that merely parses as the
// number ("07", "+7") is another id, whose reply does not fail the call 7.
func TestSameText(t *testing.T) {
	id := func(v any) jsonrpc.ID {
		id, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for _, tc := range []struct {
		id   jsonrpc.ID
		want any // nil: none
	}{
		{id(float64(7)), "7"},
		{id(float64(-7)), "-7"},
		{id("7"), int64(7)},
		{id("-7"), int64(-7)},
		{id("07"), nil},
		{id("+7"), nil},
		{id("-0"), nil},
		{id(" 7"), nil},
		{id("x"), nil},
		{id("99999999999999999999"), nil},
	} {
		alt, ok := sameText(tc.id)
		if got := alt.Raw(); ok != (tc.want != nil) || ok && got != tc.want {
			t.Errorf("sameText(%#v) = %#v, %v; want %#v", tc.id.Raw(), got, ok, tc.want)
		}
	}
}

// TestRewriteToolsDuplicateNames: of a tools/list page with its tools
// twice, the client reads the last; the proxy rewrites that one.
func TestRewriteToolsDuplicateNames(t *testing.T) {
	p := &Proxy{logger: slog.New(slog.DiscardHandler), localNames: map[string]bool{"local": true}, localTools: [][]byte{[]byte(`{"name":"local"}`)}}
	got := p.rewriteTools([]byte(`{"tools":[{"name":"first"}],"nextCursor":"c","tools":[{"name":"last"}],"nextCursor":null}`))
	if want := `{"tools":[{"name":"last"},{"name":"local"}],"nextCursor":"c","nextCursor":null}`; string(got) != want {
		t.Errorf("rewriteTools = %s; want %s", got, want)
	}
}
