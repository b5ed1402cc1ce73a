package main

import (
	"archive/zip"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
)

// These tests synthesize the stack through the jsii runtime, so they need
// node on PATH. A synth takes seconds: TestStack builds the template once
// and checks it in subtests.

// placeholderAssets writes a zip per function (route groups and workers)
// and the console's files into a temp dir: synth only stages and hashes the
// artifacts, so their content is irrelevant but for the console's document,
// a template the stack renders.
func placeholderAssets(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, consoleAsset), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"index.html": `<!doctype html><meta name="svc-tiles" content="{{.Tiles}}"><script type="module" src="/app.js"></script>`,
		"app.js":     "console.log('placeholder');",
	} {
		if err := os.WriteFile(filepath.Join(dir, consoleAsset, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	for _, g := range api.Groups() {
		names = append(names, g.Name)
	}
	for _, w := range app.Workers() {
		names = append(names, w.Name)
	}
	names = append(names, chromiumLayerAsset)
	for _, name := range names {
		f, err := os.Create(filepath.Join(dir, name+".zip"))
		if err != nil {
			t.Fatal(err)
		}
		z := zip.NewWriter(f)
		w, err := z.Create("bootstrap")
		if err == nil {
			_, err = fmt.Fprintf(w, "placeholder for %s\n", name)
		}
		if err == nil {
			err = z.Close()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// synth builds the stack with the context given (plus assetDir) and returns
// it with its template.
func synth(t *testing.T, ctx map[string]any) (*Stack, assertions.Template, map[string]any) {
	t.Helper()
	full := map[string]any{ctxAssetDir: placeholderAssets(t)}
	maps.Copy(full, ctx)
	a := awscdk.NewApp(&awscdk.AppProps{Context: &full, Outdir: jsii.String(t.TempDir())})
	s, err := NewStack(a, "Svc", nil)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := assertions.Template_FromStack(s.Stack, nil)
	return s, tmpl, *tmpl.ToJSON()
}

// assert runs an assertions-package check, which panics on failure (a
// JavaScript exception through jsii), as a test error.
func assert(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: %v", what, r)
		}
	}()
	f()
}

// only is a template holding one resource of tmpl, so that the assertions
// matchers can be aimed at it.
func only(t *testing.T, tmpl map[string]any, id string) assertions.Template {
	t.Helper()
	r, ok := resources(tmpl)[id]
	if !ok {
		t.Fatalf("no resource %s", id)
	}
	return assertions.Template_FromJSON(&map[string]any{"Resources": map[string]any{id: r}}, nil)
}

func resources(tmpl map[string]any) map[string]any {
	r, _ := tmpl["Resources"].(map[string]any)
	return r
}

// ofType returns the resources of a type by logical id.
func ofType(tmpl map[string]any, typ string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for id, r := range resources(tmpl) {
		if m, ok := r.(map[string]any); ok && m["Type"] == typ {
			out[id] = m
		}
	}
	return out
}

func props(r map[string]any) map[string]any {
	p, _ := r["Properties"].(map[string]any)
	return p
}

func logicalID(s *Stack, c constructs.IConstruct) string {
	el, ok := c.Node().DefaultChild().(awscdk.CfnElement)
	if !ok {
		panic(fmt.Sprintf("%s has no CloudFormation resource", *c.Node().Path()))
	}
	return *s.GetLogicalId(el)
}

// refs lists the logical ids an intrinsic value points to (Ref, Fn::GetAtt),
// however deep in Fn::Join it sits.
func refs(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["Ref"].(string); ok && !strings.HasPrefix(r, "AWS::") {
			out = append(out, r)
		}
		if ga, ok := v["Fn::GetAtt"].([]any); ok && len(ga) > 0 {
			if id, ok := ga[0].(string); ok {
				out = append(out, id)
			}
		}
		for k, e := range v {
			if k != "Ref" && k != "Fn::GetAtt" {
				out = append(out, refs(e)...)
			}
		}
	case []any:
		for _, e := range v {
			out = append(out, refs(e)...)
		}
	}
	return out
}

func strs(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

func TestStack(t *testing.T) {
	const sesARN = "arn:aws:ses:eu-west-3:123456789012:identity/example.org"
	s, tmpl, tj := synth(t, map[string]any{ctxSESIdentityARN: sesARN})
	groups, schemas, queues, workers := api.Groups(), app.Schemas(), app.Queues(), app.Workers()
	sources := 0 // event source mappings: a worker's queue and its stream
	scheduled, streams := 0, 0
	for _, w := range workers {
		if w.Every > 0 {
			scheduled++
		}
		if w.Queue != "" {
			sources++
		}
		if w.Stream != "" {
			sources++
			streams++
		}
	}
	sv := serviceSpec()
	dlqs := sv.deadLetterQueues()
	if !dlqs[app.QueueStreamDLQ] || !dlqs[app.QueueDeliveriesDLQ] {
		t.Fatalf("dead-letter queues %v: the stream's and the deliveries' are apart", dlqs)
	}
	tableIDs := map[string]string{} // logical id -> schema name
	for name, tb := range s.Tables {
		tableIDs[logicalID(s, tb)] = name
	}
	fnIDs := map[string]string{} // logical id -> group name
	for name, fn := range s.Functions {
		fnIDs[logicalID(s, fn)] = name
	}
	fnID := func(group string) string { return logicalID(s, s.Functions[group]) }

	t.Run("counts", func(t *testing.T) {
		routes := 0
		for _, g := range groups {
			routes += 2 * len(g.Prefixes)
			if g.Default {
				routes++
			}
		}
		for _, c := range []struct {
			typ  string
			want int
		}{
			{"AWS::DynamoDB::Table", len(schemas)},
			// No custom-resource Lambda sneaks in but the one that copies
			// the console's files (CDK's BucketDeployment).
			{"AWS::Lambda::Function", len(groups) + len(workers) + 1},
			{"AWS::SQS::Queue", len(queues)},
			{"AWS::S3::Bucket", 2}, // the files, the console's
			{"AWS::CloudFront::Distribution", 1},
			{"Custom::CDKBucketDeployment", 1},
			{"AWS::SecretsManager::Secret", 2}, // sessions, data-source keys (no Places key under sim)
			{"AWS::ApiGatewayV2::Api", 1},
			{"AWS::ApiGatewayV2::Stage", 1},
			{"AWS::ApiGatewayV2::Integration", len(groups)},
			{"AWS::ApiGatewayV2::Route", routes},
			// API Gateway's (one per function, and the $default route's),
			// EventBridge's for scheduled workers.
			{"AWS::Lambda::Permission", len(groups) + 1 + scheduled},
			{"AWS::Lambda::EventInvokeConfig", scheduled},
			{"AWS::Logs::LogGroup", len(groups) + len(workers)},
			// + the state machine's and the console files' copier's.
			{"AWS::IAM::Role", len(groups) + len(workers) + 2},
			{"AWS::IAM::Policy", len(groups) + len(workers) + 2},
			{"AWS::StepFunctions::StateMachine", 1}, // one generic, never one per pipeline
			// Errors and throttles per function, one per dead-letter
			// queue, oldest message per work queue, iterator age per
			// stream, failed executions, API 5xx.
			{"AWS::CloudWatch::Alarm", 2*(len(groups)+len(workers)) + len(dlqs) + len(sv.WorkQueues) + streams + 2},
			{"AWS::SNS::Topic", 1},
			{"AWS::SNS::Subscription", 0}, // no alarmEmail
			{"AWS::Lambda::EventSourceMapping", sources},
		} {
			assert(t, c.typ, func() { tmpl.ResourceCountIs(jsii.String(c.typ), jsii.Number(c.want)) })
		}
	})

	t.Run("tables", func(t *testing.T) {
		if len(s.Tables) != len(schemas) {
			t.Fatalf("%d tables for %d schemas", len(s.Tables), len(schemas))
		}
		assert(t, "every table", func() {
			tmpl.AllResourcesProperties(jsii.String("AWS::DynamoDB::Table"), map[string]any{
				"BillingMode":                      "PAY_PER_REQUEST",
				"PointInTimeRecoverySpecification": map[string]any{"PointInTimeRecoveryEnabled": true},
			})
			tmpl.AllResources(jsii.String("AWS::DynamoDB::Table"), map[string]any{
				"DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain",
			})
		})
		for _, sc := range schemas {
			t.Run(sc.Name, func(t *testing.T) {
				key := func(pk, sk string) []any {
					k := []any{map[string]any{"AttributeName": pk, "KeyType": "HASH"}}
					if sk != "" {
						k = append(k, map[string]any{"AttributeName": sk, "KeyType": "RANGE"})
					}
					return k
				}
				attrs := map[string]bool{sc.PK: true, sc.SK: true}
				want := map[string]any{"KeySchema": key(sc.PK, sc.SK)}
				var gsis []any
				for _, ix := range sc.Indexes {
					gsis = append(gsis, map[string]any{
						"IndexName":  ix.Name,
						"KeySchema":  key(ix.PK, ix.SK),
						"Projection": map[string]any{"ProjectionType": "ALL"},
					})
					attrs[ix.PK] = true
					if ix.SK != "" {
						attrs[ix.SK] = true
					}
				}
				want["GlobalSecondaryIndexes"] = assertions.Match_Absent()
				if len(gsis) > 0 {
					want["GlobalSecondaryIndexes"] = gsis
				}
				want["TimeToLiveSpecification"] = assertions.Match_Absent()
				if sc.TTL != "" {
					want["TimeToLiveSpecification"] = map[string]any{"AttributeName": sc.TTL, "Enabled": true}
				}
				want["StreamSpecification"] = assertions.Match_Absent()
				if sc.Stream {
					want["StreamSpecification"] = map[string]any{"StreamViewType": "NEW_AND_OLD_IMAGES"}
				}
				id := logicalID(s, s.Tables[sc.Name])
				assert(t, sc.Name, func() {
					only(t, tj, id).HasResourceProperties(jsii.String("AWS::DynamoDB::Table"), want)
				})
				// Every key attribute is declared a string, and nothing else is.
				var got []string
				for _, a := range props(resources(tj)[id].(map[string]any))["AttributeDefinitions"].([]any) {
					a := a.(map[string]any)
					if a["AttributeType"] != "S" {
						t.Errorf("attribute %v is %v, want S", a["AttributeName"], a["AttributeType"])
					}
					got = append(got, a["AttributeName"].(string))
				}
				if w := sorted(slices.Collect(maps.Keys(attrs))); !reflect.DeepEqual(sorted(got), w) {
					t.Errorf("attribute definitions %v, want %v", sorted(got), w)
				}
			})
		}
	})

	t.Run("queues", func(t *testing.T) {
		assert(t, "every queue", func() {
			tmpl.AllResourcesProperties(jsii.String("AWS::SQS::Queue"), map[string]any{"SqsManagedSseEnabled": true})
		})
		for _, q := range queues {
			t.Run(q.Name, func(t *testing.T) {
				want := map[string]any{
					"VisibilityTimeout": q.VisibilityTimeout.Seconds(),
					"RedrivePolicy":     assertions.Match_Absent(),
				}
				if q.DeadLetter != "" {
					want["RedrivePolicy"] = map[string]any{
						"deadLetterTargetArn": map[string]any{"Fn::GetAtt": []any{logicalID(s, s.Queues[q.DeadLetter]), "Arn"}},
						"maxReceiveCount":     q.MaxReceives,
					}
				}
				if dlqs[q.Name] {
					want["MessageRetentionPeriod"] = 14 * 24 * 3600
				}
				id := logicalID(s, s.Queues[q.Name])
				assert(t, q.Name, func() { only(t, tj, id).HasResourceProperties(jsii.String("AWS::SQS::Queue"), want) })

				// An alarm on the queue exactly when it is a dead-letter queue.
				alarm := map[string]any{
					"Namespace":          "AWS/SQS",
					"MetricName":         "ApproximateNumberOfMessagesVisible",
					"Dimensions":         []any{map[string]any{"Name": "QueueName", "Value": map[string]any{"Fn::GetAtt": []any{id, "QueueName"}}}},
					"Threshold":          1,
					"ComparisonOperator": "GreaterThanOrEqualToThreshold",
					"EvaluationPeriods":  1,
				}
				n := 0
				if dlqs[q.Name] {
					n = 1
				}
				assert(t, q.Name+" alarm", func() {
					tmpl.ResourcePropertiesCountIs(jsii.String("AWS::CloudWatch::Alarm"), alarm, jsii.Number(n))
				})
				// An age alarm on each work queue, in seconds.
				age := map[string]any{
					"Namespace":  "AWS/SQS",
					"MetricName": "ApproximateAgeOfOldestMessage",
					"Dimensions": []any{map[string]any{"Name": "QueueName", "Value": map[string]any{"Fn::GetAtt": []any{id, "QueueName"}}}},
					"Statistic":  "Maximum",
					"Threshold":  queueAgeAlarm.Seconds(),
				}
				n = 0
				if slices.Contains(sv.WorkQueues, q.Name) {
					n = 1
				}
				assert(t, q.Name+" age alarm", func() {
					tmpl.ResourcePropertiesCountIs(jsii.String("AWS::CloudWatch::Alarm"), age, jsii.Number(n))
				})
			})
		}
	})

	t.Run("bucket", func(t *testing.T) {
		assert(t, "bucket", func() {
			tmpl.HasResource(jsii.String("AWS::S3::Bucket"), map[string]any{
				"DeletionPolicy": "Retain", "UpdateReplacePolicy": "Retain",
				"Properties": map[string]any{
					"BucketEncryption": map[string]any{"ServerSideEncryptionConfiguration": []any{
						map[string]any{"ServerSideEncryptionByDefault": map[string]any{"SSEAlgorithm": "AES256"}},
					}},
					"PublicAccessBlockConfiguration": map[string]any{
						"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true,
					},
					"VersioningConfiguration": assertions.Match_Absent(),
					"LifecycleConfiguration": map[string]any{"Rules": []any{
						map[string]any{"Id": "expire-jobs", "Prefix": app.PrefixJobs, "ExpirationInDays": 31, "Status": "Enabled"},
						map[string]any{"Id": "expire-exports", "Prefix": app.PrefixExports, "ExpirationInDays": 1, "Status": "Enabled"},
						map[string]any{"Id": "abort-incomplete-uploads", "AbortIncompleteMultipartUpload": map[string]any{"DaysAfterInitiation": 1}, "Status": "Enabled"},
					}},
				},
			})
			// enforceSSL: a bucket policy denying insecure transport.
			tmpl.HasResourceProperties(jsii.String("AWS::S3::BucketPolicy"), map[string]any{
				"PolicyDocument": map[string]any{"Statement": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
					"Effect":    "Deny",
					"Condition": map[string]any{"Bool": map[string]any{"aws:SecureTransport": "false"}},
				})})},
			})
		})
		if jobsExpirationDays() != 31 {
			t.Errorf("jobs/ expire after %d days; the rule above expects 31 (OutputRetention changed: update it)", jobsExpirationDays())
		}
	})

	t.Run("secret", func(t *testing.T) {
		if s.PlacesSecret != nil {
			t.Error("a Places key secret under the sim provider")
		}
		assert(t, "session secret", func() {
			tmpl.HasResourceProperties(jsii.String("AWS::SecretsManager::Secret"), map[string]any{
				"GenerateSecretString": map[string]any{"PasswordLength": sessionSecretLength, "ExcludePunctuation": true},
			})
		})
		if sessionSecretLength < 32 {
			t.Errorf("session secret of %d characters; the service needs 32", sessionSecretLength)
		}
	})

	t.Run("functions", func(t *testing.T) {
		assert(t, "every function", func() {
			// arm64 but the browser workers (TestWorkers checks them); the
			// console files' copier is CDK's own (the console subtest).
			for id := range ofType(tj, "AWS::Lambda::Function") {
				if strings.HasPrefix(id, consoleCopier) {
					continue
				}
				only(t, tj, id).HasResourceProperties(jsii.String("AWS::Lambda::Function"), map[string]any{
					"Runtime": "provided.al2023",
					"Handler": "bootstrap",
				})
			}
			tmpl.AllResourcesProperties(jsii.String("AWS::Logs::LogGroup"), map[string]any{"RetentionInDays": 30})
		})
		for _, g := range groups {
			t.Run(g.Name, func(t *testing.T) {
				fn := resources(tj)[fnID(g.Name)].(map[string]any)
				wantMem := 256
				if g.MemoryMB > 0 {
					wantMem = g.MemoryMB
				}
				if mem := props(fn)["MemorySize"]; mem != float64(wantMem) {
					t.Errorf("memory %v MB, want %d", mem, wantMem)
				}
				if to := props(fn)["Timeout"]; to != float64(functionTimeoutS) {
					t.Errorf("timeout %v s, want %d", to, functionTimeoutS)
				}
				env := props(fn)["Environment"].(map[string]any)["Variables"].(map[string]any)
				// The secrets are ARNs in SVC_SECRETS (provider_test.go
				// checks them); the provider's settings go to what holds
				// jobs.
				want := []string{"SVC_BASE_URL", "SVC_MAIL_FROM", "SVC_INVITATION_CODES", "SVC_ADMIN_EMAILS", onaws.SecretsEnv,
					"SVC_DATA_SOURCES", "SVC_SMTP_PROBE"}
				if slices.Contains(g.Tables, "jobs") {
					want = append(want, envMapProvider, envMaxInFlight, envMaxPerSecond)
				}
				for _, tb := range g.Tables {
					want = append(want, tableEnv(tb))
					if got := env[tableEnv(tb)]; !reflect.DeepEqual(got, map[string]any{"Ref": logicalID(s, s.Tables[tb])}) {
						t.Errorf("%s = %v, want the physical name of table %s", tableEnv(tb), got, tb)
					}
				}
				for _, q := range g.SendsTo {
					want = append(want, queueEnv(q))
					if got := env[queueEnv(q)]; !reflect.DeepEqual(got, map[string]any{"Ref": logicalID(s, s.Queues[q])}) {
						t.Errorf("%s = %v, want the URL of queue %s", queueEnv(q), got, q)
					}
				}
				if g.Files {
					want = append(want, "SVC_BUCKET")
					if got := env["SVC_BUCKET"]; !reflect.DeepEqual(got, map[string]any{"Ref": logicalID(s, s.Bucket)}) {
						t.Errorf("SVC_BUCKET = %v, want the files bucket", got)
					}
				}
				if slices.Contains(g.Tables, "jobs") {
					want = append(want, onaws.StateMachineEnv)
					if got := env[onaws.StateMachineEnv]; !isPipelinesARN(got) {
						t.Errorf("%s = %v, want the pipeline state machine's ARN", onaws.StateMachineEnv, got)
					}
				}
				// Exactly these.
				if got := slices.Sorted(maps.Keys(env)); !reflect.DeepEqual(got, sorted(want)) {
					t.Errorf("environment %v, want %v", got, sorted(want))
				}
				wantBase := map[string]any{"Fn::Join": []any{"", []any{"https://", map[string]any{"Fn::GetAtt": []any{logicalID(s, s.Console), "DomainName"}}}}}
				if got := env["SVC_BASE_URL"]; !reflect.DeepEqual(got, wantBase) {
					t.Errorf("SVC_BASE_URL = %v, want the console's distribution", got)
				}
				if env["SVC_MAIL_FROM"] != defaultMailFrom || env["SVC_INVITATION_CODES"] != "" || env["SVC_ADMIN_EMAILS"] != "" {
					t.Errorf("context defaults not applied: %v", env)
				}
				// Logs go to the function's own one-month log group.
				lg := props(fn)["LoggingConfig"].(map[string]any)["LogGroup"]
				if ids := refs(lg); len(ids) != 1 || ofType(tj, "AWS::Logs::LogGroup")[ids[0]] == nil {
					t.Errorf("LoggingConfig.LogGroup %v is not a log group of the stack", lg)
				}
				assert(t, "errors alarm", func() {
					tmpl.ResourcePropertiesCountIs(jsii.String("AWS::CloudWatch::Alarm"), map[string]any{
						"Namespace":          "AWS/Lambda",
						"MetricName":         "Errors",
						"Dimensions":         []any{map[string]any{"Name": "FunctionName", "Value": map[string]any{"Ref": fnID(g.Name)}}},
						"Statistic":          "Sum",
						"Period":             300,
						"Threshold":          1,
						"ComparisonOperator": "GreaterThanOrEqualToThreshold",
						"EvaluationPeriods":  1,
					}, jsii.Number(1))
				})
			})
		}
	})

	t.Run("http api", func(t *testing.T) {
		assert(t, "api", func() {
			tmpl.HasResourceProperties(jsii.String("AWS::ApiGatewayV2::Api"), map[string]any{
				"ProtocolType": "HTTP", "CorsConfiguration": assertions.Match_Absent(),
			})
			tmpl.HasResourceProperties(jsii.String("AWS::ApiGatewayV2::Stage"), map[string]any{
				"StageName": "$default", "AutoDeploy": true,
			})
			tmpl.AllResourcesProperties(jsii.String("AWS::ApiGatewayV2::Integration"), map[string]any{
				"IntegrationType": "AWS_PROXY", "PayloadFormatVersion": "2.0",
			})
			tmpl.HasOutput(jsii.String("ApiUrl"), map[string]any{
				"Value": map[string]any{"Fn::GetAtt": []any{logicalID(s, s.API), "ApiEndpoint"}},
			})
		})
		integGroup := map[string]string{} // integration logical id -> group
		for id, r := range ofType(tj, "AWS::ApiGatewayV2::Integration") {
			ids := refs(props(r)["IntegrationUri"])
			if len(ids) != 1 || fnIDs[ids[0]] == "" {
				t.Fatalf("integration %s targets %v, not a function of the stack", id, props(r)["IntegrationUri"])
			}
			integGroup[id] = fnIDs[ids[0]]
		}
		got := map[string]string{} // route key -> group
		for id, r := range ofType(tj, "AWS::ApiGatewayV2::Route") {
			key, _ := props(r)["RouteKey"].(string)
			ids := refs(props(r)["Target"])
			if len(ids) != 1 || integGroup[ids[0]] == "" {
				t.Errorf("route %s (%s) targets %v, not an integration", id, key, props(r)["Target"])
				continue
			}
			if _, dup := got[key]; dup {
				t.Errorf("route %s defined twice", key)
			}
			got[key] = integGroup[ids[0]]
		}
		want := map[string]string{}
		for _, g := range groups {
			for _, p := range g.Prefixes {
				want["ANY "+p] = g.Name
				want["ANY "+p+"/{proxy+}"] = g.Name
			}
			if g.Default {
				want["$default"] = g.Name
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("routes\n%v\nwant\n%v", got, want)
		}
		// The table the Lambdas mount agrees with the routes: a request
		// under each route lands on the group api.GroupOf names.
		for key, group := range want {
			p := strings.TrimPrefix(strings.Replace(key, "{proxy+}", "x", 1), "ANY ")
			if key == "$default" {
				p = "/no-group-claims-this"
			}
			if gof := api.GroupOf(p); gof != group {
				t.Errorf("route %s goes to %s but api.GroupOf(%q) = %s", key, group, p, gof)
			}
		}
		// Each function lets API Gateway invoke it, from this API only:
		// every permission of API Gateway names the API.
		apiID := logicalID(s, s.API)
		perms := map[string][]string{} // group -> source ARN patterns
		for id, r := range ofType(tj, "AWS::Lambda::Permission") {
			p := props(r)
			if p["Principal"] != "apigateway.amazonaws.com" {
				continue
			}
			fns := refs(p["FunctionName"])
			if len(fns) != 1 || fnIDs[fns[0]] == "" || !slices.Contains(refs(p["SourceArn"]), apiID) || p["Action"] != "lambda:InvokeFunction" {
				t.Errorf("permission %s: %v", id, p)
				continue
			}
			perms[fnIDs[fns[0]]] = append(perms[fnIDs[fns[0]]], arnPattern(t, p["SourceArn"], apiID))
		}
		// Every route's ARN, as API Gateway names it when it invokes the
		// function, matches a permission of that route's function
		// (ArnLike: * is any run of characters, / included).
		for key, group := range want {
			for _, arn := range routeARNs(key, apiID) {
				ok := false
				for _, pat := range perms[group] {
					ok = ok || arnLike(pat, arn)
				}
				if !ok {
					t.Errorf("route %s: API Gateway invokes %s as %s, which none of its permissions %v allows", key, group, arn, perms[group])
				}
			}
		}
	})

	t.Run("least privilege", func(t *testing.T) {
		for _, g := range groups {
			t.Run(g.Name, func(t *testing.T) {
				fn := resources(tj)[fnID(g.Name)].(map[string]any)
				roleID := refs(props(fn)["Role"])[0]
				role := props(resources(tj)[roleID].(map[string]any))
				// The managed policy is the basic execution role (logs) only.
				mp := role["ManagedPolicyArns"].([]any)
				if len(mp) != 1 || !strings.Contains(fmt.Sprint(mp[0]), ":iam::aws:policy/service-role/AWSLambdaBasicExecutionRole") {
					t.Errorf("managed policies %v, want AWSLambdaBasicExecutionRole only", mp)
				}
				var tables, queuesSent []string
				var sesResources []any
				bucketUsed, pipelines := false, 0
				queueIDs := map[string]string{}
				for name, q := range s.Queues {
					queueIDs[logicalID(s, q)] = name
				}
				bucketID := logicalID(s, s.Bucket)
				for _, pol := range ofType(tj, "AWS::IAM::Policy") {
					if !slices.Contains(refs(props(pol)["Roles"]), roleID) {
						continue
					}
					for _, st := range props(pol)["PolicyDocument"].(map[string]any)["Statement"].([]any) {
						st := st.(map[string]any)
						if st["Effect"] != "Allow" {
							continue
						}
						for _, a := range strs(st["Action"]) {
							switch {
							case strings.HasPrefix(a, "dynamodb:") && !strings.Contains(a, "*"):
								for _, id := range refs(st["Resource"]) {
									if tableIDs[id] == "" {
										t.Errorf("%s on %s, which is not a table", a, id)
									}
									tables = append(tables, tableIDs[id])
								}
							case a == "ses:SendEmail" || a == "ses:SendRawEmail":
								sesResources = append(sesResources, st["Resource"])
							case a == "sqs:SendMessage" || a == "sqs:GetQueueAttributes" || a == "sqs:GetQueueUrl":
								for _, id := range refs(st["Resource"]) {
									if queueIDs[id] == "" {
										t.Errorf("%s on %s, which is not a queue", a, id)
									}
									if a == "sqs:SendMessage" {
										queuesSent = append(queuesSent, queueIDs[id])
									}
								}
							case strings.HasPrefix(a, "s3:"):
								for _, id := range refs(st["Resource"]) {
									if id != bucketID {
										t.Errorf("%s on %s, which is not the files bucket", a, id)
									}
								}
								bucketUsed = true
							case a == "secretsmanager:GetSecretValue":
								// provider_test.go checks the ARNs.
							case a == "states:StartExecution" || a == "states:SendTaskSuccess":
								if !isPipelinesARN(st["Resource"]) {
									t.Errorf("%s on %v, which is not the pipeline state machine", a, st["Resource"])
								}
								pipelines++
							default:
								t.Errorf("unexpected action %s on %v", a, st["Resource"])
							}
						}
					}
				}
				// What holds jobs starts and resumes pipeline executions.
				if want := map[bool]int{true: 2}[slices.Contains(g.Tables, "jobs")]; pipelines != want {
					t.Errorf("%d state machine grants, want %d", pipelines, want)
				}
				if got, want := sorted(tables), sorted(g.Tables); !reflect.DeepEqual(got, want) {
					t.Errorf("DynamoDB grants on %v, want exactly %v", got, want)
				}
				if got, want := sorted(queuesSent), sorted(g.SendsTo); !reflect.DeepEqual(got, want) {
					t.Errorf("may send to queues %v, want exactly %v", got, want)
				}
				if bucketUsed != g.Files {
					t.Errorf("bucket granted %v, group uses files %v", bucketUsed, g.Files)
				}
				if !g.SendsMail && len(sesResources) > 0 {
					t.Errorf("group does not send mail but may: %v", sesResources)
				}
				if g.SendsMail {
					if len(sesResources) != 2 {
						t.Errorf("SES actions granted %d times, want SendEmail and SendRawEmail", len(sesResources))
					}
					for _, r := range sesResources {
						if r != sesARN {
							t.Errorf("SES granted on %v, want %s only", r, sesARN)
						}
					}
				}
			})
		}
		// The case that motivated per-group grants, stated outright.
		if !slices.Contains(groupNames(groups), "api-registry") {
			return
		}
		limits := logicalID(s, s.Tables["limits"])
		roleID := refs(props(resources(tj)[fnID("api-registry")].(map[string]any))["Role"])[0]
		for id, pol := range ofType(tj, "AWS::IAM::Policy") {
			if slices.Contains(refs(props(pol)["Roles"]), roleID) && slices.Contains(refs(props(pol)["PolicyDocument"]), limits) {
				t.Errorf("policy %s lets api-registry touch the limits table", id)
			}
		}
	})
}

func groupNames(gs []api.Group) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.Name)
	}
	return out
}

// TestStackContext checks that the context knobs reach the functions and
// the SES grant, and the default SES identity when none is given.
func TestStackContext(t *testing.T) {
	for _, tt := range []struct {
		name    string
		ctx     map[string]any
		env     map[string]any // expected variables of every function
		sesTail string         // the default identity ARN ends so
		sesARN  string         // the explicit identity ARN
	}{
		{
			name: "set",
			ctx: map[string]any{
				ctxBaseURL:         "https://svc.example.org/",
				ctxMailFrom:        "Svc <hello@mail.example.org>",
				ctxInvitationCodes: []any{"alpha", "beta"},
				ctxAdminEmails:     "root@example.org",
				ctxSESIdentityARN:  "arn:aws:ses:eu-west-3:123456789012:identity/mail.example.org",
			},
			env: map[string]any{
				"SVC_BASE_URL":         "https://svc.example.org",
				"SVC_MAIL_FROM":        "Svc <hello@mail.example.org>",
				"SVC_INVITATION_CODES": "alpha,beta",
				"SVC_ADMIN_EMAILS":     "root@example.org",
			},
			sesARN: "arn:aws:ses:eu-west-3:123456789012:identity/mail.example.org",
		},
		{
			name:    "identity from mailFrom",
			ctx:     map[string]any{ctxMailFrom: "Svc <hello@mail.example.org>"},
			env:     map[string]any{"SVC_MAIL_FROM": "Svc <hello@mail.example.org>"},
			sesTail: ":identity/mail.example.org",
		},
		{
			name:    "identity from mailDomain",
			ctx:     map[string]any{ctxMailFrom: "Svc <hello@mail.example.org>", ctxMailDomain: "example.org"},
			sesTail: ":identity/example.org",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, tmpl, tj := synth(t, tt.ctx)
			for g, fn := range s.Functions {
				env := props(resources(tj)[logicalID(s, fn)].(map[string]any))["Environment"].(map[string]any)["Variables"].(map[string]any)
				for k, v := range tt.env {
					if env[k] != v {
						t.Errorf("%s: %s = %v, want %v", g, k, env[k], v)
					}
				}
			}
			var res any = tt.sesARN
			if tt.sesARN == "" {
				res = map[string]any{"Fn::Join": []any{"", assertions.Match_ArrayWith(&[]any{
					"arn:", ":ses:", assertions.Match_StringLikeRegexp(jsii.String(tt.sesTail + "$")),
				})}}
			}
			assert(t, "SES grant", func() {
				tmpl.HasResourceProperties(jsii.String("AWS::IAM::Policy"), map[string]any{
					"PolicyDocument": map[string]any{"Statement": assertions.Match_ArrayWith(&[]any{assertions.Match_ObjectLike(&map[string]any{
						"Action":   []any{"ses:SendEmail", "ses:SendRawEmail"},
						"Resource": res,
					})})},
				})
			})
		})
	}
}

// TestMissingAssets: without the artifacts of make build the app says so
// instead of failing deep inside the CDK.
func TestMissingAssets(t *testing.T) {
	ctx := map[string]any{ctxAssetDir: t.TempDir()}
	a := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(t.TempDir())})
	_, err := NewStack(a, "Svc", nil)
	if err == nil || !strings.Contains(err.Error(), "make build") {
		t.Fatalf("err = %v, want a hint to run make build", err)
	}
}

// TestBadContext: a malformed knob fails the synth with its name.
func TestBadContext(t *testing.T) {
	for _, ctx := range []map[string]any{
		{ctxMailFrom: "not an address"},
		{ctxSESIdentityARN: "identity/example.org"},
		{ctxInvitationCodes: 42.0},
	} {
		ctx[ctxAssetDir] = placeholderAssets(t)
		a := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(t.TempDir())})
		if _, err := NewStack(a, "Svc", nil); err == nil {
			t.Errorf("context %v accepted", ctx)
		}
	}
}

// TestWorkers: each queue-fed worker is an arm64 Lambda with its queue as
// event source (one message per invocation, failures reported per message),
// a timeout below the queue's visibility, and only its own grants.
func TestWorkers(t *testing.T) {
	s, _, tj := synth(t, nil)
	for _, w := range app.Workers() {
		t.Run(w.Name, func(t *testing.T) {
			fnLogical := logicalID(s, s.Functions[w.Name])
			fn := props(resources(tj)[fnLogical].(map[string]any))
			if fn["Runtime"] != "provided.al2023" || fn["MemorySize"] != float64(w.MemoryMB) || fn["Timeout"] != float64(w.TimeoutS) {
				t.Errorf("function %v", fn)
			}
			env := fn["Environment"].(map[string]any)["Variables"].(map[string]any)
			for _, tb := range w.Tables {
				if env[tableEnv(tb)] == nil {
					t.Errorf("no %s", tableEnv(tb))
				}
			}
			if w.Files && env["SVC_BUCKET"] == nil {
				t.Error("no SVC_BUCKET")
			}
			// A browser worker runs the Chromium pack: x86_64, the pack's
			// layer, its path in the environment, room in /tmp.
			arch, _ := fn["Architectures"].([]any)
			layers, _ := fn["Layers"].([]any)
			switch {
			case w.Browser:
				tmp, _ := fn["EphemeralStorage"].(map[string]any)
				if len(arch) != 1 || arch[0] != "x86_64" || len(layers) != 1 || env["SVC_CHROMIUM_PACK"] != chromiumPackDir ||
					tmp["Size"] != 1024.0 {
					t.Errorf("browser worker: arch %v, layers %v, pack %v, /tmp %v", arch, layers, env["SVC_CHROMIUM_PACK"], tmp)
				}
				chromium := 0
				for id := range ofType(tj, "AWS::Lambda::LayerVersion") {
					if strings.HasPrefix(id, "ChromiumLayer") {
						chromium++
					}
				}
				if chromium != 1 {
					t.Errorf("%d Chromium layers, want one", chromium)
				}
			case len(arch) != 1 || arch[0] != "arm64" || len(layers) != 0:
				t.Errorf("arch %v, layers %v", arch, layers)
			}
			// Lambda blocks port 25, so the SMTP probe is off everywhere;
			// the secrets are checked by provider_test.go.
			if env["SVC_SMTP_PROBE"] != "off" || env["SVC_DATA_SOURCES"] != "sim" {
				t.Errorf("probe %v, sources %v", env["SVC_SMTP_PROBE"], env["SVC_DATA_SOURCES"])
			}
			fromQueue, fromStream := false, false
			for _, m := range ofType(tj, "AWS::Lambda::EventSourceMapping") {
				p := props(m)
				if !slices.Contains(refs(p["FunctionName"]), fnLogical) {
					continue
				}
				if !slices.Contains(strs(p["FunctionResponseTypes"]), "ReportBatchItemFailures") {
					t.Errorf("event source without per-record failures: %v", p)
				}
				switch {
				case w.Queue != "" && slices.Contains(refs(p["EventSourceArn"]), logicalID(s, s.Queues[w.Queue])):
					fromQueue = true
					// The queue's maximum concurrency: the provider's
					// in-flight limit for worker-tasks, the workers'
					// setting for the others (defaults here).
					want := float64(defaultWorkerMax)
					if w.Queue == app.QueueTasks {
						want = defaultMaxInFlight
					}
					if p["BatchSize"] != 1.0 || !reflect.DeepEqual(p["ScalingConfig"], map[string]any{"MaximumConcurrency": want}) {
						t.Errorf("queue event source %v, want batches of 1 and a maximum concurrency of %v", p, want)
					}
				case w.Stream != "" && slices.Contains(refs(p["EventSourceArn"]), logicalID(s, s.Tables[w.Stream])):
					fromStream = true
					b, _ := json.Marshal(p)
					// Failed records are noted in stream-dlq, apart from
					// the failed deliveries of deliveries-dlq.
					dest := refs(p["DestinationConfig"])
					if p["StartingPosition"] != "TRIM_HORIZON" || p["BisectBatchOnFunctionError"] != true ||
						!strings.Contains(string(b), `INSERT`) || len(dest) != 1 || dest[0] != logicalID(s, s.Queues[app.QueueStreamDLQ]) {
						t.Errorf("stream event source %s, want failures noted in %s", b, app.QueueStreamDLQ)
					}
					// Its iterator age is watched.
					ages := 0
					for _, a := range ofType(tj, "AWS::CloudWatch::Alarm") {
						a := props(a)
						if a["MetricName"] == "IteratorAge" && a["Namespace"] == "AWS/Lambda" && a["Statistic"] == "Maximum" &&
							a["Threshold"] == float64(streamAgeAlarm.Milliseconds()) && slices.Contains(refs(a["Dimensions"]), fnLogical) {
							ages++
						}
					}
					if ages != 1 {
						t.Errorf("%d iterator age alarms on %s, want 1", ages, w.Name)
					}
				default:
					t.Errorf("unexpected event source %v", p)
				}
			}
			// A scheduled worker: one rule at its rate targets it, and
			// EventBridge may invoke it.
			rules := 0
			for _, rule := range ofType(tj, "AWS::Events::Rule") {
				p := props(rule)
				for _, target := range p["Targets"].([]any) {
					if slices.Contains(refs(target.(map[string]any)["Arn"]), fnLogical) {
						rules++
						if want := fmt.Sprintf("rate(%d minute", int(w.Every/time.Minute)); !strings.HasPrefix(fmt.Sprint(p["ScheduleExpression"]), want) {
							t.Errorf("rule %v, want %s", p["ScheduleExpression"], want)
						}
					}
				}
			}
			invokable := false
			for _, perm := range ofType(tj, "AWS::Lambda::Permission") {
				p := props(perm)
				if slices.Contains(refs(p["FunctionName"]), fnLogical) && p["Principal"] == "events.amazonaws.com" {
					invokable = true
				}
			}
			if (rules == 1) != (w.Every > 0) || invokable != (w.Every > 0) {
				t.Errorf("%s: %d rules, EventBridge may invoke %v, every %v", w.Name, rules, invokable, w.Every)
			}
			// A scheduled worker has no asynchronous retries (Lambda's
			// default is two) and drops an event older than its period.
			configs := 0
			for _, c := range ofType(tj, "AWS::Lambda::EventInvokeConfig") {
				p := props(c)
				if !slices.Contains(refs(p["FunctionName"]), fnLogical) {
					continue
				}
				configs++
				if p["MaximumRetryAttempts"] != 0.0 || p["MaximumEventAgeInSeconds"] != tickMaxEventAge(w.Every).Seconds() || p["Qualifier"] != "$LATEST" {
					t.Errorf("event invoke config %v, want no retry and events kept %v", p, tickMaxEventAge(w.Every))
				}
			}
			if (configs == 1) != (w.Every > 0) {
				t.Errorf("%s: %d event invoke configs, every %v", w.Name, configs, w.Every)
			}
			if fromQueue != (w.Queue != "") || fromStream != (w.Stream != "") {
				t.Errorf("%s: event source from queue %v (want %q), from stream %v (want %q)", w.Name, fromQueue, w.Queue, fromStream, w.Stream)
			}
			// AWS's advice for an SQS event source, on the template
			// itself: visibility at least 6x the function's timeout.
			if w.Queue != "" {
				q := props(resources(tj)[logicalID(s, s.Queues[w.Queue])].(map[string]any))
				if v, _ := q["VisibilityTimeout"].(float64); v < float64(app.VisibilityFactor*w.TimeoutS) {
					t.Errorf("queue %s: visibility %v s under %d x the function's %d s", w.Queue, q["VisibilityTimeout"], app.VisibilityFactor, w.TimeoutS)
				}
			}
		})
	}
}

// TestSchedules: each schedule is an EventBridge rule at its rate whose
// target is its queue with its message as the body, and the queue lets
// EventBridge send to it.
func TestSchedules(t *testing.T) {
	s, _, tj := synth(t, nil)
	for _, sc := range app.Schedules() {
		t.Run(sc.Name, func(t *testing.T) {
			qLogical := logicalID(s, s.Queues[sc.Queue])
			found := false
			for _, r := range ofType(tj, "AWS::Events::Rule") {
				p := props(r)
				for _, target := range p["Targets"].([]any) {
					tg := target.(map[string]any)
					if !slices.Contains(refs(tg["Arn"]), qLogical) {
						continue
					}
					found = true
					want := fmt.Sprintf("rate(%d minute", int(sc.Every/time.Minute))
					var got, body any
					_ = json.Unmarshal([]byte(fmt.Sprint(tg["Input"])), &got)
					_ = json.Unmarshal([]byte(sc.Body), &body)
					if !strings.HasPrefix(p["ScheduleExpression"].(string), want) || !reflect.DeepEqual(got, body) {
						t.Errorf("rule %v", p)
					}
				}
			}
			if !found {
				t.Errorf("no rule targets queue %s", sc.Queue)
			}
			policy := false
			for _, qp := range ofType(tj, "AWS::SQS::QueuePolicy") {
				b, _ := json.Marshal(props(qp))
				if strings.Contains(string(b), "events.amazonaws.com") && strings.Contains(string(b), qLogical) {
					policy = true
				}
			}
			if !policy {
				t.Errorf("queue %s does not let EventBridge send", sc.Queue)
			}
		})
	}
}
