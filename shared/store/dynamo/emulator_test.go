package dynamo_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// txEmulator stands in for TransactWriteItems on an emulator that lacks it.
// dynalite 4.0.0, the emulator `make test` runs, implements neither
// TransactWriteItems nor UpdateTimeToLive. The driver's transactions are
// real TransactWriteItems requests; this http.RoundTripper forwards each to
// the emulator and, only when the emulator answers UnknownOperationException,
// carries the transaction out with the single-item calls it does have:
//
//  1. read the current item of every operation (GetItem, consistent);
//  2. evaluate every condition on the emulator itself, by rewriting the
//     item unchanged with the condition (PutItem) or, for an absent item,
//     deleting it with the condition (DeleteItem, a no-op either way);
//  3. if one failed, answer TransactionCanceledException with one
//     cancellation reason per operation, as DynamoDB does;
//  4. apply the writes without their conditions, restoring the items read
//     in step 1 if one is refused (ValidationError reason).
//
// So the emulator, not this code, evaluates the driver's condition and
// update expressions. Transactions are serialised among themselves but not
// isolated from single-item writes: the contract suite does not race them.
// Against an emulator that has TransactWriteItems (DynamoDB Local), every
// request passes through untouched.
type txEmulator struct {
	endpoint string
	next     http.RoundTripper

	mu      sync.Mutex          // one emulated transaction at a time
	keyAttr map[string][]string // table -> key attribute names, under mu
}

func newTxEmulator(endpoint string) *txEmulator {
	return &txEmulator{endpoint: endpoint, next: http.DefaultTransport, keyAttr: map[string][]string{}}
}

const targetPrefix = "DynamoDB_20120810."

func (x *txEmulator) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get("X-Amz-Target") != targetPrefix+"TransactWriteItems" {
		return x.next.RoundTrip(req)
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	fwd := req.Clone(req.Context())
	fwd.Body = io.NopCloser(bytes.NewReader(body))
	fwd.ContentLength = int64(len(body))
	resp, err := x.next.RoundTrip(fwd)
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(respBody, []byte("UnknownOperationException")) {
		resp.Body = io.NopCloser(bytes.NewReader(respBody))
		return resp, nil
	}
	status, out := x.transact(req, body)
	return &http.Response{
		StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body:          io.NopCloser(bytes.NewReader(out)),
		ContentLength: int64(len(out)),
		Request:       req,
	}, nil
}

// jsonObject is a decoded JSON request or response.
type jsonObject = map[string]any

// call sends one single-item request to the emulator, signed with the
// original request's headers (dynalite checks their shape, not the
// signature).
func (x *txEmulator) call(orig *http.Request, op string, in jsonObject) (int, jsonObject, []byte, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return 0, nil, nil, err
	}
	req, err := http.NewRequestWithContext(orig.Context(), http.MethodPost, x.endpoint, bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	for _, h := range []string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token"} {
		if v := orig.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", targetPrefix+op)
	resp, err := x.next.RoundTrip(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, nil, err
	}
	var out jsonObject
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			return 0, nil, nil, fmt.Errorf("%s response %q: %w", op, raw, err)
		}
	}
	return resp.StatusCode, out, raw, nil
}

// errorType is the short error code of an error response.
func errorType(out jsonObject) string {
	t, _ := out["__type"].(string)
	return t[strings.LastIndexByte(t, '#')+1:]
}

func errorMessage(out jsonObject) string {
	for _, k := range []string{"message", "Message"} {
		if m, ok := out[k].(string); ok {
			return m
		}
	}
	return ""
}

// keyAttrs returns the key attribute names of a table.
func (x *txEmulator) keyAttrs(orig *http.Request, table string) ([]string, error) {
	if k, ok := x.keyAttr[table]; ok {
		return k, nil
	}
	status, out, raw, err := x.call(orig, "DescribeTable", jsonObject{"TableName": table})
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("describe %s: %s", table, raw)
	}
	var names []string
	desc, _ := out["Table"].(jsonObject)
	ks, _ := desc["KeySchema"].([]any)
	for _, e := range ks {
		if m, ok := e.(jsonObject); ok {
			names = append(names, m["AttributeName"].(string))
		}
	}
	x.keyAttr[table] = names
	return names, nil
}

var placeholder = regexp.MustCompile(`[#:][A-Za-z0-9_]+`)

// withExpressions copies the names and values of op that expression uses:
// DynamoDB refuses unused ones, and an operation's maps also serve the
// expression left out.
func withExpressions(in, op jsonObject, kind, expression string) jsonObject {
	if expression == "" {
		return in
	}
	in[kind] = expression
	names, _ := op["ExpressionAttributeNames"].(jsonObject)
	values, _ := op["ExpressionAttributeValues"].(jsonObject)
	usedNames, usedValues := jsonObject{}, jsonObject{}
	for _, p := range placeholder.FindAllString(expression, -1) {
		if v, ok := names[p]; ok {
			usedNames[p] = v
		}
		if v, ok := values[p]; ok {
			usedValues[p] = v
		}
	}
	if len(usedNames) > 0 {
		in["ExpressionAttributeNames"] = usedNames
	}
	if len(usedValues) > 0 {
		in["ExpressionAttributeValues"] = usedValues
	}
	return in
}

func errorBody(typ, msg string, extra jsonObject) []byte {
	out := jsonObject{"__type": "com.amazonaws.dynamodb.v20120810#" + typ, "message": msg}
	for k, v := range extra {
		out[k] = v
	}
	b, _ := json.Marshal(out)
	return b
}

type txOp struct {
	kind  string // Put, Update, Delete, ConditionCheck
	op    jsonObject
	table string
	key   jsonObject
	old   jsonObject // nil when absent
}

func (x *txEmulator) transact(orig *http.Request, body []byte) (int, []byte) {
	x.mu.Lock()
	defer x.mu.Unlock()
	fail := func(err error) (int, []byte) {
		return http.StatusInternalServerError, errorBody("InternalServerError", "transaction emulation: "+err.Error(), nil)
	}
	var in struct {
		TransactItems []map[string]jsonObject
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return fail(err)
	}
	if len(in.TransactItems) == 0 || len(in.TransactItems) > 100 {
		return http.StatusBadRequest, errorBody("ValidationException", "TransactItems must hold 1 to 100 items", nil)
	}
	ops := make([]*txOp, len(in.TransactItems))
	for i, ti := range in.TransactItems {
		for kind, op := range ti {
			o := &txOp{kind: kind, op: op}
			o.table, _ = op["TableName"].(string)
			if kind == "Put" {
				attrs, err := x.keyAttrs(orig, o.table)
				if err != nil {
					return fail(err)
				}
				item, _ := op["Item"].(jsonObject)
				o.key = jsonObject{}
				for _, a := range attrs {
					o.key[a] = item[a]
				}
			} else {
				o.key, _ = op["Key"].(jsonObject)
			}
			ops[i] = o
		}
	}
	// 1. Read every item.
	for _, o := range ops {
		status, out, raw, err := x.call(orig, "GetItem", jsonObject{"TableName": o.table, "Key": o.key, "ConsistentRead": true})
		if err != nil {
			return fail(err)
		}
		if status != http.StatusOK {
			return status, raw
		}
		o.old, _ = out["Item"].(jsonObject)
	}
	// 2. Evaluate every condition.
	reasons := make([]jsonObject, len(ops))
	cancelled := false
	for i, o := range ops {
		reasons[i] = jsonObject{"Code": "None"}
		cond, _ := o.op["ConditionExpression"].(string)
		if cond == "" {
			continue
		}
		req, op := jsonObject{"TableName": o.table}, "PutItem"
		if o.old != nil {
			req["Item"] = o.old
		} else {
			req["Key"], op = o.key, "DeleteItem"
		}
		status, out, raw, err := x.call(orig, op, withExpressions(req, o.op, "ConditionExpression", cond))
		switch {
		case err != nil:
			return fail(err)
		case status == http.StatusOK:
		case errorType(out) == "ConditionalCheckFailedException":
			reasons[i] = jsonObject{"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}
			cancelled = true
		default:
			return status, raw
		}
	}
	cancel := func() (int, []byte) {
		codes := make([]string, len(reasons))
		for i, r := range reasons {
			codes[i] = r["Code"].(string)
		}
		msg := "Transaction cancelled, please refer cancellation reasons for specific reasons [" + strings.Join(codes, ", ") + "]"
		return http.StatusBadRequest, errorBody("TransactionCanceledException", msg, jsonObject{"CancellationReasons": reasons})
	}
	if cancelled {
		return cancel()
	}
	// 3. Apply the writes; undo them if one is refused.
	for i, o := range ops {
		var status int
		var out jsonObject
		var raw []byte
		var err error
		switch o.kind {
		case "Put":
			status, out, raw, err = x.call(orig, "PutItem", jsonObject{"TableName": o.table, "Item": o.op["Item"]})
		case "Update":
			ue, _ := o.op["UpdateExpression"].(string)
			req := withExpressions(jsonObject{"TableName": o.table, "Key": o.key}, o.op, "UpdateExpression", ue)
			status, out, raw, err = x.call(orig, "UpdateItem", req)
		case "Delete":
			status, out, raw, err = x.call(orig, "DeleteItem", jsonObject{"TableName": o.table, "Key": o.key})
		default:
			continue
		}
		if err != nil {
			return fail(err)
		}
		if status == http.StatusOK {
			continue
		}
		if err := x.undo(orig, ops[:i]); err != nil {
			return fail(err)
		}
		if errorType(out) != "ValidationException" {
			return status, raw
		}
		reasons[i] = jsonObject{"Code": "ValidationError", "Message": errorMessage(out)}
		return cancel()
	}
	return http.StatusOK, []byte("{}")
}

// undo restores the items ops had before the transaction.
func (x *txEmulator) undo(orig *http.Request, ops []*txOp) error {
	for _, o := range ops {
		if o.kind == "ConditionCheck" {
			continue
		}
		op, req := "DeleteItem", jsonObject{"TableName": o.table, "Key": o.key}
		if o.old != nil {
			op, req = "PutItem", jsonObject{"TableName": o.table, "Item": o.old}
		}
		status, _, raw, err := x.call(orig, op, req)
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("undo %s: %s", op, raw)
		}
	}
	return nil
}
