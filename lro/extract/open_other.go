//go:build !unix

package extract

const openFlags = 0
