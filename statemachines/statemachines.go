// Package statemachines holds the service's Amazon States Language
// definitions, embedded so that the CDK app deploys and the tests run the
// same bytes that `make asl-check` validates.
package statemachines

import _ "embed"

// Pipeline drives one pipeline through the pipeline-step Lambda
// (shared/pipelines step.go). ${PipelineStepFunction} stands for the
// Lambda's ARN.
//
//go:embed pipeline.asl.json
var Pipeline []byte

// PipelineStepFunction is the substitution the CDK app fills in.
const PipelineStepFunction = "PipelineStepFunction"
