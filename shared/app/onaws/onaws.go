// Package onaws wires the service on AWS: DynamoDB tables, SES mail, and the
// API Gateway HTTP API (payload v2) adapter over the same net/http handlers
// the local server mounts. A Lambda main calls Handler and lambda.Start.
package onaws

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/blob/s3"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/mail/ses"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/queue/sqs"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/dynamo"
)

// HTTPHandler is the Lambda handler of an HTTP API route (payload v2).
type HTTPHandler func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error)

// EnvName is the environment variable naming a resource: SVC_TABLE_ACCOUNTS
// for the table "accounts", SVC_QUEUE_TASKS_DLQ_URL for the queue
// "tasks-dlq". The CDK app sets them with the same function's rule.
func EnvName(kind, name string) string {
	up := strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(name))
	if kind == "QUEUE" {
		return "SVC_QUEUE_" + up + "_URL"
	}
	return "SVC_" + kind + "_" + up
}

// TableNames reads the physical table names of the schemas from the
// environment; a schema without a variable keeps its own name.
func TableNames(getenv func(string) string, schemas []store.Schema) map[string]string {
	names := map[string]string{}
	for _, s := range schemas {
		if v := getenv(EnvName("TABLE", s.Name)); v != "" {
			names[s.Name] = v
		}
	}
	return names
}

// Option changes an adapter the environment does not choose. A Lambda's
// main passes none; tests pass WithGuard.
type Option func(*app.Adapters)

// WithGuard replaces the guard of webhook URLs and deliveries, so a test
// reaches a loopback TLS receiver the default guard refuses. No
// environment variable can do this: only code that builds the handler.
func WithGuard(g *netguard.Guard) Option { return func(a *app.Adapters) { a.Guard = g } }

// Handler builds the handler of one route group from the environment. Its
// only network calls are the reads of its secrets (SecretsEnv), one per
// secret: cold start costs those and the SDK's configuration load.
func Handler(ctx context.Context, group string, getenv func(string) string, opts ...Option) (HTTPHandler, error) {
	if !knownGroup(group) {
		return nil, fmt.Errorf("unknown route group %q", group)
	}
	// A Lambda's answer reaches the client only when it ends: a progress
	// stream ends after a few seconds, and the client resumes it.
	a, err := build(ctx, getenv, slog.New(slog.NewJSONHandler(os.Stdout, nil)).With("group", group), opts,
		api.OnlyGroup(group), api.WithStreamFor(lambdaStreamFor))
	if err != nil {
		return nil, err
	}
	if groupOf(group).Gazetteer {
		// Loaded during init, which Lambda runs before the first request.
		if err := a.Scrape.Warm(); err != nil {
			return nil, err
		}
	}
	return Adapt(a.Server), nil
}

// ResponseCap is Lambda's cap on a synchronous invocation's response
// payload (6 MB, counted as 6 MiB here and by the tests' runtime fake):
// the API serves no body that could pass it (app.Adapters.ResponseCap).
const ResponseCap = 6 << 20

// lambdaStreamFor bounds a progress stream served by a Lambda, well within
// the function's timeout and API Gateway's 29 s.
const lambdaStreamFor = 8 * time.Second

// build wires the app over the AWS adapters the environment names: the
// tables, the queues and the bucket the stack gave this function, SES.
func build(ctx context.Context, getenv func(string) string, log *slog.Logger, adapt []Option, opts ...api.Option) (*app.App, error) {
	// The keys the stack keeps in Secrets Manager (SecretsEnv), read once
	// at init, before the configuration that needs them.
	getenv, err := withSecrets(ctx, getenv, log)
	if err != nil {
		return nil, err
	}
	cfg, err := config.FromEnv(getenv)
	if err != nil {
		return nil, err
	}
	if cfg.SessionSecret == "" {
		return nil, errors.New("SVC_SESSION_SECRET is required on AWS (the CDK stack passes it)")
	}
	secret, err := cfg.SessionKey()
	if err != nil {
		return nil, err
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	db := dynamo.New(dynamodb.NewFromConfig(awsCfg), app.Schemas(), TableNames(getenv, app.Schemas()))
	ad := app.Adapters{
		DB:            db,
		Queue:         queues(getenv, awsCfg),
		Files:         files(getenv, awsCfg),
		Mail:          &ses.Sender{Client: sesv2.NewFromConfig(awsCfg), ConfigurationSet: getenv("SVC_SES_CONFIGURATION_SET"), Now: time.Now},
		SessionSecret: secret,
		Now:           time.Now,
		Log:           log,
		HTTPClient:    &http.Client{Timeout: 10 * time.Second},
		Pipelines:     executor(getenv, awsCfg),
		ResponseCap:   ResponseCap,
	}
	for _, o := range adapt {
		o(&ad)
	}
	return app.New(cfg, ad, opts...)
}

// queues returns the SQS driver over the queues whose URLs the stack gave
// this function (SVC_QUEUE_<NAME>_URL); nil when it has none.
func queues(getenv func(string) string, awsCfg aws.Config) queue.Queue {
	urls := map[string]string{}
	for _, q := range app.Queues() {
		if u := getenv(EnvName("QUEUE", q.Name)); u != "" {
			urls[q.Name] = u
		}
	}
	if len(urls) == 0 {
		return nil
	}
	return sqs.New(awssqs.NewFromConfig(awsCfg), urls, app.Queues())
}

// files returns the S3 driver over the bucket the stack gave this function
// (SVC_BUCKET); nil when it has none. SVC_S3_PATH_STYLE=1 addresses the
// bucket in the path, as S3-compatible endpoints on one host (LocalStack,
// emulators) need; AWS itself takes the default, virtual-hosted style.
func files(getenv func(string) string, awsCfg aws.Config) blob.Store {
	bucket := getenv("SVC_BUCKET")
	if bucket == "" {
		return nil
	}
	pathStyle := getenv("SVC_S3_PATH_STYLE") == "1"
	return s3.New(awss3.NewFromConfig(awsCfg, func(o *awss3.Options) { o.UsePathStyle = pathStyle }), bucket)
}

// Main is the whole main of a route group's Lambda: it builds the handler
// from the environment and serves invocations until the process ends. A
// configuration error exits the process at init, which Lambda reports as
// an init failure.
func Main(group string) {
	h, err := Handler(context.Background(), group, os.Getenv)
	start(group, h, err)
}

// start serves a function's invocations with h until the process ends; a
// configuration error (err) exits the process at init, which Lambda
// reports as an init failure.
func start(name string, h any, err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
	lambda.Start(h)
}

// Adapt turns an http.Handler into an HTTP API (payload v2) handler. The
// adapter sets the request's RemoteAddr to the gateway's source IP, which
// the per-IP rate limits use.
func Adapt(h http.Handler) HTTPHandler {
	return httpadapter.NewV2(h).ProxyWithContext
}

func knownGroup(name string) bool { return groupOf(name).Name != "" }

func groupOf(name string) api.Group {
	for _, g := range api.Groups() {
		if g.Name == name {
			return g
		}
	}
	return api.Group{}
}

// SQSHandler is the Lambda handler of a queue-fed worker.
type SQSHandler func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// WorkerHandler builds the handler of a worker (app.Workers) from the
// environment: each record is one engine message; a record that fails is
// reported as a batch item failure, so SQS delivers it again after its
// visibility timeout and moves it to the dead-letter queue past its
// receive limit.
func WorkerHandler(ctx context.Context, name string, getenv func(string) string) (SQSHandler, error) {
	a, w, err := buildWorker(ctx, name, getenv, nil)
	if err != nil {
		return nil, err
	}
	if w.Queue == "" {
		return nil, fmt.Errorf("worker %q is not fed by a queue", name)
	}
	return func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var out events.SQSEventResponse
		for _, rec := range ev.Records {
			count, _ := strconv.Atoi(rec.Attributes["ApproximateReceiveCount"])
			if err := a.Engine.HandleDelivery(ctx, []byte(rec.Body), count); err != nil {
				out.BatchItemFailures = append(out.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
			}
		}
		return out, nil
	}, nil
}

// buildWorker wires the app of one of app.Workers from the environment,
// as its Lambda does: the engine is required (its queues and bucket), the
// gazetteer loaded during init when the worker says so.
func buildWorker(ctx context.Context, name string, getenv func(string) string, opts []Option) (*app.App, app.Worker, error) {
	var w app.Worker
	for _, k := range app.Workers() {
		if k.Name == name {
			w = k
		}
	}
	if w.Name == "" {
		return nil, w, fmt.Errorf("unknown worker %q", name)
	}
	a, err := build(ctx, getenv, slog.New(slog.NewJSONHandler(os.Stdout, nil)).With("worker", name), opts, api.OnlyGroup("api-jobs"))
	if err != nil {
		return nil, w, err
	}
	if a.Engine == nil {
		return nil, w, errors.New(name + " without its queues or bucket: SVC_QUEUE_TASKS_URL and SVC_BUCKET are required")
	}
	if w.Gazetteer {
		if err := a.Scrape.Warm(); err != nil {
			return nil, w, err
		}
	}
	return a, w, nil
}

// WorkerMain is the whole main of a worker's Lambda.
func WorkerMain(name string) {
	h, err := WorkerHandler(context.Background(), name, os.Getenv)
	start(name, h, err)
}
