package lrotest_test

import (
	"context"
	"os"
	"testing"

	"github.com/zircote/lro-go/lro/lrotest"
)

// statuses returns the IDs of the results with each status.
func statuses(rep *lrotest.Report) map[lrotest.Status][]string {
	m := map[lrotest.Status][]string{}
	for _, r := range rep.Results {
		m[r.Status] = append(m[r.Status], r.ID)
	}
	return m
}

func TestConformingServerPassesLevel3(t *testing.T) {
	srv := startServer(t, serverOptions{})
	fb := startServer(t, serverOptions{unwritable: true})
	rep, err := lrotest.Check(context.Background(), srv.cs, config(srv, fb))
	if err != nil {
		t.Fatal(err)
	}
	rep.WriteTable(os.Stdout)
}
