// Command worker-tasks is the Lambda of the scrape task queue (app.Workers):
// a job's start, its tile tasks and its finalizer. It only wires.
package main

import "github.com/prospectdata/svc/shared/app/onaws"

func main() { onaws.WorkerMain("worker-tasks") }
