// Command worker-sources is the Lambda of the sources queue (app.Workers):
// the single-run jobs (viewport tests, delivery checks, sirene searches).
// It only wires.
package main

import "github.com/prospectdata/svc/shared/app/onaws"

func main() { onaws.WorkerMain("worker-sources") }
