// Package sqs is the AWS driver of the queue port (queue.Queue) on Amazon
// SQS standard queues, with the semantics checked by queue/queuetest.
//
// Mapping: Send is SendMessageBatch (split into several requests when the
// bodies exceed SQS's per-request payload), Receive is ReceiveMessage with
// the ApproximateReceiveCount and SentTimestamp system attributes, Delete is
// DeleteMessage, ChangeVisibility is ChangeMessageVisibility and Depth reads
// the ApproximateNumberOf* queue attributes. Requests are checked against the
// port's rules before any call, so that a request bolt refuses is refused
// here too, and SQS's errors are mapped to the port's.
//
// The dead-letter move is SQS's own redrive policy, which the CDK app sets
// in production and CreateQueues sets for tests and emulators.
//
// The SDK omits zero-valued parameters: a Receive with no wait and a Send
// with no delay therefore take the queue's ReceiveMessageWaitTimeSeconds and
// DelaySeconds attributes, which must stay at their default of 0 (the CDK app
// and CreateQueues leave them so).
package sqs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/prospectdata/svc/shared/queue"
)

// Queue is a set of SQS queues behind the port. It is safe for concurrent
// use, as the SDK client is.
type Queue struct {
	client *awssqs.Client
	urls   map[string]string // configured name -> queue URL ("" when none was given)
}

var _ queue.Queue = (*Queue)(nil)

// New returns the driver for the configured queues, urls mapping each name to
// its queue URL (on AWS from the environment the CDK app sets). A configured
// queue without a URL, or a name not configured, is reported as
// queue.ErrUnknownQueue by every call that names it: New does no I/O, and a
// wiring mistake shows on first use with the queue's name.
func New(client *awssqs.Client, urls map[string]string, cfgs []queue.Config) *Queue {
	q := &Queue{client: client, urls: make(map[string]string, len(cfgs))}
	for _, c := range cfgs {
		q.urls[c.Name] = urls[c.Name]
	}
	return q
}

func (q *Queue) url(op, name string) (*string, error) {
	u, ok := q.urls[name]
	if !ok {
		return nil, fmt.Errorf("queue/sqs: %s %s: %w", op, name, queue.ErrUnknownQueue)
	}
	if u == "" {
		return nil, fmt.Errorf("queue/sqs: %s %s: %w: no queue URL configured", op, name, queue.ErrUnknownQueue)
	}
	return aws.String(u), nil
}

// maxRequestBytes bounds the bodies of one SendMessageBatch. SQS limited a
// whole batch to 256 KiB until 2025 and allows 1 MiB since; the lower figure
// works on both, and costs extra requests only for batches of large bodies.
const maxRequestBytes = 256 * 1024

// Send sends the batch in as few SendMessageBatch requests as the payload
// limit allows. A failed request or entry fails the call; the requests before
// it have been sent (see queue.Queue).
func (q *Queue) Send(ctx context.Context, name string, msgs ...queue.Message) ([]string, error) {
	u, err := q.url("send to", name)
	if err != nil {
		return nil, err
	}
	if err := queue.CheckSend(msgs); err != nil {
		return nil, fmt.Errorf("queue/sqs: send to %s: %w", name, err)
	}
	ids := make([]string, len(msgs))
	for start := 0; start < len(msgs); {
		end, size := start, 0
		for end < len(msgs) && (end == start || size+len(msgs[end].Body) <= maxRequestBytes) {
			size += len(msgs[end].Body)
			end++
		}
		if err := q.sendBatch(ctx, u, msgs[start:end], ids[start:end]); err != nil {
			return nil, fmt.Errorf("queue/sqs: send to %s: %w", name, err)
		}
		start = end
	}
	return ids, nil
}

// sendBatch sends one request and fills ids from its answer.
func (q *Queue) sendBatch(ctx context.Context, u *string, msgs []queue.Message, ids []string) error {
	entries := make([]types.SendMessageBatchRequestEntry, len(msgs))
	for i, m := range msgs {
		entries[i] = types.SendMessageBatchRequestEntry{
			Id:           aws.String(strconv.Itoa(i)), // index in msgs: maps the answer back
			MessageBody:  aws.String(string(m.Body)),
			DelaySeconds: seconds(m.Delay),
		}
	}
	out, err := q.client.SendMessageBatch(ctx, &awssqs.SendMessageBatchInput{QueueUrl: u, Entries: entries})
	if err != nil {
		return mapError(err)
	}
	var errs []error
	for _, f := range out.Failed {
		code, msg := aws.ToString(f.Code), aws.ToString(f.Message)
		err := fmt.Errorf("entry %s: %s: %s", aws.ToString(f.Id), code, msg)
		if f.SenderFault && (code == "InvalidMessageContents" || code == "InvalidParameterValue") {
			err = fmt.Errorf("%w: %w", queue.ErrInvalid, err)
		}
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, s := range out.Successful {
		i, err := strconv.Atoi(aws.ToString(s.Id))
		if err != nil || i < 0 || i >= len(ids) {
			return fmt.Errorf("answer names unknown entry %q", aws.ToString(s.Id))
		}
		ids[i] = aws.ToString(s.MessageId)
	}
	for i, id := range ids {
		if id == "" {
			return fmt.Errorf("entry %d neither sent nor failed in SQS's answer", i)
		}
	}
	return nil
}

// Receive is one ReceiveMessage call.
func (q *Queue) Receive(ctx context.Context, name string, limit int, wait, visibility time.Duration) ([]queue.Delivery, error) {
	u, err := q.url("receive from", name)
	if err != nil {
		return nil, err
	}
	if err := queue.CheckReceive(limit, wait, visibility); err != nil {
		return nil, fmt.Errorf("queue/sqs: receive from %s: %w", name, err)
	}
	out, err := q.client.ReceiveMessage(ctx, &awssqs.ReceiveMessageInput{
		QueueUrl:            u,
		MaxNumberOfMessages: int32(limit),
		WaitTimeSeconds:     seconds(wait),
		VisibilityTimeout:   seconds(visibility), // 0 is omitted: the queue's timeout
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{
			types.MessageSystemAttributeNameApproximateReceiveCount,
			types.MessageSystemAttributeNameSentTimestamp,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("queue/sqs: receive from %s: %w", name, mapError(err))
	}
	ds := make([]queue.Delivery, len(out.Messages))
	for i, m := range out.Messages {
		ds[i] = queue.Delivery{
			ID:      aws.ToString(m.MessageId),
			Body:    []byte(aws.ToString(m.Body)),
			Receipt: aws.ToString(m.ReceiptHandle),
			// Requested above, so always present on SQS. Were one
			// missing, failing the receive would strand the messages in
			// flight until their timeout: 1 (a delivery happened) and
			// the zero time are better answers.
			ReceiveCount: 1,
		}
		if n, err := strconv.Atoi(m.Attributes[string(types.MessageSystemAttributeNameApproximateReceiveCount)]); err == nil {
			ds[i].ReceiveCount = n
		}
		if ms, err := strconv.ParseInt(m.Attributes[string(types.MessageSystemAttributeNameSentTimestamp)], 10, 64); err == nil {
			ds[i].SentAt = time.UnixMilli(ms)
		}
	}
	return ds, nil
}

// Delete is DeleteMessage. SQS accepts a stale receipt and may or may not
// delete the message; queue's package comment allows it.
func (q *Queue) Delete(ctx context.Context, name, receipt string) error {
	u, err := q.url("delete from", name)
	if err != nil {
		return err
	}
	if receipt == "" {
		return fmt.Errorf("queue/sqs: delete from %s: %w: empty receipt", name, queue.ErrInvalid)
	}
	if _, err := q.client.DeleteMessage(ctx, &awssqs.DeleteMessageInput{QueueUrl: u, ReceiptHandle: aws.String(receipt)}); err != nil {
		return fmt.Errorf("queue/sqs: delete from %s: %w", name, mapError(err))
	}
	return nil
}

// ChangeVisibility is ChangeMessageVisibility.
func (q *Queue) ChangeVisibility(ctx context.Context, name, receipt string, d time.Duration) error {
	u, err := q.url("change visibility in", name)
	if err != nil {
		return err
	}
	switch {
	case receipt == "":
		return fmt.Errorf("queue/sqs: change visibility in %s: %w: empty receipt", name, queue.ErrInvalid)
	case d < 0 || d > queue.MaxVisibility:
		return fmt.Errorf("queue/sqs: change visibility in %s: %w: timeout %v outside 0..%v", name, queue.ErrInvalid, d, queue.MaxVisibility)
	}
	_, err = q.client.ChangeMessageVisibility(ctx, &awssqs.ChangeMessageVisibilityInput{
		QueueUrl: u, ReceiptHandle: aws.String(receipt), VisibilityTimeout: seconds(d),
	})
	if err != nil {
		return fmt.Errorf("queue/sqs: change visibility in %s: %w", name, mapError(err))
	}
	return nil
}

// Depth reads SQS's approximate counters: they lag the queue by up to a
// minute on AWS, which is fine for what Depth serves (metrics, back-off).
func (q *Queue) Depth(ctx context.Context, name string) (visible, inFlight, delayed int, err error) {
	u, err := q.url("depth of", name)
	if err != nil {
		return 0, 0, 0, err
	}
	// In the order of Depth's results.
	attrs := []types.QueueAttributeName{
		types.QueueAttributeNameApproximateNumberOfMessages,
		types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		types.QueueAttributeNameApproximateNumberOfMessagesDelayed,
	}
	out, err := q.client.GetQueueAttributes(ctx, &awssqs.GetQueueAttributesInput{QueueUrl: u, AttributeNames: attrs})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("queue/sqs: depth of %s: %w", name, mapError(err))
	}
	var n [3]int
	for i, a := range attrs {
		if n[i], err = strconv.Atoi(out.Attributes[string(a)]); err != nil {
			return 0, 0, 0, fmt.Errorf("queue/sqs: depth of %s: attribute %s = %q: %w", name, a, out.Attributes[string(a)], err)
		}
	}
	return n[0], n[1], n[2], nil
}

// mapError gives SQS's errors the port's meaning, keeping the SDK error in
// the chain for logs and errors.As.
func mapError(err error) error {
	var (
		noQueue   *types.QueueDoesNotExist
		badHandle *types.ReceiptHandleIsInvalid
		notFlight *types.MessageNotInflight
		contents  *types.InvalidMessageContents
		tooMany   *types.TooManyEntriesInBatchRequest
		empty     *types.EmptyBatchRequest
		tooLong   *types.BatchRequestTooLong
	)
	switch {
	case errors.As(err, &noQueue):
		return fmt.Errorf("%w: %w", queue.ErrUnknownQueue, err)
	case errors.As(err, &badHandle), errors.As(err, &notFlight):
		return fmt.Errorf("%w: %w", queue.ErrReceiptExpired, err)
	case errors.As(err, &contents), errors.As(err, &tooMany), errors.As(err, &empty), errors.As(err, &tooLong):
		return fmt.Errorf("%w: %w", queue.ErrInvalid, err)
	}
	var api smithy.APIError
	if errors.As(err, &api) && (api.ErrorCode() == "InvalidParameterValue" || api.ErrorCode() == "AWS.SimpleQueueService.InvalidParameterValue") {
		// SQS answers a receipt of a message that is gone or no longer
		// in flight with InvalidParameterValue rather than a code of
		// its own ("Value ... for parameter ReceiptHandle is invalid.
		// Reason: Message does not exist or is not available for
		// visibility timeout change", "... The receipt handle has
		// expired").
		if m := strings.ToLower(api.ErrorMessage()); strings.Contains(m, "receipthandle") || strings.Contains(m, "receipt handle") {
			return fmt.Errorf("%w: %w", queue.ErrReceiptExpired, err)
		}
		return fmt.Errorf("%w: %w", queue.ErrInvalid, err)
	}
	return err
}

// CreateQueues creates the configured queues named prefix+name, each
// dead-letter queue before the queues that redrive to it, with the
// visibility timeout and redrive policy of its config: what the CDK app does
// in production, for tests and local emulators. It returns each config
// name's queue URL, for New. Creating a queue that exists with the same
// attributes is a no-op on SQS, so it may run again.
func CreateQueues(ctx context.Context, client *awssqs.Client, cfgs []queue.Config, prefix string) (map[string]string, error) {
	byName, err := checkConfigs(cfgs)
	if err != nil {
		return nil, fmt.Errorf("queue/sqs: create queues: %w", err)
	}
	urls := make(map[string]string, len(cfgs))
	arns := make(map[string]string, len(cfgs))
	// create makes c after its dead-letter queue; checkConfigs has ruled
	// out cycles, so the recursion ends.
	var create func(c queue.Config) error
	create = func(c queue.Config) error {
		if urls[c.Name] != "" {
			return nil
		}
		attrs := map[string]string{}
		if c.VisibilityTimeout > 0 {
			attrs[string(types.QueueAttributeNameVisibilityTimeout)] = strconv.Itoa(int(c.VisibilityTimeout / time.Second))
		}
		if c.DeadLetter != "" {
			if err := create(byName[c.DeadLetter]); err != nil {
				return err
			}
			policy, err := json.Marshal(struct {
				Target string `json:"deadLetterTargetArn"`
				Max    int    `json:"maxReceiveCount"`
			}{arns[c.DeadLetter], c.MaxReceives})
			if err != nil {
				return fmt.Errorf("queue %s: redrive policy: %w", c.Name, err)
			}
			attrs[string(types.QueueAttributeNameRedrivePolicy)] = string(policy)
		}
		out, err := client.CreateQueue(ctx, &awssqs.CreateQueueInput{QueueName: aws.String(prefix + c.Name), Attributes: attrs})
		if err != nil {
			return fmt.Errorf("create %s%s: %w", prefix, c.Name, mapError(err))
		}
		attrOut, err := client.GetQueueAttributes(ctx, &awssqs.GetQueueAttributesInput{
			QueueUrl: out.QueueUrl, AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn},
		})
		if err != nil {
			return fmt.Errorf("read the ARN of %s%s: %w", prefix, c.Name, mapError(err))
		}
		arn := attrOut.Attributes[string(types.QueueAttributeNameQueueArn)]
		if arn == "" {
			return fmt.Errorf("queue %s%s has no QueueArn attribute", prefix, c.Name)
		}
		urls[c.Name], arns[c.Name] = aws.ToString(out.QueueUrl), arn
		return nil
	}
	for _, c := range cfgs {
		if err := create(c); err != nil {
			return nil, fmt.Errorf("queue/sqs: create queues: %w", err)
		}
	}
	return urls, nil
}

// checkConfigs applies the rules of queue/bolt's Open and of the CDK app
// (infra/spec.go) before any queue is created, so that a bad set creates
// nothing. It returns the configs by name.
func checkConfigs(cfgs []queue.Config) (map[string]queue.Config, error) {
	byName := make(map[string]queue.Config, len(cfgs))
	for _, c := range cfgs {
		switch {
		case c.Name == "":
			return nil, fmt.Errorf("%w: queue without a name", queue.ErrInvalid)
		case byName[c.Name].Name != "":
			return nil, fmt.Errorf("%w: queue %s declared twice", queue.ErrInvalid, c.Name)
		case c.VisibilityTimeout < 0 || c.VisibilityTimeout > queue.MaxVisibility || c.VisibilityTimeout%time.Second != 0:
			return nil, fmt.Errorf("%w: queue %s: visibility timeout %v is not whole seconds within %v", queue.ErrInvalid, c.Name, c.VisibilityTimeout, queue.MaxVisibility)
		}
		byName[c.Name] = c
	}
	for _, c := range cfgs {
		if c.DeadLetter == "" {
			continue
		}
		if _, ok := byName[c.DeadLetter]; !ok || c.DeadLetter == c.Name {
			return nil, fmt.Errorf("%w: queue %s: dead-letter queue %q is not another configured queue", queue.ErrInvalid, c.Name, c.DeadLetter)
		}
		if c.MaxReceives < 1 || c.MaxReceives > 1000 {
			return nil, fmt.Errorf("%w: queue %s: MaxReceives %d is outside SQS's 1..1000", queue.ErrInvalid, c.Name, c.MaxReceives)
		}
		// Follow the chain: a cycle would never finish creating.
		seen := map[string]bool{c.Name: true}
		for d := c.DeadLetter; d != ""; d = byName[d].DeadLetter {
			if seen[d] {
				return nil, fmt.Errorf("%w: queue %s: dead-letter queues form a cycle", queue.ErrInvalid, c.Name)
			}
			seen[d] = true
		}
	}
	return byName, nil
}

// seconds converts to SQS's whole seconds, rounding up like the bolt driver
// (queue's package comment); the callers have bounded d.
func seconds(d time.Duration) int32 {
	return int32((d + time.Second - 1) / time.Second)
}
