//go:build race

package extract

// raceEnabled: the race detector maps its shadow memory at start, as data
// that becomes resident only as the heap grows.
const raceEnabled = true
