package onaws_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
	"github.com/prospectdata/svc/shared/queue/sqs"
)

// emulatorEndpoint returns an emulator's endpoint from the environment
// make test sets, or skips.
func emulatorEndpoint(t testing.TB, name string) string {
	t.Helper()
	ep := os.Getenv(name)
	if ep == "" {
		if os.Getenv("SVC_TEST_REQUIRE_EMULATORS") == "1" {
			t.Fatal(name + " unset: the emulators are not running")
		}
		t.Skip("no emulator (" + name + "): make emulators-up, then load .tools/emulators/env")
	}
	return ep
}

// awsRuntime is the stack's environment over the emulators: the tables on
// DynamoDB Local (the events table with its stream), the queues on the SQS
// emulator, the bucket on the S3 emulator, SES on a loopback stand-in,
// and the variables the stack gives each function.
type awsRuntime struct {
	t      testing.TB
	ctx    context.Context
	dynamo string // endpoints
	s3     string
	tables map[string]string // logical name -> physical
	queues map[string]string // logical name -> URL
	sqs    *awssqs.Client
	mails  chan []byte
	env    map[string]string
	opts   []onaws.Option
}

func newAWSRuntime(t testing.TB, opts ...onaws.Option) *awsRuntime {
	t.Helper()
	dynamoEP, tables := dynamoEmulator(t)
	sqsEP := emulatorEndpoint(t, "SVC_TEST_SQS_ENDPOINT")
	s3EP := emulatorEndpoint(t, "SVC_TEST_S3_ENDPOINT")
	ses, mails := sesStandIn(t)
	ctx := context.Background()
	creds := credentials.NewStaticCredentialsProvider("test", "test", "")
	run := fmt.Sprintf("w%d", time.Now().UnixNano())

	sqsClient := awssqs.New(awssqs.Options{Region: "eu-west-3", BaseEndpoint: aws.String(sqsEP), Credentials: creds})
	urls, err := sqs.CreateQueues(ctx, sqsClient, app.Queues(), run+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, u := range urls {
			sqsClient.DeleteQueue(ctx, &awssqs.DeleteQueueInput{QueueUrl: aws.String(u)})
		}
	})
	s3Client := awss3.New(awss3.Options{Region: "eu-west-3", BaseEndpoint: aws.String(s3EP), UsePathStyle: true, Credentials: creds})
	bucket := run + "-files"
	if _, err := s3Client.CreateBucket(ctx, &awss3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}

	// The SDK reads its endpoints and credentials from the process
	// environment, the service its settings from getenv: both as the
	// stack sets them.
	for k, v := range map[string]string{
		"AWS_REGION": "eu-west-3", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
		"AWS_ENDPOINT_URL_DYNAMODB": dynamoEP, "AWS_ENDPOINT_URL_SQS": sqsEP, "AWS_ENDPOINT_URL_S3": s3EP,
		"AWS_ENDPOINT_URL_SESV2": ses.URL,
	} {
		t.Setenv(k, v)
	}
	env := map[string]string{
		"SVC_SESSION_SECRET": "0123456789abcdef0123456789abcdefXYZ", "SVC_BASE_URL": "https://api.example.test",
		"SVC_INVITATION_CODES": "code", "SVC_SIM_LATENCY_MS": "0", "SVC_BUCKET": bucket, "SVC_S3_PATH_STYLE": "1",
	}
	for name, physical := range tables {
		env[onaws.EnvName("TABLE", name)] = physical
	}
	for name, u := range urls {
		env[onaws.EnvName("QUEUE", name)] = u
	}
	return &awsRuntime{t: t, ctx: ctx, dynamo: dynamoEP, s3: s3EP, tables: tables, queues: urls, sqs: sqsClient,
		mails: mails, env: env, opts: opts}
}

func (rt *awsRuntime) getenv(k string) string { return rt.env[k] }

// handler builds a route group's handler as its Lambda does.
func (rt *awsRuntime) handler(group string) onaws.HTTPHandler {
	rt.t.Helper()
	h, err := onaws.Handler(rt.ctx, group, rt.getenv, rt.opts...)
	if err != nil {
		rt.t.Fatal(err)
	}
	return h
}

// call invokes h with an API Gateway request.
func (rt *awsRuntime) call(h onaws.HTTPHandler, method, path, body string, headers map[string]string) events.APIGatewayV2HTTPResponse {
	rt.t.Helper()
	if body != "" {
		headers["Content-Type"] = "application/json"
	}
	res, err := h(rt.ctx, event(method, path, "", body, headers, nil))
	if err != nil {
		rt.t.Fatal(err)
	}
	return res
}

// signup creates a verified account through api-auth, with the link of
// the mail SES sent, and returns the headers of a new key of it.
func (rt *awsRuntime) signup(email string) map[string]string {
	t := rt.t
	t.Helper()
	auth := rt.handler("api-auth")
	signup := rt.call(auth, "POST", "/api/auth/signup",
		`{"email":"`+email+`","password":"pass-w0rd!","invitation_code":"code","accept_responsibility":true}`, map[string]string{})
	if signup.StatusCode != 200 || len(signup.Cookies) != 1 {
		t.Fatalf("signup: %d %s", signup.StatusCode, signup.Body)
	}
	session := map[string]string{"Cookie": strings.SplitN(signup.Cookies[0], ";", 2)[0]}
	token := ""
	for token == "" {
		select {
		case raw := <-rt.mails:
			if i := strings.Index(string(raw), "/verify-email?token="); i >= 0 {
				token = strings.Fields(string(raw)[i+len("/verify-email?token="):])[0]
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no verification mail")
		}
	}
	if r := rt.call(auth, "POST", "/api/auth/email/verify", `{"token":"`+token+`"}`, map[string]string{}); r.StatusCode != 200 {
		t.Fatalf("verify: %d %s", r.StatusCode, r.Body)
	}
	kr := rt.call(auth, "POST", "/api/keys", `{"name":"worker"}`, session)
	var key struct{ Key string }
	if err := json.Unmarshal([]byte(kr.Body), &key); err != nil || key.Key == "" {
		t.Fatalf("key: %d %s", kr.StatusCode, kr.Body)
	}
	return map[string]string{"Authorization": "Bearer " + key.Key}
}

// receive receives up to 10 messages of a queue, with their receive counts.
func (rt *awsRuntime) receive(queueName string) []sqstypes.Message {
	rt.t.Helper()
	out, err := rt.sqs.ReceiveMessage(rt.ctx, &awssqs.ReceiveMessageInput{
		QueueUrl: aws.String(rt.queues[queueName]), MaxNumberOfMessages: 10, WaitTimeSeconds: 1,
		MessageSystemAttributeNames: []sqstypes.MessageSystemAttributeName{sqstypes.MessageSystemAttributeNameApproximateReceiveCount},
	})
	if err != nil {
		rt.t.Fatal(err)
	}
	return out.Messages
}

// sqsEvent is the event the SQS event source gives a function for m.
func sqsEvent(m sqstypes.Message) events.SQSEvent {
	attrs := map[string]string{}
	for k, v := range m.Attributes {
		attrs[k] = v
	}
	return events.SQSEvent{Records: []events.SQSMessage{{
		MessageId: aws.ToString(m.MessageId), ReceiptHandle: aws.ToString(m.ReceiptHandle),
		Body: aws.ToString(m.Body), Attributes: attrs, EventSource: "aws:sqs",
	}}}
}

// TestJobOnAWSRuntime runs a scrape job the way the stack runs it: the
// api-jobs handler creates it, and the worker-tasks handler (the code the
// worker Lambda runs) is fed the tasks queue's records as the SQS event
// source does, one record per invocation with its receive count, deleting
// what it did not report as failed. Tables on DynamoDB Local, the queues
// on the SQS emulator, the output on the S3 emulator; the download is the
// presigned S3 URL the API redirects to.
func TestJobOnAWSRuntime(t *testing.T) {
	rt := newAWSRuntime(t)
	ctx, sqsClient, urls, s3EP := rt.ctx, rt.sqs, rt.queues, rt.s3
	jobsFn := rt.handler("api-jobs")
	worker, err := onaws.WorkerHandler(ctx, "worker-tasks", rt.getenv)
	if err != nil {
		t.Fatal(err)
	}
	// The finalize (the merge into the CSV) and the JSON and XLSX made
	// from it run on the finalize queue's worker.
	finalizer, err := onaws.WorkerHandler(ctx, "job-finalizer", rt.getenv)
	if err != nil {
		t.Fatal(err)
	}
	handlers := map[string]onaws.SQSHandler{app.QueueTasks: worker, app.QueueFinalize: finalizer}
	call, bearer := rt.call, rt.signup("worker@example.org")

	cr := call(jobsFn, "POST", "/api/jobs", `{"queries":["boulangerie"],"zones":["Villeurbanne"]}`, bearer)
	var job struct {
		ID, Status        string
		ResultsCount      int  `json:"results_count"`
		DownloadAvailable bool `json:"download_available"`
	}
	if err := json.Unmarshal([]byte(cr.Body), &job); err != nil || cr.StatusCode != 200 || job.Status != "pending" {
		t.Fatalf("create: %d %s", cr.StatusCode, cr.Body)
	}

	// The event source: receive, invoke with one record, delete unless
	// the handler reported it failed.
	invocations := 0
	for end := time.Now().Add(90 * time.Second); job.Status != "done" && job.Status != "failed"; {
		if time.Now().After(end) {
			t.Fatalf("job still %s after %d invocations", job.Status, invocations)
		}
		for q, h := range handlers {
			for _, m := range rt.receive(q) {
				invocations++
				res, err := h(ctx, sqsEvent(m))
				if err != nil {
					t.Fatal(err)
				}
				if len(res.BatchItemFailures) > 0 {
					t.Errorf("record %s reported failed", aws.ToString(m.Body))
					continue
				}
				sqsClient.DeleteMessage(ctx, &awssqs.DeleteMessageInput{QueueUrl: aws.String(urls[q]), ReceiptHandle: m.ReceiptHandle})
			}
		}
		gr := call(jobsFn, "GET", "/api/jobs/"+job.ID, "", bearer)
		if err := json.Unmarshal([]byte(gr.Body), &job); err != nil {
			t.Fatal(err)
		}
	}
	if job.Status != "done" || job.ResultsCount == 0 || !job.DownloadAvailable {
		t.Fatalf("job %+v after %d invocations", job, invocations)
	}

	dl := call(jobsFn, "GET", "/api/jobs/"+job.ID+"/download", "", bearer)
	loc := dl.Headers["Location"]
	if dl.StatusCode != http.StatusFound || !strings.HasPrefix(loc, s3EP) {
		t.Fatalf("download: %d %v", dl.StatusCode, dl.Headers)
	}
	res, err := http.Get(loc)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	r := csv.NewReader(strings.NewReader(strings.TrimPrefix(string(body), "\ufeff")))
	r.Comma = ';'
	rows, err := r.ReadAll()
	if err != nil || res.StatusCode != 200 || !strings.HasPrefix(string(body), "\ufeffnom;site_web;telephone;") || len(rows) != job.ResultsCount+1 {
		t.Fatalf("presigned download: %d, %d rows for %d results (%v): %.200s", res.StatusCode, len(rows), job.ResultsCount, err, body)
	}
	if q := call(jobsFn, "GET", "/api/jobs/queue", "", bearer); q.StatusCode != 200 || !strings.Contains(q.Body, `"running":null`) {
		t.Errorf("queue after the job: %d %s", q.StatusCode, q.Body)
	}
}
