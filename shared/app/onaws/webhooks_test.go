package onaws_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	streamtypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
	evlog "github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/netguard"
)

// streamBatch reads the events table's stream on DynamoDB Local from its
// start and returns its INSERT records as the event source mapping hands
// them to the webhook-sender (its filter keeps only INSERT).
func streamBatch(t *testing.T, rt *awsRuntime) events.DynamoDBEvent {
	t.Helper()
	creds := credentials.NewStaticCredentialsProvider("test", "test", "")
	db := dynamodb.New(dynamodb.Options{Region: "eu-west-3", BaseEndpoint: aws.String(rt.dynamo), Credentials: creds})
	desc, err := db.DescribeTable(rt.ctx, &dynamodb.DescribeTableInput{TableName: aws.String(rt.tables[evlog.Table])})
	if err != nil || desc.Table.LatestStreamArn == nil {
		t.Fatalf("the events table has no stream: %v", err)
	}
	sc := dynamodbstreams.New(dynamodbstreams.Options{Region: "eu-west-3", BaseEndpoint: aws.String(rt.dynamo), Credentials: creds})
	sd, err := sc.DescribeStream(rt.ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: desc.Table.LatestStreamArn})
	if err != nil {
		t.Fatal(err)
	}
	var ev events.DynamoDBEvent
	for _, sh := range sd.StreamDescription.Shards {
		it, err := sc.GetShardIterator(rt.ctx, &dynamodbstreams.GetShardIteratorInput{
			StreamArn: desc.Table.LatestStreamArn, ShardId: sh.ShardId, ShardIteratorType: streamtypes.ShardIteratorTypeTrimHorizon,
		})
		if err != nil {
			t.Fatal(err)
		}
		for iter := it.ShardIterator; iter != nil; {
			out, err := sc.GetRecords(rt.ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: iter})
			if err != nil {
				t.Fatal(err)
			}
			if len(out.Records) == 0 {
				break // the open shard's end, for now
			}
			for _, r := range out.Records {
				if r.EventName != streamtypes.OperationTypeInsert {
					continue
				}
				ev.Records = append(ev.Records, events.DynamoDBEventRecord{
					EventID: aws.ToString(r.EventID), EventName: string(r.EventName), EventSource: "aws:dynamodb",
					EventVersion: aws.ToString(r.EventVersion), AWSRegion: "eu-west-3",
					EventSourceArn: aws.ToString(desc.Table.LatestStreamArn),
					Change: events.DynamoDBStreamRecord{
						Keys: lambdaImage(t, r.Dynamodb.Keys), NewImage: lambdaImage(t, r.Dynamodb.NewImage),
						SequenceNumber: aws.ToString(r.Dynamodb.SequenceNumber), StreamViewType: string(r.Dynamodb.StreamViewType),
					},
				})
			}
			iter = out.NextShardIterator
		}
	}
	return ev
}

// lambdaImage is a stream image in the Lambda event's form.
func lambdaImage(t *testing.T, img map[string]streamtypes.AttributeValue) map[string]events.DynamoDBAttributeValue {
	out := map[string]events.DynamoDBAttributeValue{}
	for k, v := range img {
		out[k] = lambdaValue(t, v)
	}
	return out
}

func lambdaValue(t *testing.T, v streamtypes.AttributeValue) events.DynamoDBAttributeValue {
	switch v := v.(type) {
	case *streamtypes.AttributeValueMemberS:
		return events.NewStringAttribute(v.Value)
	case *streamtypes.AttributeValueMemberN:
		return events.NewNumberAttribute(v.Value)
	case *streamtypes.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(v.Value)
	case *streamtypes.AttributeValueMemberNULL:
		return events.NewNullAttribute()
	case *streamtypes.AttributeValueMemberB:
		return events.NewBinaryAttribute(v.Value)
	case *streamtypes.AttributeValueMemberSS:
		return events.NewStringSetAttribute(v.Value)
	case *streamtypes.AttributeValueMemberL:
		var l []events.DynamoDBAttributeValue
		for _, x := range v.Value {
			l = append(l, lambdaValue(t, x))
		}
		return events.NewListAttribute(l)
	case *streamtypes.AttributeValueMemberM:
		return events.NewMapAttribute(lambdaImage(t, v.Value))
	}
	t.Fatalf("stream value %T", v)
	return events.DynamoDBAttributeValue{}
}

// invoke calls a raw handler with ev as the Lambda service would, and
// decodes its answer into out.
func invoke(t *testing.T, rt *awsRuntime, h onaws.RawHandler, ev, out any) {
	t.Helper()
	raw, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	res, err := h(rt.ctx, raw)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatal(err)
	}
}

// TestWebhookSenderOnAWSRuntime: the webhook-sender Lambda's code over the
// emulators. A job cancelled through api-jobs writes its event to the
// events table on DynamoDB Local; the table's stream, read back and handed
// to the handler as the event source mapping does, becomes a delivery on
// the SQS deliveries queue; that message, handed over as the SQS event
// source does, becomes one signed POST to a TLS receiver. A stream batch
// given twice (the stream delivers at least once) posts nothing more, and
// a record that cannot be read is reported failed with those after it.
func TestWebhookSenderOnAWSRuntime(t *testing.T) {
	var mu sync.Mutex
	var hits []*http.Request
	var bodies [][]byte
	recv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hits, bodies = append(hits, r), append(bodies, b)
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer recv.Close()
	pool := recv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	guard := netguard.New(netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")), netguard.WithRootCAs(pool))
	rt := newAWSRuntime(t, onaws.WithGuard(guard))
	bearer := rt.signup("hooks@example.org")
	eventsFn, jobsFn := rt.handler("api-events"), rt.handler("api-jobs")
	sender, err := onaws.WebhookHandler(rt.ctx, rt.getenv, onaws.WithGuard(guard))
	if err != nil {
		t.Fatal(err)
	}

	cr := rt.call(eventsFn, "POST", "/api/webhooks", `{"url":"`+recv.URL+`/aws","events":["job.cancelled"]}`, bearer)
	var hook struct {
		ID     int64
		Secret string
	}
	if err := json.Unmarshal([]byte(cr.Body), &hook); err != nil || cr.StatusCode != 201 {
		t.Fatalf("create: %d %s", cr.StatusCode, cr.Body)
	}
	jr := rt.call(jobsFn, "POST", "/api/jobs", `{"queries":["boulangerie"],"zones":["Villeurbanne"]}`, bearer)
	var job struct{ ID string }
	json.Unmarshal([]byte(jr.Body), &job)
	if r := rt.call(jobsFn, "POST", "/api/jobs/"+job.ID+"/cancel", "", bearer); r.StatusCode != 200 {
		t.Fatalf("cancel: %d %s", r.StatusCode, r.Body)
	}

	batch := streamBatch(t, rt)
	if len(batch.Records) == 0 {
		t.Fatal("no INSERT on the events table's stream")
	}
	var sres events.DynamoDBEventResponse
	invoke(t, rt, sender, batch, &sres)
	if len(sres.BatchItemFailures) != 0 {
		t.Fatalf("stream batch failures %+v", sres.BatchItemFailures)
	}
	drain := func() int {
		n := 0
		for range 3 { // until the queue stays empty for a few polls
			for _, m := range rt.receive(app.QueueDeliveries) {
				n++
				var qres events.SQSEventResponse
				invoke(t, rt, sender, sqsEvent(m), &qres)
				if len(qres.BatchItemFailures) != 0 {
					t.Errorf("delivery %s reported failed", aws.ToString(m.Body))
					continue
				}
				rt.sqs.DeleteMessage(rt.ctx, &awssqs.DeleteMessageInput{QueueUrl: aws.String(rt.queues[app.QueueDeliveries]), ReceiptHandle: m.ReceiptHandle})
			}
		}
		return n
	}
	if n := drain(); n != 1 {
		t.Errorf("%d delivery messages, want 1", n)
	}
	mu.Lock()
	if len(hits) != 1 {
		t.Fatalf("the receiver got %d posts", len(hits))
	}
	h, body := hits[0], bodies[0]
	mu.Unlock()
	m := hmac.New(sha256.New, []byte(hook.Secret))
	m.Write(body)
	if "sha256="+hex.EncodeToString(m.Sum(nil)) != h.Header.Get("X-Svc-Signature") || h.Header.Get("X-Svc-Event") != "job.cancelled" ||
		h.Header.Get("User-Agent") != "svc-webhooks/1.0" || !strings.Contains(string(body), `"id":"`+job.ID+`"`) {
		t.Errorf("post %v %s", h.Header, body)
	}

	// The stream may hand the same batch again: nothing more is posted.
	invoke(t, rt, sender, batch, &sres)
	if len(sres.BatchItemFailures) != 0 {
		t.Fatalf("second batch failures %+v", sres.BatchItemFailures)
	}
	drain()
	mu.Lock()
	if len(hits) != 1 {
		t.Errorf("after the batch came again the receiver got %d posts", len(hits))
	}
	mu.Unlock()

	dr := rt.call(eventsFn, "GET", "/api/webhooks/"+strconv.FormatInt(hook.ID, 10)+"/deliveries", "", bearer)
	var ds struct {
		Deliveries []struct {
			Status   string
			Attempts int
			HTTPCode *int `json:"http_code"`
		}
	}
	if err := json.Unmarshal([]byte(dr.Body), &ds); err != nil || len(ds.Deliveries) != 1 || ds.Deliveries[0].Status != "delivered" ||
		ds.Deliveries[0].HTTPCode == nil || *ds.Deliveries[0].HTTPCode != 200 {
		t.Errorf("deliveries: %d %s", dr.StatusCode, dr.Body)
	}

	// A record that cannot be read fails, and so do those after it: the
	// stream resumes from the first failure.
	bad := batch.Records[0]
	bad.Change.SequenceNumber = "bad"
	bad.Change.NewImage = map[string]events.DynamoDBAttributeValue{"pk": events.NewNumberAttribute("not-a-number")}
	after := batch.Records[0]
	after.Change.SequenceNumber = "after"
	invoke(t, rt, sender, events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{batch.Records[0], bad, after}}, &sres)
	var failed []string
	for _, f := range sres.BatchItemFailures {
		failed = append(failed, f.ItemIdentifier)
	}
	if strings.Join(failed, ",") != "bad,after" {
		t.Errorf("failures %v, want bad,after", failed)
	}
}
