package cleanup

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
)

// listBatch is how many names a sweep reads from the folder at a time; it
// checks its context between batches.
const listBatch = 1024

// unlockedGrace is how much longer than the TTL a temporary file is kept
// when no lock can tell whether its Writer is alive. No write takes a day.
const unlockedGrace = 24 * time.Hour

// Options configure a [Janitor]. A nil *Options uses every default. [New]
// copies the Options, so changing them afterwards has no effect.
type Options struct {
	// Dir is the folder to sweep, where offloaded files are written. If
	// empty, defaults to [os.TempDir], as in package jsonl. It is made
	// absolute. It need not exist yet.
	Dir string

	// Prefix is the first part of the names of the files to delete,
	// {prefix}-{operation}-{ulid}.jsonl, as they are written. If empty,
	// defaults to "atlatl".
	Prefix string

	// TTL is how long a file lives: it is deleted once created_at + TTL is at
	// or before now, and so is the expiry recorded with it, if any. If zero,
	// defaults to the specification's 3600 seconds (one hour). Negative
	// values are invalid.
	TTL time.Duration

	// OnExpired, if not nil, is called once per deleted file, with the
	// sweep's context, the file's path (in a bucket, its key), its
	// created_at and whether it was a leftover temporary file. It is called
	// by the sweep, between two removals.
	OnExpired func(ctx context.Context, path string, created time.Time, temporary bool)

	// Bucket, if not nil, is the bucket to sweep instead of a folder (Dir
	// is then not used): the [github.com/zircote/lro-go/lro/store.Store.Bucket]
	// that a store of package lro/store writes offloaded objects to.
	Bucket Bucket
}

// Bucket is what a [Janitor] needs of a bucket of objects to sweep it. Its
// methods must be safe for concurrent use;
// [github.com/zircote/lro-go/lro/store.Bucket] includes them.
type Bucket interface {
	// List calls fn with the key of every object whose key starts with
	// prefix and has no '/' after it, in any order, until fn returns an
	// error, which List returns.
	List(ctx context.Context, prefix string, fn func(key string) error) error
	// Delete deletes the object of key, and returns an error wrapping
	// [io/fs.ErrNotExist] if there is none.
	Delete(ctx context.Context, key string) error
	// Expiry returns the expiry recorded with the object of key, or the
	// zero time for an object without one, and an error wrapping
	// [io/fs.ErrNotExist] if there is no such object.
	Expiry(ctx context.Context, key string) (time.Time, error)
}

// Result reports what one sweep did.
type Result struct {
	scanned int // entries (or keys) listed, for the tests
	// Expired is the number of files deleted, leftover temporary files
	// included: one OnExpired call each.
	Expired int
	temp    int // leftover temporary files among Expired, for the tests
	// Kept is the number of entries named as offload or temporary files
	// left in place: those that have not expired yet (whatever their type:
	// they are not inspected), and the expired temporary files whose Writer
	// is alive (holds the lock; where no lock can tell, is younger than the
	// TTL plus a day), which are not in NextExpiry.
	Kept     int
	inUse    int // expired temporary files among Kept whose Writer is alive, for the tests
	skipped  int // expired entries that are not regular files, or are another user's in a shared folder, for the tests
	vanished int // expired files that another sweep removed first, for the tests
	// NextExpiry is the earliest time at which a sweep would delete one of
	// the entries kept: its created_at + TTL, or its recorded expiry when
	// that is later, plus in a bucket the skew margin. It is zero when
	// nothing was kept.
	NextExpiry time.Time
}

// A Janitor deletes expired offloaded files from one folder or bucket when
// [Janitor.Sweep] is called. It is made by [New] and is safe for concurrent
// use.
type Janitor struct {
	o      Options       // with the defaults filled in, Dir absolute
	margin time.Duration // added to a bucket's expiries for the clocks of the replicas

	// beforeRemove, if not nil, is called with the name of each expired
	// file before its removal (a test hook: export_test.go).
	beforeRemove func(name string)
}

// New returns a Janitor configured by opts, which may be nil. It starts
// nothing: the Janitor sweeps when [Janitor.Sweep] is called. For invalid
// options it returns an error naming the field and the problem (wrapping
// the error of package jsonl for a Prefix it rejects, and for a Dir that
// other users could write to), and the error of [filepath.Abs] for a Dir.
func New(opts *Options) (*Janitor, error) {
	o := *cmp.Or(opts, &Options{})
	if o.TTL < 0 {
		return nil, fmt.Errorf("cleanup: invalid Options.TTL %v: negative", o.TTL)
	}
	o.TTL = cmp.Or(o.TTL, spec.DefaultTTL)
	o.Prefix = cmp.Or(o.Prefix, spec.DefaultPrefix)
	if err := disk.ValidatePrefix(o.Prefix); err != nil {
		return nil, fmt.Errorf("cleanup: invalid Options.Prefix: %w", err)
	}
	margin := disk.SkewMargin
	if o.Bucket == nil {
		margin = 0
		o.Dir = cmp.Or(o.Dir, os.TempDir())
		dir, err := filepath.Abs(o.Dir)
		if err != nil {
			return nil, fmt.Errorf("cleanup: Options.Dir %q: %w", o.Dir, err)
		}
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			return nil, fmt.Errorf("cleanup: invalid Options.Dir %q: not a folder", o.Dir)
		}
		if err := disk.CheckDir(dir); err != nil {
			return nil, fmt.Errorf("cleanup: invalid Options.Dir %q: %w", o.Dir, err)
		}
		o.Dir = dir
	}
	return &Janitor{o: o, margin: margin}, nil
}

// Sweep makes one pass over the folder or bucket at time now, deleting the
// expired files (see the package documentation) oldest first, and calling
// [Options.OnExpired] (with ctx) once per deleted file.
//
// Sweep returns what it did and the errors it met, joined, each naming its
// path or key: the listing, and each file it could not inspect or remove
// (the sweep goes on past these). A folder that does not exist is not an
// error. If ctx is canceled, Sweep stops before its next removal and the
// error also wraps ctx.Err(); the Result counts what was done.
func (j *Janitor) Sweep(ctx context.Context, now time.Time) (Result, error) {
	var res Result
	if err := ctx.Err(); err != nil {
		return res, err
	}
	var root *os.Root
	if j.o.Bucket == nil {
		var err error
		if root, err = os.OpenRoot(j.o.Dir); errors.Is(err, fs.ErrNotExist) {
			return res, nil // nothing offloaded yet
		} else if err != nil {
			return res, fmt.Errorf("cleanup: %w", err)
		}
		defer root.Close()
	}
	var due []candidate
	var errs []error
	if err := j.list(ctx, root, func(name string) {
		res.scanned++
		if c, ok := j.due(name, now, &res); ok {
			due = append(due, c)
		}
	}); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return res, ctxErr
		}
		errs = append(errs, err) // remove what was listed
	}
	slices.SortFunc(due, func(a, b candidate) int {
		return cmp.Or(a.created.Compare(b.created), cmp.Compare(a.name, b.name))
	})
	for _, c := range due {
		if err := ctx.Err(); err != nil {
			return res, errors.Join(append(errs, err)...)
		}
		deleted, err := j.remove(ctx, root, c, now, &res)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			res.vanished++ // another sweep took it first
		case err != nil && ctx.Err() != nil:
			return res, errors.Join(append(errs, ctx.Err())...)
		case err != nil:
			errs = append(errs, err)
		case deleted:
			res.Expired++
			if c.temp {
				res.temp++
			}
		}
		if deleted && j.o.OnExpired != nil {
			path := c.name // a bucket's key
			if root != nil {
				path = filepath.Join(j.o.Dir, c.name)
			}
			j.o.OnExpired(ctx, path, c.created, c.temp)
		}
	}
	return res, errors.Join(errs...)
}

// keep counts an entry kept until it expires at t.
func (r *Result) keep(t time.Time) {
	r.Kept++
	if r.NextExpiry.IsZero() || t.Before(r.NextExpiry) {
		r.NextExpiry = t
	}
}

// candidate is an expired entry named as one of the janitor's files.
type candidate struct {
	name    string
	created time.Time
	temp    bool
}

// list calls f with the name of each entry of the folder open as root, in
// batches with ctx checked between them, or with each key of the bucket.
func (j *Janitor) list(ctx context.Context, root *os.Root, f func(name string)) error {
	if root == nil {
		err := j.o.Bucket.List(ctx, j.o.Prefix+"-", func(key string) error {
			f(key)
			return nil
		})
		if err != nil {
			return fmt.Errorf("cleanup: listing the bucket: %w", err)
		}
		return nil
	}
	d, err := root.Open(".")
	if err != nil {
		return j.pathError("open", ".", err)
	}
	defer d.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		names, err := d.Readdirnames(listBatch) // no stat of a file not expired
		for _, name := range names {
			f(name)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return j.pathError("readdirent", ".", err)
		}
	}
}

// due returns the candidate that the entry name is when it is one of the
// janitor's files (or, in a folder, their temporary files) and has
// expired at now; it counts in res one that has not.
func (j *Janitor) due(name string, now time.Time, res *Result) (candidate, bool) {
	temp := false
	_, id, ok := disk.ParseName(name, j.o.Prefix)
	if base, isTemp := disk.TempBase(name); !ok && isTemp && j.o.Bucket == nil {
		_, id, ok = disk.ParseName(base, j.o.Prefix)
		temp = true
	}
	if !ok {
		return candidate{}, false
	}
	created := id.Timestamp().UTC()
	expiry := created.Add(j.o.TTL + j.margin)
	if temp && !disk.Locks { // no lock tells whether its Writer is alive
		expiry = expiry.Add(unlockedGrace)
	}
	if now.Before(expiry) {
		res.keep(expiry)
		return candidate{}, false
	}
	return candidate{name: name, created: created, temp: temp}, true
}

// remove deletes the expired entry c, unless it has a later recorded
// expiry, is no regular file, is another user's in a folder that others may
// write to (disk.Foreign), or is a temporary file whose Writer is alive
// (each counted in res), and reports whether it did. An error wrapping
// [fs.ErrNotExist] says that c vanished meanwhile.
func (j *Janitor) remove(ctx context.Context, root *os.Root, c candidate, now time.Time, res *Result) (bool, error) {
	if root == nil {
		until, err := j.o.Bucket.Expiry(ctx, c.name)
		if err != nil {
			return false, fmt.Errorf("cleanup: reading the expiry of %q in the bucket: %w", c.name, err)
		}
		if until = until.Add(j.margin); now.Before(until) {
			res.keep(until) // the expiry recorded with the object, later than the TTL's
			return false, nil
		}
		if j.beforeRemove != nil {
			j.beforeRemove(c.name)
		}
		if err := j.o.Bucket.Delete(ctx, c.name); err != nil {
			return false, fmt.Errorf("cleanup: deleting %q from the bucket: %w", c.name, err)
		}
		return true, nil
	}
	fi, err := root.Lstat(c.name)
	if err != nil {
		return false, j.pathError("lstat", c.name, err)
	}
	if !fi.Mode().IsRegular() {
		res.skipped++ // a symlink, folder, FIFO, ...: not ours
		return false, nil
	}
	if disk.Foreign(root, fi) {
		res.skipped++ // another user's, in a folder others may write to: not ours
		return false, nil
	}
	if recorded, ok := disk.ExpiryOf(fi); ok && !c.temp && now.Before(recorded) {
		res.keep(recorded) // the expiry recorded with the file, later than the TTL's
		return false, nil
	}
	if c.temp {
		// Only a temporary file whose lock is free is a leftover; it is
		// removed while the janitor holds that lock.
		f, err := disk.LockLeftover(root, c.name, fi)
		young := now.Before(c.created.Add(j.o.TTL + unlockedGrace))
		switch {
		case errors.Is(err, disk.ErrBusy), errors.Is(err, disk.ErrNoLock) && young:
			res.Kept++
			res.inUse++
			return false, nil
		case errors.Is(err, disk.ErrNoLock): // old enough to be a leftover
		case err != nil:
			return false, j.pathError("open", c.name, err)
		default:
			defer f.Close()
		}
	}
	if j.beforeRemove != nil {
		j.beforeRemove(c.name)
	}
	if err := root.Remove(c.name); err != nil {
		return false, j.pathError("remove", c.name, err)
	}
	return true, nil
}

// pathError returns err of op on name as an error naming the full path.
func (j *Janitor) pathError(op, name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cleanup: %w", &fs.PathError{Op: op, Path: filepath.Join(j.o.Dir, name), Err: err})
}
