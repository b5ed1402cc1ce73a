package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
)

// renderRefs renders an environment value (a string, or an Fn::Join of
// strings, Refs and GetAtts) with each Ref written "ref:<logical id>".
func renderRefs(t *testing.T, v any) string {
	t.Helper()
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		if r, ok := v["Ref"].(string); ok {
			return "ref:" + r
		}
		if ga, ok := v["Fn::GetAtt"].([]any); ok {
			return fmt.Sprint("getatt:", ga)
		}
		if j, ok := v["Fn::Join"].([]any); ok && len(j) == 2 {
			parts, _ := j[1].([]any)
			var b strings.Builder
			for _, p := range parts {
				b.WriteString(renderRefs(t, p))
			}
			return b.String()
		}
	}
	t.Errorf("value %v: not a string, a Join or a Ref", v)
	return ""
}

// fnOf describes a function of the stack by the fields its settings
// depend on.
type fnOf struct {
	name           string
	tables         []string
	sources, files bool
	queue          string
}

func allFunctions() []fnOf {
	var out []fnOf
	for _, g := range api.Groups() {
		out = append(out, fnOf{name: g.Name, tables: g.Tables, sources: g.DataSources, files: g.Files})
	}
	for _, w := range app.Workers() {
		out = append(out, fnOf{name: w.Name, tables: w.Tables, sources: w.Sources, files: w.Files, queue: w.Queue})
	}
	return out
}

// TestSecretsAndProvider: under both map providers, no key is in the
// template or in a function's configuration: each function gets the ARNs
// of exactly its secrets (the session key; the data sources' keys where
// it runs them; the Places key where it uses the provider, under google),
// may read exactly those, and the provider's settings and limits reach
// what holds jobs.
func TestSecretsAndProvider(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		ctx                  map[string]any
		provider, sources    string
		inFlight, perSecond  string
		tasksMax, workersMax float64
		pathStyle            bool
	}{
		{name: "sim", ctx: nil, provider: "sim", sources: "sim", inFlight: "16", perSecond: "8", tasksMax: 16, workersMax: 10},
		{
			name:     "google",
			ctx:      map[string]any{ctxMapProvider: "google", ctxMaxInFlight: "40", ctxMaxPerSecond: "20", ctxWorkerMax: "25", ctxS3PathStyle: "true"},
			provider: "google", sources: "real", inFlight: "40", perSecond: "20", tasksMax: 40, workersMax: 25, pathStyle: true,
		},
		{
			// One request in flight: SQS still needs a maximum
			// concurrency of 2; the limiter holds the line.
			name:     "google, one in flight, real sources said outright",
			ctx:      map[string]any{ctxMapProvider: "google", ctxDataSources: "real", ctxMaxInFlight: 1.0, ctxMaxPerSecond: 2.0},
			provider: "google", sources: "real", inFlight: "1", perSecond: "2", tasksMax: 2, workersMax: 10,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _, tj := synth(t, tt.ctx)
			b, _ := json.Marshal(tj)
			if strings.Contains(string(b), "resolve:secretsmanager") {
				t.Error("the template holds a dynamic reference to a secret: its value would be in a function's configuration")
			}
			secrets := ofType(tj, "AWS::SecretsManager::Secret")
			session, sources := logicalID(s, s.SessionSecret), logicalID(s, s.SourceSecrets)
			places := ""
			if tt.provider == "google" {
				if s.PlacesSecret == nil {
					t.Fatal("no Places key secret under google")
				}
				places = logicalID(s, s.PlacesSecret)
				// An empty placeholder: the key is never in the template.
				if got := props(secrets[places])["SecretString"]; got != `{"`+placesKeyField+`":""}` {
					t.Errorf("Places secret %v, want an empty %s", got, placesKeyField)
				}
				if out, _ := tj["Outputs"].(map[string]any)["GooglePlacesSecretArn"].(map[string]any); !reflect.DeepEqual(out["Value"], map[string]any{"Ref": places}) {
					t.Errorf("output GooglePlacesSecretArn %v", out)
				}
			}
			if want := map[bool]int{false: 2, true: 3}[places != ""]; len(secrets) != want {
				t.Errorf("%d secrets, want %d", len(secrets), want)
			}
			for _, f := range allFunctions() {
				t.Run(f.name, func(t *testing.T) {
					id := logicalID(s, s.Functions[f.name])
					fn := props(resources(tj)[id].(map[string]any))
					env := fn["Environment"].(map[string]any)["Variables"].(map[string]any)
					for k, v := range env {
						if strings.Contains(renderRefs(t, v), "{{resolve") {
							t.Errorf("%s holds a dynamic reference", k)
						}
					}
					for _, k := range append([]string{envSessionKey, envPlacesKey}, envs(dataSourceSecretKeys)...) {
						if _, ok := env[k]; ok {
							t.Errorf("%s is in the function's configuration", k)
						}
					}

					// The secrets it reads at init, and no other.
					var got []onaws.SecretRef
					if err := json.Unmarshal([]byte(renderRefs(t, env[onaws.SecretsEnv])), &got); err != nil {
						t.Fatalf("%s: %v", onaws.SecretsEnv, err)
					}
					want := []onaws.SecretRef{{ARN: "ref:" + session, Var: envSessionKey}}
					if f.sources {
						want = append(want, onaws.SecretRef{ARN: "ref:" + sources, Fields: map[string]string{
							"pagespeed_key": "SVC_PAGESPEED_KEY", "registers_key": "SVC_REGISTERS_KEY", "delivery_seeds": "SVC_DELIVERY_SEEDS",
							"phone_lookup_key": "SVC_PHONE_LOOKUP_KEY", "phone_lookup_secret": "SVC_PHONE_LOOKUP_SECRET",
						}})
					}
					holdsJobs := slices.Contains(f.tables, "jobs")
					if places != "" && holdsJobs {
						want = append(want, onaws.SecretRef{ARN: "ref:" + places, Fields: map[string]string{"google_places_key": "SVC_GOOGLE_PLACES_KEY"}})
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s = %+v, want %+v", onaws.SecretsEnv, got, want)
					}
					var wantIDs []string
					for _, r := range want {
						wantIDs = append(wantIDs, strings.TrimPrefix(r.ARN, "ref:"))
					}
					if got := secretGrants(t, tj, refs(fn["Role"])[0]); !reflect.DeepEqual(got, sorted(wantIDs)) {
						t.Errorf("may read secrets %v, want exactly %v", got, sorted(wantIDs))
					}

					// The provider's settings where jobs are.
					for k, v := range map[string]string{envMapProvider: tt.provider, envMaxInFlight: tt.inFlight, envMaxPerSecond: tt.perSecond} {
						if got, ok := env[k]; ok != holdsJobs || (ok && got != v) {
							t.Errorf("%s = %v (set %v), want %q on the functions holding jobs only", k, got, ok, v)
						}
					}
					if env["SVC_DATA_SOURCES"] != tt.sources {
						t.Errorf("SVC_DATA_SOURCES = %v, want %s", env["SVC_DATA_SOURCES"], tt.sources)
					}
					if got, ok := env["SVC_S3_PATH_STYLE"]; ok != (tt.pathStyle && f.files) || (ok && got != "1") {
						t.Errorf("SVC_S3_PATH_STYLE = %v (set %v), want 1 on the bucket's users only when s3PathStyle", got, ok)
					}

					// Its queue's maximum concurrency.
					if f.queue == "" {
						return
					}
					want2 := tt.workersMax
					if f.queue == app.QueueTasks {
						want2 = tt.tasksMax
					}
					for _, m := range ofType(tj, "AWS::Lambda::EventSourceMapping") {
						p := props(m)
						if slices.Contains(refs(p["FunctionName"]), id) && slices.Contains(refs(p["EventSourceArn"]), logicalID(s, s.Queues[f.queue])) {
							if got := p["ScalingConfig"]; !reflect.DeepEqual(got, map[string]any{"MaximumConcurrency": want2}) {
								t.Errorf("scaling %v, want a maximum concurrency of %v", got, want2)
							}
						}
					}
				})
			}
		})
	}
}

func envs(keys []struct{ field, env string }) []string {
	var out []string
	for _, k := range keys {
		out = append(out, k.env)
	}
	return out
}

// secretGrants are the logical ids of the secrets a role may read, sorted;
// a Secrets Manager action other than GetSecretValue is an error.
func secretGrants(t *testing.T, tj map[string]any, roleID string) []string {
	t.Helper()
	var ids []string
	for _, pol := range ofType(tj, "AWS::IAM::Policy") {
		if !slices.Contains(refs(props(pol)["Roles"]), roleID) {
			continue
		}
		for _, st := range props(pol)["PolicyDocument"].(map[string]any)["Statement"].([]any) {
			st := st.(map[string]any)
			for _, a := range strs(st["Action"]) {
				if !strings.HasPrefix(a, "secretsmanager:") {
					continue
				}
				if a != "secretsmanager:GetSecretValue" || st["Effect"] != "Allow" {
					t.Errorf("secret action %s (%v) on %v", a, st["Effect"], st["Resource"])
				}
				ids = append(ids, refs(st["Resource"])...)
			}
		}
	}
	return sorted(ids)
}

// TestSettingsRefused: a provider setting out of its range fails the synth
// with its name.
func TestSettingsRefused(t *testing.T) {
	for _, tt := range []struct {
		ctx  map[string]any
		want string
	}{
		{map[string]any{ctxMapProvider: "bing"}, ctxMapProvider},
		{map[string]any{ctxMapProvider: "google", ctxDataSources: "sim"}, ctxDataSources},
		{map[string]any{ctxDataSources: "fake"}, ctxDataSources},
		{map[string]any{ctxMaxInFlight: "0"}, ctxMaxInFlight},
		{map[string]any{ctxMaxInFlight: "1001"}, ctxMaxInFlight},
		{map[string]any{ctxMaxInFlight: 2.5}, ctxMaxInFlight},
		{map[string]any{ctxMaxPerSecond: "fast"}, ctxMaxPerSecond},
		{map[string]any{ctxMaxPerSecond: "1001"}, ctxMaxPerSecond}, // over what the service reads
		{map[string]any{ctxMaxPerSecond: "0"}, ctxMaxPerSecond},    // 0 would lift the bound
		{map[string]any{ctxWorkerMax: "1"}, ctxWorkerMax},          // SQS takes 2 at least
		{map[string]any{ctxAlarmEmail: "ops"}, ctxAlarmEmail},
		{map[string]any{ctxAlarmEmail: "Ops <ops@example.org>"}, ctxAlarmEmail},
		{map[string]any{ctxS3PathStyle: "maybe"}, ctxS3PathStyle},
		{map[string]any{ctxMailFrom: 3.0}, ctxMailFrom},
	} {
		t.Run(fmt.Sprint(tt.ctx), func(t *testing.T) {
			ctx := maps.Clone(tt.ctx)
			ctx[ctxAssetDir] = t.TempDir() // refused before the assets are looked for
			err := newStackErr(t, ctx)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one naming %s", err, tt.want)
			}
		})
	}
}

// newStackErr builds the stack with ctx and returns its error.
func newStackErr(t *testing.T, ctx map[string]any) error {
	t.Helper()
	a := awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(t.TempDir())})
	_, err := NewStack(a, "Svc", nil)
	return err
}

// lambdaEnvCap is Lambda's cap on a function's environment: 4 KB for all
// names and values together.
const lambdaEnvCap = 4096

// sizeBound is an upper bound of a value's length once CloudFormation has
// resolved it: pseudo parameters at their longest, a resource's name, URL
// or ARN at 160 characters (a queue URL or a secret ARN of this stack is
// about 110).
func sizeBound(v any) int {
	switch v := v.(type) {
	case string:
		return len(v)
	case map[string]any:
		if j, ok := v["Fn::Join"].([]any); ok && len(j) == 2 {
			parts, _ := j[1].([]any)
			n := 0
			for _, p := range parts {
				n += sizeBound(p)
			}
			return n
		}
		switch v["Ref"] {
		case "AWS::Partition":
			return len("aws-iso-b")
		case "AWS::Region":
			return len("ap-southeast-5") + 2
		case "AWS::AccountId":
			return 12
		case "AWS::StackName":
			return 128
		case "AWS::URLSuffix":
			return len("amazonaws.com.cn")
		}
	}
	return 160
}

// TestEnvironmentSize: every function's environment stays under Lambda's
// 4 KB under the settings that make it largest.
func TestEnvironmentSize(t *testing.T) {
	s, _, tj := synth(t, map[string]any{
		ctxMapProvider: "google", ctxS3PathStyle: "true", ctxBaseURL: "https://" + strings.Repeat("a", 60) + ".example.org",
		ctxMailFrom:        "Prospecting Data Service <no-reply@" + strings.Repeat("m", 40) + ".example.org>",
		ctxInvitationCodes: strings.Repeat("code-0123456789,", 10), ctxAdminEmails: strings.Repeat("admin.person@example.org,", 5),
	})
	for name, fn := range s.Functions {
		env := props(resources(tj)[logicalID(s, fn)].(map[string]any))["Environment"].(map[string]any)["Variables"].(map[string]any)
		n := 0
		for k, v := range env {
			n += len(k) + sizeBound(v)
		}
		if n > lambdaEnvCap {
			t.Errorf("%s: environment up to %d bytes, over Lambda's %d", name, n, lambdaEnvCap)
		}
		t.Logf("%s: environment up to %d bytes", name, n)
	}
}
