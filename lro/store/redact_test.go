package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/zircote/lro-go/lro/store"
)

// TestOpenUnparsedPassword: a bucket URL whose password holds a character
// that makes it no URL (an unescaped '"', tab, '#', '/', '?', '%', space or
// '[') fails without any part of the password in the error: the opener's
// error quotes the URL, or the part of it it could parse, in a form that
// is not the URL as given.
func TestOpenUnparsedPassword(t *testing.T) {
	for _, c := range []string{`"`, "\t", "#", "/", "?", "%", " ", "["} {
		loc := "s3://key:Qx7" + c + "Zk9@bucket?region=us-east-1"
		_, err := store.Open(context.Background(), loc, nil)
		if err == nil || strings.Contains(err.Error(), "Qx7") || strings.Contains(err.Error(), "Zk") {
			t.Errorf("Open(%q) = %v; want an error without the password", loc, err)
		}
	}
}
