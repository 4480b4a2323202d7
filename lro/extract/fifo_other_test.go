//go:build !unix

package extract_test

import "os"

// mkfifo makes a plain file where there are no FIFOs: the attack then tests
// a regular file named like an offloaded file with an invalid header.
func mkfifo(path string) error { return os.WriteFile(path, []byte("not a header\n"), 0o600) }

// fifoRefusal is what the tools say about the stand-in of mkfifo.
const fifoRefusal = "not a valid header"
