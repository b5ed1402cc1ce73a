// Command api-jobs is the Lambda of the api-jobs route group (shared/api.Groups)
// behind API Gateway. It only wires; the service lives in shared/.
package main

import "github.com/prospectdata/svc/shared/app/onaws"

func main() { onaws.Main("api-jobs") }
