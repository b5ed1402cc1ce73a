package onaws_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
	"github.com/prospectdata/svc/shared/app/onaws/lambdatest"
	"github.com/prospectdata/svc/shared/store/dynamo"
)

// buildBootstrap compiles a Lambda main for this machine, as make build does
// for linux/arm64.
func buildBootstrap(t testing.TB, fn string) string {
	t.Helper()
	root, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bootstrap")
	tags := "lambda.norpc"
	if slices.Contains(app.AccountFunctions(), fn) {
		tags += "," + app.AccountTag // as make build builds it
	}
	cmd := exec.Command("go", "build", "-tags", tags, "-trimpath", "-ldflags=-s -w", "-o", bin, "./functions/"+fn)
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(root)))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", fn, err, out)
	}
	return bin
}

// sesStandIn answers SES v2 SendEmail on loopback and keeps the raw mails.
func sesStandIn(t testing.TB) (*httptest.Server, chan []byte) {
	mails := make(chan []byte, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Content struct{ Raw struct{ Data []byte } }
		}
		json.NewDecoder(r.Body).Decode(&in)
		select {
		case mails <- in.Content.Raw.Data:
		default:
		}
		io.WriteString(w, `{"MessageId":"m"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, mails
}

// lambdaEnv is the environment the CDK stack gives a function, with AWS
// endpoints on loopback.
func lambdaEnv(runtime, dynamoEndpoint, sesEndpoint string, tables map[string]string) []string {
	env := append(os.Environ(),
		"AWS_LAMBDA_RUNTIME_API="+runtime,
		"AWS_LAMBDA_FUNCTION_NAME=test", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=256",
		"AWS_REGION=eu-west-3", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
		"AWS_ENDPOINT_URL_DYNAMODB="+dynamoEndpoint, "AWS_ENDPOINT_URL_SESV2="+sesEndpoint,
		"SVC_SESSION_SECRET=0123456789abcdef0123456789abcdefXYZ",
		"SVC_BASE_URL=https://api.example.test", "SVC_INVITATION_CODES=code",
	)
	for name, physical := range tables {
		env = append(env, onaws.EnvName("TABLE", name)+"="+physical)
	}
	return env
}

type running struct {
	rt  *lambdatest.Runtime
	cmd *exec.Cmd
}

func startBootstrap(t testing.TB, bin string, env func(runtime string) []string) *running {
	t.Helper()
	rt, err := lambdatest.Start()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = env(rt.Addr)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if testing.Verbose() {
		cmd.Stderr = os.Stderr
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); rt.Close() })
	return &running{rt: rt, cmd: cmd}
}

func (r *running) invoke(t testing.TB, ev map[string]any) events.APIGatewayV2HTTPResponse {
	t.Helper()
	res, err := r.rt.Invoke(ev, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res.Error {
		t.Fatalf("function error: %s", res.Body)
	}
	var out events.APIGatewayV2HTTPResponse
	if err := json.Unmarshal(res.Body, &out); err != nil {
		t.Fatalf("response %s: %v", res.Body, err)
	}
	return out
}

// dynamoEmulator returns the emulator endpoint and fresh tables, or skips.
func dynamoEmulator(t testing.TB) (string, map[string]string) {
	t.Helper()
	ep := os.Getenv("SVC_TEST_DYNAMODB_ENDPOINT")
	if ep == "" {
		if os.Getenv("SVC_TEST_REQUIRE_EMULATORS") == "1" {
			t.Fatal("SVC_TEST_DYNAMODB_ENDPOINT unset: the emulators are not running")
		}
		t.Skip("no DynamoDB emulator: make emulators-up, then load .tools/emulators/env")
	}
	client := dynamodb.New(dynamodb.Options{
		Region: "eu-west-3", BaseEndpoint: aws.String(ep),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
	names := map[string]string{}
	prefix := fmt.Sprintf("boot%d-", time.Now().UnixNano())
	for _, s := range app.Schemas() {
		names[s.Name] = prefix + s.Name
	}
	if err := dynamo.CreateTables(context.Background(), client, app.Schemas(), names); err != nil {
		t.Fatal(err)
	}
	return ep, names
}

// TestBootstrapThroughRuntimeAPI runs the real api-auth and api-registry
// binaries under a stand-in of the Lambda Runtime API, with DynamoDB on the
// emulator and SES on a loopback stand-in: signup (mail sent through SES),
// verification from the mailed link, key creation, the key on both groups.
func TestBootstrapThroughRuntimeAPI(t *testing.T) {
	ep, tables := dynamoEmulator(t)
	ses, mails := sesStandIn(t)
	auth := startBootstrap(t, buildBootstrap(t, "api-auth"), func(rt string) []string { return lambdaEnv(rt, ep, ses.URL, tables) })
	reg := startBootstrap(t, buildBootstrap(t, "api-registry"), func(rt string) []string { return lambdaEnv(rt, ep, ses.URL, tables) })

	signup := auth.invoke(t, lambdatest.HTTPEvent("POST", "/api/auth/signup", "", map[string]string{"Content-Type": "application/json"}, nil,
		`{"email":"boot@example.org","password":"pass-w0rd!","invitation_code":"code","accept_responsibility":true}`))
	if signup.StatusCode != 200 || len(signup.Cookies) != 1 {
		t.Fatalf("signup: %d %v %s", signup.StatusCode, signup.Cookies, signup.Body)
	}
	if !strings.Contains(signup.Cookies[0], "Secure") {
		t.Errorf("cookie not Secure behind an https base URL: %s", signup.Cookies[0])
	}
	cookie := strings.SplitN(signup.Cookies[0], ";", 2)[0]
	var token string
	for range 2 {
		select {
		case raw := <-mails:
			if i := strings.Index(string(raw), "/verify-email?token="); i >= 0 {
				token = strings.Fields(string(raw)[i+len("/verify-email?token="):])[0]
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no mail through SES")
		}
	}
	if token == "" {
		t.Fatal("no verification link in the mails sent through SES")
	}
	if r := auth.invoke(t, lambdatest.HTTPEvent("POST", "/api/auth/email/verify", "", map[string]string{"Content-Type": "application/json"}, nil,
		`{"token":"`+token+`"}`)); r.StatusCode != 200 {
		t.Fatalf("verify: %d %s", r.StatusCode, r.Body)
	}
	kr := auth.invoke(t, lambdatest.HTTPEvent("POST", "/api/keys", "", map[string]string{"Content-Type": "application/json"}, []string{cookie}, `{"name":"boot"}`))
	var created struct{ Key string }
	json.Unmarshal([]byte(kr.Body), &created)
	if kr.StatusCode != 201 || created.Key == "" {
		t.Fatalf("key: %d %s", kr.StatusCode, kr.Body)
	}
	me := auth.invoke(t, lambdatest.HTTPEvent("GET", "/api/auth/me", "", map[string]string{"Authorization": "Bearer " + created.Key}, nil, ""))
	if me.StatusCode != 200 || !strings.Contains(me.Body, `"email_verified":true`) {
		t.Fatalf("me with key: %d %s", me.StatusCode, me.Body)
	}
	feats := reg.invoke(t, lambdatest.HTTPEvent("GET", "/api/features", "", nil, []string{cookie}, ""))
	if feats.StatusCode != 200 {
		t.Fatalf("features on api-registry with the session of api-auth: %d %s", feats.StatusCode, feats.Body)
	}
	if r := reg.invoke(t, lambdatest.HTTPEvent("GET", "/api/modules-registry", "", map[string]string{"X-API-Key": created.Key}, nil, "")); r.StatusCode != 200 {
		t.Fatalf("registry with key: %d", r.StatusCode)
	}
}

// BenchmarkColdStart measures a Lambda's init as the Lambda service sees
// it: from the process start to the first response posted to the Runtime
// API (GET /healthz on api-auth, GET /api/modules-registry on api-registry,
// an anonymous GET /api/countries (401) on api-jobs, none touching a
// table). api-jobs loads the gazetteer during init. Target: under 100 ms.
// It also reports the binary size.
func BenchmarkColdStart(b *testing.B) {
	for _, tc := range []struct {
		fn, path string
		status   int
	}{{"api-auth", "/healthz", 200}, {"api-registry", "/api/modules-registry", 200}, {"api-jobs", "/api/countries", 401}} {
		b.Run(tc.fn, func(b *testing.B) {
			bin := buildBootstrap(b, tc.fn)
			fi, err := os.Stat(bin)
			if err != nil {
				b.Fatal(err)
			}
			var total time.Duration
			for range b.N {
				rt, err := lambdatest.Start()
				if err != nil {
					b.Fatal(err)
				}
				cmd := exec.Command(bin)
				cmd.Env = lambdaEnv(rt.Addr, "http://127.0.0.1:1", "http://127.0.0.1:1", nil)
				start := time.Now()
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				res, err := rt.Invoke(lambdatest.HTTPEvent("GET", tc.path, "", nil, nil, ""), 10*time.Second)
				if err != nil || res.Error || !strings.Contains(string(res.Body), fmt.Sprintf(`"statusCode":%d`, tc.status)) {
					b.Fatalf("first request: %v %s", err, res.Body)
				}
				total += res.At.Sub(start)
				cmd.Process.Kill()
				cmd.Wait()
				rt.Close()
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/coldstart")
			b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
			b.ReportMetric(0, "ns/op")
		})
	}
}
