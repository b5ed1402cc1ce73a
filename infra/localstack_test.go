package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
)

// The LocalStack recipe (localstack/) cannot run here (no Docker engine),
// so this test holds it to the stack it deploys.

// localstackServices maps the resource types of the template, by service
// prefix, to the LocalStack services that serve them. A type the map does
// not know fails the test: a new kind of resource needs its service in
// the compose file.
var localstackServices = map[string][]string{
	"AWS::DynamoDB":       {"dynamodb"},
	"AWS::SQS":            {"sqs"},
	"AWS::S3":             {"s3"},
	"AWS::Lambda":         {"lambda"},
	"AWS::ApiGatewayV2":   {"apigateway", "apigatewayv2"},
	"AWS::SecretsManager": {"secretsmanager"},
	"AWS::IAM":            {"iam"},
	"AWS::Logs":           {"logs"},
	"AWS::CloudWatch":     {"cloudwatch"},
	"AWS::SNS":            {"sns"},
	"AWS::Events":         {"events"},
	"AWS::StepFunctions":  {"stepfunctions"},
}

// deployServices are what `cdk bootstrap` and `cdk deploy` use whatever
// the stack: CloudFormation, the bootstrap's SSM parameter, asset bucket,
// image repository and key, and STS for the caller.
var deployServices = []string{"cloudformation", "ssm", "s3", "ecr", "kms", "iam", "sts"}

// composeServices reads the SERVICES list of the compose file.
func composeServices(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../localstack/docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*SERVICES:\s*(\S+)\s*$`).FindSubmatch(b)
	if m == nil {
		t.Fatal("localstack/docker-compose.yml: no SERVICES line")
	}
	return strings.Split(string(m[1]), ",")
}

// deployContext reads the -c key=value arguments of the recipe's deploy
// command (the lines of the `$CDKLOCAL deploy` command, continued by \).
func deployContext(t *testing.T, readme string) map[string]string {
	t.Helper()
	_, cmd, ok := strings.Cut(readme, "$CDKLOCAL deploy ")
	if !ok {
		t.Fatal("localstack/README.md: no `$CDKLOCAL deploy` command")
	}
	var lines []string
	for _, l := range strings.Split(cmd, "\n") {
		lines = append(lines, l)
		if !strings.HasSuffix(strings.TrimSpace(l), `\`) {
			break
		}
	}
	ctx := map[string]string{}
	re := regexp.MustCompile(`-c ([A-Za-z][A-Za-z0-9]*)=('[^']*'|"[^"]*"|\S+)`)
	for _, m := range re.FindAllStringSubmatch(strings.Join(lines, "\n"), -1) {
		ctx[m[1]] = strings.Trim(m[2], `'"`)
	}
	return ctx
}

func TestLocalStackRecipe(t *testing.T) {
	b, err := os.ReadFile("../localstack/README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	ctx := deployContext(t, readme)
	if ctx[ctxS3PathStyle] != "true" {
		t.Errorf("the deploy command does not pass -c %s=true: the functions would address LocalStack's S3 virtual-hosted", ctxS3PathStyle)
	}
	synthCtx := map[string]any{}
	for k, v := range ctx {
		if _, known := contextDefaults()[k]; !known {
			t.Errorf("the deploy command passes -c %s, which the stack does not read", k)
		}
		if k != ctxAssetDir { // $PWD/dist: the test's placeholders instead
			synthCtx[k] = v
		}
	}
	s, _, tj := synth(t, synthCtx)

	// Every service the stack uses is in SERVICES.
	have := composeServices(t)
	need := slices.Clone(deployServices)
	for id, r := range resources(tj) {
		typ, _ := r.(map[string]any)["Type"].(string)
		parts := strings.Split(typ, "::")
		if len(parts) != 3 {
			t.Errorf("resource %s: type %q", id, typ)
			continue
		}
		svc, ok := localstackServices[parts[0]+"::"+parts[1]]
		if !ok {
			t.Errorf("resource %s of type %s: no LocalStack service known for it (add it here and to the compose SERVICES)", id, typ)
		}
		need = append(need, svc...)
		if typ == "AWS::DynamoDB::Table" && props(r.(map[string]any))["StreamSpecification"] != nil {
			need = append(need, "dynamodbstreams") // the stream's reader
		}
	}
	for _, g := range api.Groups() {
		if g.SendsMail {
			need = append(need, "ses", "sesv2") // the init script (v1), the mail sender (v2)
		}
	}
	for _, svc := range sorted(need) {
		if !slices.Contains(have, svc) {
			t.Errorf("localstack/docker-compose.yml SERVICES lacks %s, which the stack uses", svc)
		}
	}

	// The recipe names every function of the stack, and none that is gone.
	fns := map[string]bool{}
	for name := range s.Functions {
		fns[name] = true
		if !regexp.MustCompile(`\b` + regexp.QuoteMeta(name) + `\b`).MatchString(readme) {
			t.Errorf("localstack/README.md does not name function %s", name)
		}
	}
	if len(fns) != len(api.Groups())+len(app.Workers()) {
		t.Errorf("%d functions in the stack", len(fns))
	}
	for _, m := range regexp.MustCompile(`\b(?:api|worker|job|pipeline|veille|webhook)-[a-z]+\b`).FindAllString(readme, -1) {
		if !fns[m] {
			t.Errorf("localstack/README.md names %s, which is not a function of the stack", m)
		}
	}

	// With the recipe's context, the bucket's users address it in the path.
	for name, fn := range s.Functions {
		env := props(resources(tj)[logicalID(s, fn)].(map[string]any))["Environment"].(map[string]any)["Variables"].(map[string]any)
		if _, uses := env["SVC_BUCKET"]; uses && env["SVC_S3_PATH_STYLE"] != "1" {
			t.Errorf("%s: SVC_S3_PATH_STYLE = %v with the recipe's context", name, env["SVC_S3_PATH_STYLE"])
		}
	}

	// The SES identity the init script verifies is the stack's sender.
	compose, _ := os.ReadFile("../localstack/docker-compose.yml")
	from := ctx[ctxMailFrom]
	if from == "" {
		from = defaultMailFrom
	}
	addr := from[strings.LastIndexByte(from, '<')+1 : len(from)-1]
	if want := fmt.Sprintf("SVC_MAIL_SENDER: ${SVC_MAIL_SENDER:-%s}", addr); !strings.Contains(string(compose), want) {
		t.Errorf("localstack/docker-compose.yml does not verify the stack's sender %s (want %q)", addr, want)
	}
}

// TestDeployContext pins the reader of the recipe's command.
func TestDeployContext(t *testing.T) {
	got := deployContext(t, "x\n$CDKLOCAL deploy Svc -o out \\\n  -c a=1 -c s3Path=true \\\n  -c mailFrom='A B <a@b.c>' -c q=\"x y\"\n  -c after=no\n")
	want := map[string]string{"a": "1", "s3Path": "true", "mailFrom": "A B <a@b.c>", "q": "x y"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("deployContext = %v, want %v", got, want)
	}
}
