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

// TestOpenEndpointPassword: the password of a URL given as a parameter of
// the bucket URL (s3blob's endpoint) is not in Open's error either.
func TestOpenEndpointPassword(t *testing.T) {
	for _, loc := range []string{
		"s3://b?endpoint=http://u:Qx7Zk9@127.0.0.1:1&no_such_parameter=1",
		"s3://b?endpoint=http%3A%2F%2Fu%3AQx7Zk9%40127.0.0.1%3A1&no_such_parameter=1",
	} {
		_, err := store.Open(context.Background(), loc, nil)
		if err == nil || strings.Contains(err.Error(), "Qx7Zk9") || !strings.Contains(err.Error(), "no_such_parameter") {
			t.Errorf("Open(%q) = %v; want an error naming the parameter, without the password", loc, err)
		}
	}
}
