package store

// WaitDiscards waits until the removals of failed uploads have ended,
// without stopping them as Close does.
func WaitDiscards(s *Store) { s.wg.Wait() }
