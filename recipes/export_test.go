package recipes

// ErrUnknownDetail is wrapped by the error of ParseDetail for an unknown
// name, for the tests.
var ErrUnknownDetail = errUnknownDetail
