//go:build unix && !aix

package disk

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// RecordExpiry sets the expiry of the complete file f to t: its modification
// time, then its mode to [ExpiryMode]. It acts on the open file, never on a path,
// so that it is done before the file gets its name and nothing at that name
// can be changed instead. Nothing must be written to f afterwards.
func RecordExpiry(f *os.File, t time.Time) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	tv := unix.NsecToTimeval(t.UnixNano())
	var errTimes error
	if err := conn.Control(func(fd uintptr) {
		errTimes = unix.Futimes(int(fd), []unix.Timeval{tv, tv})
	}); err != nil {
		return err
	}
	if errTimes != nil {
		return &os.PathError{Op: "futimes", Path: f.Name(), Err: errTimes}
	}
	return f.Chmod(ExpiryMode)
}
