package lrotest

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/oklog/ulid/v2"
)

// planted is what the cleanup check put in the output folder.
type planted struct {
	expired, decoy string
	at             time.Time // when they were planted
	created        time.Time // the expired file's created_at
	err            error     // why nothing was planted
}

func (c *checker) plantExpired(dir, op string) {
	if op == "" {
		op = "lrotest"
	}
	p := &planted{at: time.Now()}
	c.plant = p
	ttl := c.cfg.Cleanup.TTL
	p.created = p.at.Add(-ttl - time.Minute)
	id, err := ulid.New(ulid.Timestamp(p.created), rand.Reader)
	if err != nil {
		p.err = err
		return
	}
	header, _ := json.Marshal(map[string]any{
		"type": "lro_header", "operation": op, "query": nil, "count": 0, "schema_version": "1.0",
		"timestamp": p.created.UTC().Format(time.RFC3339Nano), "estimated_tokens": 0, "detail": "light",
	})
	expired := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.jsonl", c.cfg.Prefix, op, id))
	// The file is made complete, times included, under a name no janitor
	// matches, and then renamed: a janitor that sweeps at any moment sees
	// either nothing or the whole expired file.
	staging := filepath.Join(dir, fmt.Sprintf("lrotest-%s.staging", id))
	if err := writeNew(staging, append(header, '\n')); err != nil {
		p.err = err
		return
	}
	if err := os.Chtimes(staging, p.created, p.created); err != nil {
		os.Remove(staging)
		p.err = err
		return
	}
	if err := os.Rename(staging, expired); err != nil {
		os.Remove(staging)
		p.err = err
		return
	}
	p.expired = expired
	decoy := filepath.Join(dir, fmt.Sprintf("lrotest-%s.txt", id))
	if err := writeNew(decoy, []byte("planted by lrotest: not an offloaded file, must be kept\n")); err != nil {
		p.err = err
		return
	}
	p.decoy = decoy
	_ = os.Chtimes(decoy, p.created, p.created)
}

func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

func (c *checker) finishCleanup(ctx context.Context) {
	const id = "L2.cleanup"
	cl, p := c.cfg.Cleanup, c.plant
	switch {
	case cl == nil:
		c.skip(id, "no Config.Cleanup: cleanup is observable only in a server that sweeps its folder within a deadline (give the TTL and the deadline)")
		return
	case p == nil && cl.Dir == "" && c.fetched > 0:
		c.skip(id, "the offloaded files are kept by the server in a store (fetched with resources/read), not in a folder of this machine where the kit could plant an expired file; give Config.Cleanup.Dir if the store is a folder the kit reaches")
		return
	case p == nil && cl.Dir == "":
		c.skip(id, "no offloaded file to find the output folder from, and no Config.Cleanup.Dir")
		return
	case p == nil:
		// Nothing was offloaded: plant in the configured folder now.
		if err := os.MkdirAll(cl.Dir, 0o700); err != nil {
			c.skip(id, "cannot make the output folder: %v", err)
			return
		}
		c.plantExpired(cl.Dir, c.cfg.Operation)
		p = c.plant
	}
	defer func() {
		for _, path := range []string{p.expired, p.decoy} {
			if path != "" {
				_ = os.Remove(path)
			}
		}
	}()
	if p.err != nil {
		c.skip(id, "cannot plant an expired file in the output folder: %v", p.err)
		return
	}
	deadline := p.at.Add(cl.Within)
	deleted := false
	for {
		if _, err := os.Lstat(p.expired); errors.Is(err, os.ErrNotExist) {
			deleted = true
			break
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(25*time.Millisecond, time.Until(deadline))):
		}
	}
	var problems []string
	if !deleted {
		problems = append(problems, fmt.Sprintf("%s, created %s (ULID time and mtime), %s past its TTL of %s, was not deleted within %s",
			p.expired, p.created.UTC().Format(time.RFC3339), time.Since(p.created.Add(cl.TTL)).Round(time.Second), cl.TTL, cl.Within))
	}
	if _, err := os.Lstat(p.decoy); err != nil {
		problems = append(problems, fmt.Sprintf("%s, which is not an offloaded file, was deleted: %v", p.decoy, err))
	}
	for _, f := range c.files {
		if age := time.Since(f.created); age < cl.TTL {
			if _, err := os.Lstat(f.path); errors.Is(err, os.ErrNotExist) {
				problems = append(problems, fmt.Sprintf("%s was deleted %s after it was written, before its TTL of %s", f.path, age.Round(time.Millisecond), cl.TTL))
			}
		}
	}
	c.check(id, problems)
}
