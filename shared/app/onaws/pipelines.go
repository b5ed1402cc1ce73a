package onaws

import (
	"context"
	"errors"
	"os"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"github.com/prospectdata/svc/shared/pipelines"
	"github.com/prospectdata/svc/shared/stepfn"
)

// StateMachineEnv names the pipeline state machine's ARN in the
// environment of every function that creates or ends jobs: with it set,
// pipelines run on Step Functions.
const StateMachineEnv = "SVC_PIPELINE_STATE_MACHINE"

// executor is the Step Functions executor of the state machine the stack
// named, nil without one (a function that never touches pipelines).
func executor(getenv func(string) string, awsCfg aws.Config) pipelines.Executor {
	arn := getenv(StateMachineEnv)
	if arn == "" {
		return nil
	}
	return &stepfn.Executor{Client: sfn.NewFromConfig(awsCfg), StateMachine: arn}
}

// StepHandler is the Lambda handler of the pipeline-step function.
type StepHandler func(context.Context, pipelines.StepEvent) (pipelines.StepEvent, error)

// PipelineStepHandler builds the handler of the pipeline-step Lambda,
// which the pipeline state machine's tasks invoke (lambda:invoke, the
// payload as the event): advance, await, abandon. An error fails the
// task, which the state machine retries.
func PipelineStepHandler(ctx context.Context, getenv func(string) string, opts ...Option) (StepHandler, error) {
	if getenv(StateMachineEnv) == "" {
		return nil, errors.New("pipeline-step without its state machine: " + StateMachineEnv + " is required")
	}
	a, _, err := buildWorker(ctx, "pipeline-step", getenv, opts)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, ev pipelines.StepEvent) (pipelines.StepEvent, error) {
		return a.Pipelines.HandleStep(ctx, ev)
	}, nil
}

// PipelineStepMain is the whole main of the pipeline-step Lambda.
func PipelineStepMain() {
	h, err := PipelineStepHandler(context.Background(), os.Getenv)
	start("pipeline-step", h, err)
}
