package extract

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/store"
)

// TestSweepTTLChecked: the TTL of Options.LRO, with which the janitor of the
// answers sweeps, is checked as lro's decorator checks it: a negative one is
// invalid (the janitor would not start, silently), and with a Store one
// other than the Store's is refused (the janitor would keep the files past
// their handles' expiry, or delete them before it).
func TestSweepTTLChecked(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir(), &store.Options{TTL: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	for _, tt := range []struct {
		name string
		lro  lro.Options
		says string // "" for valid
	}{
		{"negative", lro.Options{OutputDir: t.TempDir(), TTL: -time.Second}, "Options.LRO.TTL"},
		{"negative with a Store", lro.Options{Store: st, TTL: -time.Second}, "Options.LRO.TTL"},
		{"longer than the Store's", lro.Options{Store: st, TTL: 24 * time.Hour}, "Options.LRO.TTL"},
		{"shorter than the Store's", lro.Options{Store: st, TTL: time.Minute}, "Options.LRO.TTL"},
		{"the Store's", lro.Options{Store: st, TTL: 2 * time.Hour}, ""},
		{"none with a Store", lro.Options{Store: st}, ""},
	} {
		err := (&Options{LRO: &tt.lro}).Validate()
		if tt.says == "" && err != nil || tt.says != "" && (!errors.Is(err, lro.ErrInvalidOption) || !strings.Contains(err.Error(), tt.says)) {
			t.Errorf("%s: Validate = %v; want %q", tt.name, err, tt.says)
		}
	}
}
