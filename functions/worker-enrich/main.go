// Command worker-enrich is the Lambda of the enrichment queue (app.Workers):
// the batches of item jobs, each a module over a few websites. It only
// wires.
package main

import "github.com/prospectdata/svc/shared/app/onaws"

func main() { onaws.WorkerMain("worker-enrich") }
