package cleanup

import (
	"time"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
)

// SetBeforeRemove makes j call f with the name of each expired regular file
// between its lstat and its removal, so that a test can change the folder at
// that moment. Call it before the first sweep.
func SetBeforeRemove(j *Janitor, f func(name string)) { j.beforeRemove = f }

// The default of Options.TTL, and the margin of a bucket's sweep, which
// users find documented on the fields.
const (
	DefaultTTL = spec.DefaultTTL
	SkewMargin = disk.SkewMargin
)

// Counts are the counts of a Result, its unexported ones included:
// TempRemoved is how many of Expired were temporary files, InUse how many
// of Kept were temporary files whose Writer is alive, Vanished how
// many expired files another sweep removed first.
type Counts struct {
	Scanned, Expired, TempRemoved, Kept, InUse, Skipped, Vanished int
	NextExpiry                                                    time.Time
}

// CountsOf returns the counts of r.
func CountsOf(r Result) Counts {
	return Counts{
		Scanned: r.scanned, Expired: r.Expired, TempRemoved: r.temp, Kept: r.Kept,
		InUse: r.inUse, Skipped: r.skipped, Vanished: r.vanished, NextExpiry: r.NextExpiry,
	}
}
