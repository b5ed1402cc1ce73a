// Command pipeline-step is the Lambda the pipeline state machine
// (statemachines/pipeline.asl.json) invokes for each of its tasks:
// advance a pipeline, await its next signal, abandon it. It only wires.
package main

import "github.com/prospectdata/svc/shared/app/onaws"

func main() { onaws.PipelineStepMain() }
