// Command api-events is the Lambda of the api-events route group (shared/api.Groups)
// behind API Gateway. It only wires; the service lives in shared/.
package main

import "github.com/prospectdata/svc/shared/app/onaws"

func main() { onaws.Main("api-events") }
