// Command api-auth is the Lambda of the api-auth route group (shared/api.Groups)
// behind API Gateway. It only wires; the service lives in shared/.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/prospectdata/svc/shared/app/onaws"
)

func main() {
	h, err := onaws.Handler(context.Background(), "api-auth", os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "api-auth:", err)
		os.Exit(1)
	}
	lambda.Start(h)
}
