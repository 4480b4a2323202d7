package disk

import (
	"cmp"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"
)

const (
	tempSuffix     = ".tmp" // ends the name of every temporary file
	createAttempts = 8      // retries of Create on a name collision
	// Results may contain private data.
	fileMode fs.FileMode = 0o600
	dirMode  fs.FileMode = 0o700
)

// TempName returns the name of the temporary file of the file named base,
// "." + base + ".tmp".
func TempName(base string) string { return "." + base + tempSuffix }

// TempBase returns the name of the file whose temporary file is named
// temp, and reports whether temp is the name of a temporary file at all.
func TempBase(temp string) (base string, ok bool) {
	name, ok := strings.CutPrefix(temp, ".")
	if base, ok2 := strings.CutSuffix(name, tempSuffix); ok && ok2 {
		return base, true
	}
	return "", false
}

// LockLeftover is the janitor's side of the lock of [Create]'s temporary
// files: it opens the temporary file name of root, which an lstat found to
// be the regular file fi, and tries to take its lock without waiting. It
// returns the file, still locked and still at name, for the caller to
// remove by name and then close; or an error: [ErrBusy] for a live Writer,
// one wrapping [ErrNoLock] where no lock can tell, or [fs.ErrNotExist] for
// a file removed or replaced since the lstat. The open never blocks (on a
// FIFO put there meanwhile).
func LockLeftover(root *os.Root, name string, fi fs.FileInfo) (*os.File, error) {
	if !Locks {
		return nil, ErrNoLock
	}
	f, err := root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	ofi, err := f.Stat()
	if err == nil && !os.SameFile(fi, ofi) {
		err = fs.ErrNotExist
	}
	if err == nil {
		err = Lock(f, false)
	}
	if err == nil {
		// Another janitor may have removed the name, or someone replaced it.
		if nfi, err2 := root.Lstat(name); err2 != nil || !os.SameFile(fi, nfi) {
			err = fs.ErrNotExist
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenRead opens the file name of root read-only, failing on a symbolic
// link where os.Root honours O_NOFOLLOW, and without blocking on a FIFO.
func OpenRead(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, os.O_RDONLY|readFlags, 0)
}

// The errors of OpenChecked for a file that is not one the offloader wrote.
var (
	ErrNotRegular = errors.New("not a regular file")
	ErrReplaced   = errors.New("replaced while it was opened")
	ErrLinked     = errors.New("more than one hard link")
	ErrForeign    = errors.New("owned by another user, in a folder that others may write to")
)

// OpenChecked opens the file name of root as OpenRead does and returns it
// with its information if it is checked (root's Lstat of name, a regular
// file), still a regular file, with a single hard link, and this process's
// user's if other users may write to the folder. os.Root follows a
// link that stays in the folder, even with O_NOFOLLOW (Go 1.26), so what
// is opened must be what was checked; a hard link reaches a file elsewhere,
// and the offloader's files have one; another user may put a file of any
// content under any name in a sticky folder (the system temp folder), but
// the offloader's files are its own. Otherwise it returns OpenRead's or
// Stat's error, or ErrNotRegular, ErrReplaced, ErrLinked or ErrForeign with
// the file's information.
func OpenChecked(root *os.Root, name string, checked fs.FileInfo) (*os.File, fs.FileInfo, error) {
	f, err := OpenRead(root, name)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
	case !fi.Mode().IsRegular():
		err = ErrNotRegular
	case !os.SameFile(checked, fi):
		err = ErrReplaced
	case Links(fi) > 1:
		err = ErrLinked
	case Foreign(root, fi):
		err = ErrForeign
	default:
		return f, fi, nil
	}
	f.Close()
	return nil, fi, err
}

// Sink is where package jsonl's NewWriter writes a file: it becomes
// visible, whole, on Commit, and Abort discards it.
type Sink interface {
	io.Writer
	Commit() error
	Abort() error
}

// Wrap returns s writing through wrap(s), for fault injection; s itself
// when wrap is nil. If wrap panics, s is aborted before the panic goes on.
func Wrap(s Sink, wrap func(io.Writer) io.Writer) Sink {
	if wrap == nil {
		return s
	}
	done := false
	defer func() {
		if !done {
			s.Abort()
		}
	}()
	w := wrapped{wrap(s), s}
	done = true
	return w
}

// wrapped is a Sink whose writes go through another writer.
type wrapped struct {
	io.Writer
	s Sink
}

func (w wrapped) Commit() error { return w.s.Commit() }
func (w wrapped) Abort() error  { return w.s.Abort() }

// File is the Sink of [Create]: a hidden temporary file, renamed to its
// final path on Commit.
type File struct {
	f         *os.File
	tmp, path string
	expires   func() time.Time // the expiry to record on Commit; nil for none
}

// Path returns the absolute path the file has once committed.
func (t *File) Path() string { return t.path }

func (t *File) Write(p []byte) (int, error) { return t.f.Write(p) }

// Create starts the file of operation in dir (made absolute; [os.TempDir]
// if empty; made by [PrepareDir]), named [NewName](prefix, operation, now,
// random), as package jsonl's Create says: its temporary file [TempName],
// created exclusively with mode 0600 whatever the umask, is locked until
// Commit or Abort. Create draws a new name, up to 8 times, should either
// name exist, or a janitor remove the new temporary file before it is
// locked. When expires is not nil, Commit records the expiry it returns.
// Create returns an error wrapping [ErrInvalidPrefix] or [ErrUnsafeDir],
// and the *fs.PathError of a directory or file it could not create.
func Create(dir, prefix, operation string, now time.Time, random bool, expires func() time.Time) (*File, error) {
	if err := ValidatePrefix(prefix); err != nil {
		return nil, err
	}
	dir = cmp.Or(dir, os.TempDir())
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("jsonl: directory %q: %w", dir, err)
	}
	if err := PrepareDir(abs); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		name, err := NewName(prefix, operation, now, random)
		if err != nil {
			return nil, err
		}
		f, err := createTemp(abs, name, expires)
		if r, ok := err.(retry); ok {
			if attempt < createAttempts {
				continue
			}
			err = r.error
		}
		return f, err
	}
}

// NewName returns a new name of an offloaded file, [Name](prefix,
// operation, id) with a new ULID of time now; with random, it adds a random
// part: {prefix}-{operation}-{ulid}-{random}.jsonl, where random is 128 bits
// from crypto/rand in 32 lower-case hex digits, so that the name is a
// handle that cannot be guessed from another (the ULIDs of one process
// within a millisecond are consecutive).
func NewName(prefix, operation string, now time.Time, random bool) (string, error) {
	id, err := newID(ulid.Timestamp(now))
	if err != nil {
		return "", fmt.Errorf("jsonl: file id for time %v: %w", now, err)
	}
	name := Name(prefix, operation, id)
	if random {
		var b [randomBytes]byte
		rand.Read(b[:]) // never fails
		name = strings.TrimSuffix(name, ext) + "-" + fmt.Sprintf("%x", b[:]) + ext
	}
	return name, nil
}

// retry is the error of a temporary file that could not be made under its
// name, but could under another.
type retry struct{ error }

// createTemp creates, exclusively, and locks the temporary file of the
// file named name in dir.
func createTemp(dir, name string, expires func() time.Time) (*File, error) {
	t := &File{path: filepath.Join(dir, name), tmp: filepath.Join(dir, TempName(name)), expires: expires}
	// Rename replaces an existing file: the final name must be free too.
	if _, err := os.Lstat(t.path); err == nil {
		return nil, retry{fmt.Errorf("jsonl: %w", &fs.PathError{Op: "create", Path: t.path, Err: fs.ErrExist})}
	}
	f, err := os.OpenFile(t.tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil, retry{fmt.Errorf("jsonl: %w", err)}
	}
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	t.f = f
	if afterCreate != nil {
		afterCreate(t.tmp)
	}
	// The lock waits for a janitor that holds it (only to remove the file).
	// A janitor tells a live Writer from a leftover by the lock alone: one
	// that found the file unlocked in between has removed it. A file system
	// without locks leaves the file unlocked, which is no reason to fail: a
	// janitor that cannot lock it either keeps it for a long grace period.
	var removed bool
	var fi fs.FileInfo // the file's, once locked
	if Locks {
		if err = Lock(f, true); err == nil || errors.Is(err, ErrNoLock) {
			fi, removed, err = Unlinked(f)
		}
	}
	if removed && err == nil {
		f.Close()
		return nil, retry{fmt.Errorf("jsonl: %w", &fs.PathError{Op: "lock", Path: t.tmp, Err: fs.ErrNotExist})}
	}
	if err == nil && (fi == nil || fi.Mode() != fileMode) {
		// OpenFile's mode is reduced by the umask: set it exactly, unless
		// the file's mode, as Unlinked found it, is already that.
		err = f.Chmod(fileMode)
	}
	if err != nil {
		t.Abort()
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	return t, nil
}

// Commit records the expiry on the flushed temporary file, then closes it
// and renames it, or removes it when either fails. Where Writers lock their
// files, the rename comes first: the file is locked until it has its final
// name, which a janitor never opens. After a rename, a failed close (a
// deferred write error) removes the final file: it may be incomplete.
// Nothing is done to the file by its path after the rename: in a folder
// that another user could write to, the name could lead elsewhere by then.
func (t *File) Commit() error {
	if t.expires != nil {
		// Best effort, as a file system without modes may refuse: a file
		// without the mark is judged by the time of its name.
		RecordExpiry(t.f, t.expires())
	}
	if !Locks {
		err := t.f.Close()
		if err == nil {
			err = os.Rename(t.tmp, t.path)
		}
		if err != nil {
			return errors.Join(err, t.remove())
		}
		return nil
	}
	if err := os.Rename(t.tmp, t.path); err != nil {
		return errors.Join(err, t.Abort())
	}
	err := t.f.Close()
	if err != nil {
		os.Remove(t.path)
	}
	return err
}

// Abort removes and closes the temporary file. Where Writers lock their
// files, the file is removed before it is closed, so that it stays locked
// until it is gone.
func (t *File) Abort() error {
	if !Locks {
		t.f.Close() // error irrelevant: the file is being removed
	}
	err := t.remove()
	if Locks {
		t.f.Close()
	}
	return err
}

// remove removes the temporary file, if it is still there.
func (t *File) remove() error {
	if err := os.Remove(t.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// afterCreate, if not nil, is called with the temporary file's path between
// its creation and its lock. Tests set it to act as a janitor could.
var afterCreate func(tmp string)

// newID returns a new ULID for the time ms (Unix milliseconds), monotonic
// within a millisecond in this process, or from crypto/rand should the
// monotonic entropy overflow. A variable, so that tests can force name
// collisions.
var newID = func(ms uint64) (ulid.ULID, error) {
	id, err := ulid.New(ms, ulid.DefaultEntropy())
	if errors.Is(err, ulid.ErrMonotonicOverflow) {
		return ulid.New(ms, rand.Reader)
	}
	return id, err
}

// PrepareDir checks that the absolute folder dir is safe ([CheckDir]) and
// makes what is missing of it; the folder is then checked whole, with what
// another user may have made of it meanwhile.
func PrepareDir(dir string) error {
	whole, err := checkDir(dir)
	if err != nil || whole {
		return err
	}
	if err := mkdirAll(dir); err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	return CheckDir(dir)
}

// mkdirAll is os.MkdirAll with mode 0700 applied exactly, whatever the
// umask, to the directories it creates; those that exist are left alone.
// The folders above dir that exist must be safe (see [CheckDir]), so that
// nobody else can replace a folder between its making and its chmod.
func mkdirAll(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil // a non-directory fails later, when the file is opened
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirAll(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, dirMode); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil // made concurrently by someone else: not ours
		}
		return err
	}
	return os.Chmod(dir, dirMode)
}
