// Package spec holds the constants of the Large Result Offloading
// specification that more than one package uses, so that each has one
// place: the defaults, the header's type and schema version, the content
// type of an offloaded file, the number of recipes and their parameters'
// names.
package spec

import "time"

// The specification's defaults.
const (
	DefaultPrefix    = "atlatl"  // of a file name
	DefaultThreshold = 1600      // DEFAULT_OFFLOAD_THRESHOLD_TOKENS
	DefaultTTL       = time.Hour // how long an offloaded file lives
	DefaultInterval  = time.Hour // between two sweeps of a janitor
)

// The header line of an offloaded file.
const (
	HeaderType    = "lro_header" // its "type"
	SchemaVersion = "1.0"        // its "schema_version"
)

// ContentType is the content type of an offloaded file: of the objects a
// store writes to a bucket, and of the resources that serve them.
const ContentType = "application/jsonl"
