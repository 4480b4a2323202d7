package cleanup

// SetBeforeRemove makes j call f with the name of each expired regular file
// between its lstat and its removal, so that a test can change the folder at
// that moment. Call it before the first sweep.
func SetBeforeRemove(j *Janitor, f func(name string)) { j.beforeRemove = f }
