// Command job-finalizer is the Lambda of the finalize queue (app.Workers):
// the merge of a job's parts into its CSV and the JSON and XLSX made from
// it. It only wires.
package main

import "github.com/prospectdata/svc/shared/app/onaws"

func main() { onaws.WorkerMain("job-finalizer") }
