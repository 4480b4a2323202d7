package redact_test

import (
	"fmt"

	"github.com/zircote/lro-go/internal/redact"
)

func Example() {
	r, err := redact.New(nil)
	if err != nil {
		panic(err)
	}
	n := redact.Counts{}
	key := "AKIA" + "IOSFODNN7EXAMPLE"
	fmt.Println(r.String("export AWS_ACCESS_KEY_ID="+key, n))
	out, _ := r.JSON([]byte(`{"url": "postgres://app:hunter2@db:5432/app", "id": 7}`), n)
	fmt.Println(string(out))
	fmt.Println(n)
	// Output:
	// export AWS_ACCESS_KEY_ID=[REDACTED:aws-access-token]
	// {"url": "postgres://app:[REDACTED:url-password]@db:5432/app", "id": 7}
	// map[aws-access-token:1 url-password:1]
}
