package main

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/statemachines"
)

// isPipelinesARN tells whether v is the pipeline state machine's ARN as
// the stack builds it from the machine's fixed name.
func isPipelinesARN(v any) bool {
	j, ok := v.(map[string]any)["Fn::Join"].([]any)
	if !ok || len(j) != 2 {
		return false
	}
	parts, _ := j[1].([]any)
	if len(parts) == 0 {
		return false
	}
	last, _ := parts[len(parts)-1].(string)
	b, _ := json.Marshal(parts)
	return strings.HasSuffix(last, ":stateMachine:"+pipelinesName("Svc")) && strings.Contains(string(b), `":states:"`)
}

// TestPipelines: one Standard state machine, named as the functions'
// ARN says, whose definition is statemachines/pipeline.asl.json with the
// pipeline-step Lambda in every Lambda task; its role may invoke that
// Lambda and start its own next execution, nothing else.
func TestPipelines(t *testing.T) {
	s, _, tj := synth(t, nil)
	machines := ofType(tj, "AWS::StepFunctions::StateMachine")
	if len(machines) != 1 {
		t.Fatalf("%d state machines, want 1", len(machines))
	}
	id := logicalID(s, s.Pipelines)
	sm := props(machines[id])
	if sm["StateMachineType"] != "STANDARD" || sm["StateMachineName"] != pipelinesName("Svc") {
		t.Errorf("type %v, name %v", sm["StateMachineType"], sm["StateMachineName"])
	}
	stepID := logicalID(s, s.Functions["pipeline-step"])

	// The deployed definition is the file's; CloudFormation puts the
	// Lambda's ARN in (DefinitionSubstitutions).
	subs, _ := sm["DefinitionSubstitutions"].(map[string]any)
	if ga, _ := subs[statemachines.PipelineStepFunction].(map[string]any)["Fn::GetAtt"].([]any); len(subs) != 1 ||
		len(ga) != 2 || ga[0] != stepID || ga[1] != "Arn" {
		t.Errorf("DefinitionSubstitutions %v, want %s: the pipeline-step Lambda's ARN", subs, statemachines.PipelineStepFunction)
	}
	body, _ := sm["DefinitionString"].(string)
	var got, want map[string]any
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatalf("deployed definition: %v", err)
	}
	if err := json.Unmarshal(statemachines.Pipeline, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("deployed definition differs from statemachines/pipeline.asl.json:\n%s", body)
	}
	// The execution's timeout is in the definition itself: the CDK's
	// timeout property does not reach a definition given as a string.
	if got["TimeoutSeconds"] != pipelinesTimeout.Seconds() {
		t.Errorf("TimeoutSeconds %v, want %v", got["TimeoutSeconds"], pipelinesTimeout.Seconds())
	}
	if err := checkTimeout([]byte(`{"StartAt":"A"}`), pipelinesTimeout); err == nil {
		t.Error("a definition without TimeoutSeconds passes the check")
	}
	if err := checkTimeout([]byte(`{"TimeoutSeconds":60}`), pipelinesTimeout); err == nil {
		t.Error("a definition with another TimeoutSeconds passes the check")
	}
	lambdaTasks := 0
	for name, st := range got["States"].(map[string]any) {
		st := st.(map[string]any)
		res, _ := st["Resource"].(string)
		if strings.HasPrefix(res, "arn:aws:states:::lambda:invoke") {
			lambdaTasks++
			if fn := st["Parameters"].(map[string]any)["FunctionName"]; fn != "${"+statemachines.PipelineStepFunction+"}" {
				t.Errorf("state %s invokes %v", name, fn)
			}
		}
	}
	if lambdaTasks != 3 {
		t.Errorf("%d Lambda tasks, want 3 (advance, await, abandon)", lambdaTasks)
	}

	roleID := refs(sm["RoleArn"])[0]
	role := props(resources(tj)[roleID].(map[string]any))
	if b, _ := json.Marshal(role["AssumeRolePolicyDocument"]); !strings.Contains(string(b), "states.amazonaws.com") {
		t.Errorf("role assumed by %s", b)
	}
	var actions []string
	for _, pol := range ofType(tj, "AWS::IAM::Policy") {
		if !slices.Contains(refs(props(pol)["Roles"]), roleID) {
			continue
		}
		for _, st := range props(pol)["PolicyDocument"].(map[string]any)["Statement"].([]any) {
			st := st.(map[string]any)
			for _, a := range strs(st["Action"]) {
				actions = append(actions, a)
				switch a {
				case "lambda:InvokeFunction":
					if !slices.Contains(refs(st["Resource"]), stepID) {
						t.Errorf("%s on %v", a, st["Resource"])
					}
				case "states:StartExecution":
					if !isPipelinesARN(st["Resource"]) {
						t.Errorf("%s on %v", a, st["Resource"])
					}
				default:
					t.Errorf("unexpected action %s on %v", a, st["Resource"])
				}
			}
		}
	}
	if !slices.Contains(actions, "lambda:InvokeFunction") || !slices.Contains(actions, "states:StartExecution") {
		t.Errorf("state machine role actions %v", actions)
	}
}
