package onaws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"

	"github.com/aws/aws-lambda-go/events"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/store"
)

// RawHandler is a Lambda handler over the raw event, for a function fed by
// several event sources.
type RawHandler func(context.Context, json.RawMessage) (any, error)

// WebhookHandler builds the handler of the webhook-sender worker, fed by
// two event sources: the events table's DynamoDB stream, whose new event
// items it fans out into deliveries, and the deliveries queue, whose
// messages it posts. Both report failed records (ReportBatchItemFailures):
// a stream batch resumes from its first failed record, a queue message
// comes back after its visibility timeout.
func WebhookHandler(ctx context.Context, getenv func(string) string, opts ...Option) (RawHandler, error) {
	a, err := build(ctx, getenv, slog.New(slog.NewJSONHandler(os.Stdout, nil)).With("worker", "webhook-sender"), opts, api.OnlyGroup("api-events"))
	if err != nil {
		return nil, err
	}
	if getenv(EnvName("QUEUE", app.QueueDeliveries)) == "" {
		return nil, errors.New("webhook-sender without its queue: SVC_QUEUE_DELIVERIES_URL is required")
	}
	wh := a.Webhooks
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var probe struct {
			Records []struct {
				EventSource string `json:"eventSource"`
			} `json:"Records"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil || len(probe.Records) == 0 {
			return nil, fmt.Errorf("webhook-sender: not a stream or queue event: %.200s", raw)
		}
		if probe.Records[0].EventSource == "aws:dynamodb" {
			var ev events.DynamoDBEvent
			if err := json.Unmarshal(raw, &ev); err != nil {
				return nil, fmt.Errorf("webhook-sender: stream event: %w", err)
			}
			var out events.DynamoDBEventResponse
			for i, rec := range ev.Records {
				if rec.EventName != "INSERT" || rec.Change.NewImage == nil {
					continue
				}
				it, err := itemOf(rec.Change.NewImage)
				if err == nil {
					err = wh.FanOutChange(ctx, it)
				}
				if err != nil {
					// The stream resumes from this record: the records
					// after it are read again too, so stop here.
					slog.ErrorContext(ctx, "webhook fan-out failed", "record", rec.Change.SequenceNumber, "err", err)
					for _, r := range ev.Records[i:] {
						out.BatchItemFailures = append(out.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
					}
					break
				}
			}
			return out, nil
		}
		var ev events.SQSEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return nil, fmt.Errorf("webhook-sender: queue event: %w", err)
		}
		var out events.SQSEventResponse
		for _, rec := range ev.Records {
			if err := wh.Handle(ctx, []byte(rec.Body)); err != nil {
				out.BatchItemFailures = append(out.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
			}
		}
		return out, nil
	}, nil
}

// WebhookMain is the whole main of the webhook-sender Lambda.
func WebhookMain() {
	h, err := WebhookHandler(context.Background(), os.Getenv)
	start("webhook-sender", h, err)
}

// itemOf converts a stream image to a store item, with the store's value
// rules (integral numbers as int64).
func itemOf(img map[string]events.DynamoDBAttributeValue) (store.Item, error) {
	it := store.Item{}
	for k, v := range img {
		x, err := valueOf(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
		it[k] = x
	}
	return it, nil
}

func valueOf(v events.DynamoDBAttributeValue) (any, error) {
	switch v.DataType() {
	case events.DataTypeString:
		return v.String(), nil
	case events.DataTypeNumber:
		return number(v.Number())
	case events.DataTypeBoolean:
		return v.Boolean(), nil
	case events.DataTypeNull:
		return nil, nil
	case events.DataTypeBinary:
		return v.Binary(), nil
	case events.DataTypeStringSet:
		return v.StringSet(), nil
	case events.DataTypeList:
		out := []any{}
		for _, e := range v.List() {
			x, err := valueOf(e)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case events.DataTypeMap:
		return itemOfMap(v.Map())
	case events.DataTypeNumberSet:
		out := []any{}
		for _, n := range v.NumberSet() {
			x, err := number(n)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	case events.DataTypeBinarySet:
		out := []any{}
		for _, b := range v.BinarySet() {
			out = append(out, b)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown attribute type %v", v.DataType())
}

func itemOfMap(m map[string]events.DynamoDBAttributeValue) (map[string]any, error) {
	it, err := itemOf(m)
	return map[string]any(it), err
}

func number(s string) (any, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, fmt.Errorf("number %q: %w", s, err)
	}
	return f, nil
}
