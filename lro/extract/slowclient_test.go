package extract_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/store"
)

// TestSlowClientResourceReads sends 64 reads of a large object from a
// client that reads none of its answers until every read has been handled:
// the answers waiting to be written hold the server's memory, and the
// Workers slots must stay taken until each is written, so that only
// Workers answers wait, whatever the client's pace. The others wait for a
// slot, in vain, and answer a short error.
func TestSlowClientResourceReads(t *testing.T) {
	const (
		reads   = 64
		workers = 4
		// The object: a 32nd of MaxMemoryBytes less room, what one read
		// may return; 64 answers of it would hold 64 MiB.
		size = 1 << 20
	)
	ctx := context.Background()
	st, err := store.Open(ctx, "file://"+t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	w, err := st.Create(ctx, "recall")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(jsonl.Header{Operation: "recall", Count: size / 1000}); err != nil {
		t.Fatal(err)
	}
	for range size / 1000 {
		if err := w.WriteRecord(valueLine(strings.Repeat("x", 1000))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	handle := filepath.Base(w.Path())

	server := mcp.NewServer(&mcp.Implementation{Name: "slow-client", Version: "1.0"}, nil)
	err = extract.AddTools(server, &extract.Options{
		LRO: &lro.Options{Store: st, CleanupInterval: -1},
		// The reads that find every slot taken wait this long, then
		// answer an error.
		Timeout:        5 * time.Second,
		MaxMemoryBytes: 256 << 20,
		Workers:        workers,
	})
	if err != nil {
		t.Fatal(err)
	}
	var handled atomic.Int64
	allHandled := make(chan struct{})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "resources/read" && handled.Add(1) == reads {
				close(allHandled)
			}
			return res, err
		}
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := server.Connect(ctx, &mcp.IOTransport{Reader: inR, Writer: outW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	out := bufio.NewReaderSize(outR, 1<<20)
	send := func(format string, args ...any) {
		t.Helper()
		if _, err := fmt.Fprintf(inW, format+"\n", args...); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"slow","version":"1"}}}`)
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	base := liveHeap()
	for id := range reads {
		send(`{"jsonrpc":"2.0","id":%d,"method":"resources/read","params":{"uri":"lro://results/%s"}}`, id+2, handle)
	}
	select {
	case <-allHandled:
	case <-time.After(5 * time.Minute):
		t.Fatalf("%d of %d reads handled after 5 minutes", handled.Load(), reads)
	}
	grown := liveHeap() - base
	t.Logf("grown %d MiB", grown>>20)
	// Each answer waiting is held a few times over (go-sdk's encoding, the
	// write in progress): four times the object, as the docs state.
	if bound := int64((workers + 1) * 4 * size); grown > bound {
		t.Errorf("%d reads of a %d MiB object from a client that reads nothing hold %d MiB, more than %d MiB (Workers answers of four times the object)",
			reads, size>>20, grown>>20, bound>>20)
	}

	whole := 0
	for range reads {
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		var msg struct {
			Result *mcp.ReadResourceResult
			Error  *struct{ Message string }
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatal(err)
		}
		switch {
		case msg.Result != nil && len(msg.Result.Contents) == 1 && len(msg.Result.Contents[0].Text) > size:
			whole++
		case msg.Error != nil && strings.Contains(msg.Error.Message, "time limit of one call, while waiting for one of the"):
		default:
			t.Errorf("an answer neither whole nor waiting in vain: %.300s", line)
		}
	}
	t.Logf("whole %d", whole)
	if whole < workers {
		t.Errorf("%d reads of %d answered whole, want at least one for each of the %d slots", whole, reads, workers)
	}
}

// liveHeap is the bytes of the heap that are reachable, after a collection.
func liveHeap() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
