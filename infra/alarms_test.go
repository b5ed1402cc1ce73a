package main

import (
	"reflect"
	"slices"
	"testing"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
)

// TestAlarms: every alarm publishes to the alarm topic, which mails the
// alarmEmail address; each function has its errors and throttles alarms,
// the HTTP API its 5xx alarm.
func TestAlarms(t *testing.T) {
	const email = "ops@example.org"
	s, _, tj := synth(t, map[string]any{ctxAlarmEmail: email})
	topic := logicalID(s, s.AlarmTopic)
	subs := ofType(tj, "AWS::SNS::Subscription")
	if len(subs) != 1 {
		t.Fatalf("%d subscriptions, want the alarmEmail one", len(subs))
	}
	for _, sub := range subs {
		p := props(sub)
		if p["Protocol"] != "email" || p["Endpoint"] != email || !reflect.DeepEqual(p["TopicArn"], map[string]any{"Ref": topic}) {
			t.Errorf("subscription %v", p)
		}
	}
	type key struct{ metric, dim string }
	seen := map[key]int{}
	for id, a := range ofType(tj, "AWS::CloudWatch::Alarm") {
		p := props(a)
		if !reflect.DeepEqual(p["AlarmActions"], []any{map[string]any{"Ref": topic}}) {
			t.Errorf("alarm %s: actions %v, want the alarm topic", id, p["AlarmActions"])
		}
		if p["TreatMissingData"] != "notBreaching" || p["EvaluationPeriods"] != 1.0 || p["Period"] != 300.0 {
			t.Errorf("alarm %s: %v", id, p)
		}
		for _, d := range refs(p["Dimensions"]) {
			seen[key{p["Namespace"].(string) + " " + p["MetricName"].(string), d}]++
		}
	}
	for name, fn := range s.Functions {
		for _, m := range []string{"Errors", "Throttles"} {
			if n := seen[key{"AWS/Lambda " + m, logicalID(s, fn)}]; n != 1 {
				t.Errorf("%s: %d %s alarms, want 1", name, n, m)
			}
		}
	}
	if n := seen[key{"AWS/ApiGateway 5xx", logicalID(s, s.API)}]; n != 1 {
		t.Errorf("%d API 5xx alarms, want 1", n)
	}
	if len(s.Functions) != len(api.Groups())+len(app.Workers()) || !slices.Contains(serviceSpec().WorkQueues, app.QueueFinalize) {
		t.Errorf("functions %d; work queues %v", len(s.Functions), serviceSpec().WorkQueues)
	}
}
