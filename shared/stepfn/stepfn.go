// Package stepfn runs pipelines on AWS Step Functions: it starts the
// generic pipeline state machine's execution of a pipeline and hands
// waiting executions their task token back (pipelines.Executor).
package stepfn

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"
)

// API is the part of the Step Functions client the executor calls.
type API interface {
	StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
	SendTaskSuccess(ctx context.Context, in *sfn.SendTaskSuccessInput, opts ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error)
}

// Executor runs pipelines on one state machine.
type Executor struct {
	Client       API
	StateMachine string // its ARN
}

// Start starts the pipeline's first execution, named after it, so that a
// retried creation cannot start a second one (Step Functions refuses an
// execution name already used with another input, and returns the
// running one for the same input).
func (e *Executor) Start(ctx context.Context, pipelineID string, input []byte) error {
	_, err := e.Client.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(e.StateMachine),
		Name:            aws.String(pipelineID),
		Input:           aws.String(string(input)),
	})
	if err != nil {
		return fmt.Errorf("start execution of pipeline %s: %w", pipelineID, err)
	}
	return nil
}

// Resume completes the Await task of token. A token that is no longer
// waited on (the task timed out and the execution advanced, or it ended)
// is not an error: the execution already moved on.
func (e *Executor) Resume(ctx context.Context, token string) error {
	_, err := e.Client.SendTaskSuccess(ctx, &sfn.SendTaskSuccessInput{TaskToken: aws.String(token), Output: aws.String("{}")})
	var gone *types.TaskDoesNotExist
	var timedOut *types.TaskTimedOut
	if errors.As(err, &gone) || errors.As(err, &timedOut) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("resume pipeline execution: %w", err)
	}
	return nil
}
