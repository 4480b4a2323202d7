//go:build !unix

package store

// openFlags are none where O_NOFOLLOW and O_NONBLOCK do not exist; os.Root
// still keeps every open inside the folder.
const openFlags = 0
