package dynamo_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/dynamo"
	"github.com/prospectdata/svc/shared/store/storetest"
)

// The tests run against a DynamoDB emulator whose endpoint is in
// SVC_TEST_DYNAMODB_ENDPOINT (`make test` starts DynamoDB Local and sets it).

// endpoint returns the emulator endpoint, or skips (fails under
// SVC_TEST_REQUIRE_EMULATORS=1, as `make test` runs).
func endpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv("SVC_TEST_DYNAMODB_ENDPOINT")
	if ep == "" {
		if os.Getenv("SVC_TEST_REQUIRE_EMULATORS") == "1" {
			t.Fatal("SVC_TEST_DYNAMODB_ENDPOINT is unset but SVC_TEST_REQUIRE_EMULATORS=1: the emulators are not running")
		}
		t.Skip("no DynamoDB emulator: run `make emulators-up` (or testdata/emulators/up.sh DIR) " +
			"and load its env file (set -a && . .tools/emulators/env && set +a)")
	}
	return ep
}

// newClient is a client of the emulator: static credentials, a fixed
// region and few quick retries (a local emulator either answers or is down).
func newClient(ep string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "eu-west-3",
		BaseEndpoint: aws.String(ep),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 3
			o.MaxBackoff = 100 * time.Millisecond
			// No client-side retry quota: parallel tests provoke many
			// expected errors, which must not starve later retries.
			o.RateLimiter = ratelimit.None
		}),
		HTTPClient: &http.Client{Timeout: 30 * time.Second},
	})
}

// env is an emulator client and a source of table names unique to the test
// run, so that runs (and parallel tests) never share a table.
type env struct {
	client *dynamodb.Client
	prefix string
	seq    atomic.Int64
}

func newEnv(t testing.TB) *env {
	return &env{client: newClient(endpoint(t)), prefix: fmt.Sprintf("svc%x", time.Now().UnixNano())}
}

// open creates fresh tables for schemas, deleted when the test ends.
func (e *env) open(t testing.TB, schemas []store.Schema, opts ...dynamo.Option) *dynamo.DB {
	t.Helper()
	n := e.seq.Add(1)
	names := map[string]string{}
	for _, s := range schemas {
		names[s.Name] = fmt.Sprintf("%s-%d-%s", e.prefix, n, s.Name)
	}
	ctx := context.Background()
	if err := dynamo.CreateTables(ctx, e.client, schemas, names); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, name := range names {
			if _, err := e.client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
				t.Logf("delete table %s: %v", name, err)
			}
		}
	})
	return dynamo.New(e.client, schemas, names, opts...)
}

func TestContract(t *testing.T) {
	e := newEnv(t)
	storetest.Run(t, func(t *testing.T, schemas []store.Schema) store.DB {
		return e.open(t, schemas)
	})
}

// TestNextIsExact checks what the driver's Limit+1 read buys: Next is empty
// when a page ends the partition, even on a full page, where DynamoDB's
// LastEvaluatedKey alone would point at an empty page.
func TestNextIsExact(t *testing.T) {
	ctx := context.Background()
	db := newEnv(t).open(t, storetest.Schemas())
	tb := db.Table(storetest.Items)
	for _, sk := range []string{"a", "b", "c"} {
		if err := tb.Put(ctx, store.Item{"pk": "p", "sk": sk, "owner": "o", "created": sk}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, index := range []string{"", storetest.ByOwner} {
		pk := "p"
		if index != "" {
			pk = "o"
		}
		for _, desc := range []bool{false, true} {
			p, err := tb.Query(ctx, store.Query{Index: index, PK: pk, Limit: 3, Desc: desc})
			if err != nil || len(p.Items) != 3 || p.Next != "" {
				t.Fatalf("index %q desc %v, full last page: %d items, Next %q, %v", index, desc, len(p.Items), p.Next, err)
			}
			p, err = tb.Query(ctx, store.Query{Index: index, PK: pk, Limit: 2, Desc: desc})
			if err != nil || len(p.Items) != 2 || p.Next == "" {
				t.Fatalf("index %q desc %v, first of two pages: %d items, Next %q, %v", index, desc, len(p.Items), p.Next, err)
			}
			p, err = tb.Query(ctx, store.Query{Index: index, PK: pk, Limit: 2, Desc: desc, After: p.Next})
			if err != nil || len(p.Items) != 1 || p.Next != "" {
				t.Fatalf("index %q desc %v, second page: %d items, Next %q, %v", index, desc, len(p.Items), p.Next, err)
			}
		}
	}
}

// TestClock checks that expiry is decided with the driver's clock, not
// DynamoDB's: the item becomes invisible when the clock passes its expiry.
func TestClock(t *testing.T) {
	ctx := context.Background()
	var now atomic.Int64
	now.Store(1_000_000)
	db := newEnv(t).open(t, storetest.Schemas(), dynamo.WithClock(func() time.Time { return time.Unix(now.Load(), 0) }))
	tb := db.Table(storetest.Items)
	if err := tb.Put(ctx, store.Item{"pk": "c", "sk": "1", "expires": int64(1_000_100)}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Get(ctx, store.Key{PK: "c", SK: "1"}); err != nil {
		t.Fatalf("Get before expiry: %v", err)
	}
	now.Store(1_000_100)
	if _, err := tb.Get(ctx, store.Key{PK: "c", SK: "1"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Get at expiry: %v, want ErrNotFound", err)
	}
	if p, err := tb.Query(ctx, store.Query{PK: "c"}); err != nil || len(p.Items) != 0 || p.Next != "" {
		t.Fatalf("Query at expiry: %+v, %v", p, err)
	}
}

// rawItem reads an item as DynamoDB holds it, bypassing the driver.
func rawItem(t *testing.T, client *dynamodb.Client, table string, k store.Key) map[string]types.AttributeValue {
	t.Helper()
	out, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{
		TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: k.PK}, "sk": &types.AttributeValueMemberS{Value: k.SK}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Item
}

// TestShadowedIndexAttributes checks how index key attributes holding
// values a GSI key cannot hold are stored (under a shadow name, so that
// DynamoDB accepts the write) and that no caller ever sees that name.
func TestShadowedIndexAttributes(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t)
	schemas := storetest.Schemas()
	db := e.open(t, schemas)
	physical := fmt.Sprintf("%s-%d-%s", e.prefix, e.seq.Load(), storetest.Items)
	tb := db.Table(storetest.Items)
	k := store.Key{PK: "s", SK: "1"}
	it := store.Item{"pk": "s", "sk": "1", "owner": "o", "created": int64(5)}
	if err := tb.Put(ctx, it, nil); err != nil {
		t.Fatal(err)
	}
	raw := rawItem(t, e.client, physical, k)
	if _, ok := raw["created"]; ok {
		t.Fatalf("a number was stored under the index key attribute: %v", raw)
	}
	if _, ok := raw["~unindexed:created"]; !ok {
		t.Fatalf("no shadow attribute in %v", raw)
	}
	got, err := tb.Get(ctx, k)
	if err != nil || !reflect.DeepEqual(got, it) {
		t.Fatalf("Get = %#v, %v; want %#v", got, err, it)
	}

	steps := []struct {
		name  string
		u     store.Update
		cond  *store.Cond
		want  store.Item
		index bool // in the by_owner index afterwards
	}{
		{"add to a shadowed number", store.Update{}.Add("created", 2), store.And(store.Exists("created"), store.Eq("created", 5), store.Gt("created", 4)),
			store.Item{"pk": "s", "sk": "1", "owner": "o", "created": int64(7)}, false},
		{"set a key string moves it back", store.Update{}.Set("created", "c1"), store.And(store.Lt("created", 8), store.Ne("created", "c1")),
			store.Item{"pk": "s", "sk": "1", "owner": "o", "created": "c1"}, true},
		{"set an empty string", store.Update{}.Set("created", ""), store.And(store.Eq("created", "c1"), store.Ge("created", "c")),
			store.Item{"pk": "s", "sk": "1", "owner": "o", "created": ""}, false},
		{"string comparisons see both names", nil, store.And(store.Lt("created", "a"), store.Eq("created", ""), store.Exists("created")),
			store.Item{"pk": "s", "sk": "1", "owner": "o", "created": ""}, false},
		{"remove removes both names", store.Update{}.Remove("created"), nil,
			store.Item{"pk": "s", "sk": "1", "owner": "o"}, false},
		{"add to a missing attribute", store.Update{}.Add("created", 1), store.NotExists("created"),
			store.Item{"pk": "s", "sk": "1", "owner": "o", "created": int64(1)}, false},
	}
	for _, st := range steps {
		got, err := tb.Update(ctx, k, st.u, st.cond)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !reflect.DeepEqual(got, st.want) {
			t.Fatalf("%s: Update returned %#v, want %#v", st.name, got, st.want)
		}
		p, err := tb.Query(ctx, store.Query{Index: storetest.ByOwner, PK: "o"})
		if err != nil || (len(p.Items) == 1) != st.index {
			t.Fatalf("%s: index holds %d items (%v), want in index %v", st.name, len(p.Items), err, st.index)
		}
		if raw := rawItem(t, e.client, physical, k); raw["created"] != nil && raw["~unindexed:created"] != nil {
			t.Fatalf("%s: value under both names: %v", st.name, raw)
		}
	}

	wantInvalid := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", what, err)
		}
	}
	wantInvalid("Put with a reserved attribute name", tb.Put(ctx, store.Item{"pk": "s", "sk": "2", "~unindexed:x": 1}, nil))
	wantInvalid("condition on a reserved attribute name", tb.Put(ctx, store.Item{"pk": "s", "sk": "2"}, store.Exists("~unindexed:created")))
	_, err = tb.Update(ctx, k, store.Update{}.Set("~unindexed:created", 1), nil)
	wantInvalid("Update of a reserved attribute name", err)
	_, err = tb.Update(ctx, k, store.Update{}.SetIfAbsent("owner", "o2"), nil)
	wantInvalid("SetIfAbsent on an index key attribute", err)
	// An Add on a string held by an index key attribute fails like any
	// Add on a string, and changes nothing.
	if _, err := tb.Update(ctx, k, store.Update{}.Set("created", "c2"), nil); err != nil {
		t.Fatal(err)
	}
	_, err = tb.Update(ctx, k, store.Update{}.Add("created", 1), nil)
	wantInvalid("Add on a string index key attribute", err)
	if got, err := tb.Get(ctx, k); err != nil || got["created"] != "c2" {
		t.Fatalf("after the refused Add: %#v, %v", got, err)
	}
}

// TestRefusedByDynamoDB checks that what DynamoDB refuses and the store's
// validators do not foresee is still an ErrInvalid error.
func TestRefusedByDynamoDB(t *testing.T) {
	ctx := context.Background()
	tb := newEnv(t).open(t, storetest.Schemas()).Table(storetest.Items)
	for name, v := range map[string]any{
		"number over DynamoDB's range":  1e200,
		"number under DynamoDB's range": 1e-200,
	} {
		err := tb.Put(ctx, store.Item{"pk": "r", "sk": "1", "v": v}, nil)
		if !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

func TestCreateTablesIsIdempotent(t *testing.T) {
	e := newEnv(t)
	db := e.open(t, storetest.Schemas())
	names := map[string]string{}
	for _, s := range storetest.Schemas() {
		names[s.Name] = fmt.Sprintf("%s-%d-%s", e.prefix, e.seq.Load(), s.Name)
	}
	if err := db.Table(storetest.Items).Put(context.Background(), store.Item{"pk": "a", "sk": "b"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := dynamo.CreateTables(context.Background(), e.client, storetest.Schemas(), names); err != nil {
		t.Fatalf("CreateTables of existing tables: %v", err)
	}
	if _, err := db.Table(storetest.Items).Get(context.Background(), store.Key{PK: "a", SK: "b"}); err != nil {
		t.Fatalf("existing table was not kept: %v", err)
	}
}

func TestNewPanicsOnBadSchemas(t *testing.T) {
	for name, schemas := range map[string][]store.Schema{
		"no name":           {{PK: "pk"}},
		"no pk":             {{Name: "a"}},
		"duplicate":         {{Name: "a", PK: "pk"}, {Name: "a", PK: "pk"}},
		"reserved ttl name": {{Name: "a", PK: "pk", TTL: "~unindexed:ttl"}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("New did not panic")
				}
			}()
			dynamo.New(nil, schemas, nil)
		})
	}
}

// canned is a transport answering every request with respond, for tests of
// the driver's handling of responses no emulator produces on demand.
type canned func(target string) (status int, body string)

// targetPrefix starts the X-Amz-Target header of every DynamoDB request.
const targetPrefix = "DynamoDB_20120810."

func (c canned) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	status, body := c(strings.TrimPrefix(req.Header.Get("X-Amz-Target"), targetPrefix))
	return &http.Response{
		StatusCode: status, Status: http.StatusText(status), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/x-amz-json-1.0"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}, nil
}

func cannedDB(c canned) store.DB {
	client := dynamodb.New(dynamodb.Options{
		Region:       "eu-west-3",
		BaseEndpoint: aws.String("http://dynamodb.invalid"), // never dialled
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   &http.Client{Transport: c},
	})
	return dynamo.New(client, storetest.Schemas(), nil)
}

// TestTransactRetriesConflicts checks that a transaction cancelled by
// contention only is tried again, a few times, and that other
// cancellations are not.
func TestTransactRetriesConflicts(t *testing.T) {
	reasons := func(codes ...string) string {
		var rs []string
		for _, c := range codes {
			rs = append(rs, `{"Code":"`+c+`"}`)
		}
		return `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionCanceledException","message":"Transaction cancelled","CancellationReasons":[` +
			strings.Join(rs, ",") + `]}`
	}
	ops := []store.TxOp{
		store.PutOp(storetest.Items, store.Item{"pk": "a", "sk": "1"}, nil),
		store.UpdateOp(storetest.Items, store.Key{PK: "b", SK: "1"}, store.Update{}.Add("n", 1), nil),
	}
	tests := []struct {
		name      string
		failures  int    // cancellations before success
		reason    string // of each cancellation
		wantCalls int
		check     func(error) bool
	}{
		{"conflict then success", 2, reasons("None", "TransactionConflict"), 3, func(err error) bool { return err == nil }},
		{"throttled then success", 1, reasons("ThrottlingError", "None"), 2, func(err error) bool { return err == nil }},
		{"conflict every time", 100, reasons("TransactionConflict", "None"), 4, func(err error) bool {
			return err != nil && !errors.Is(err, store.ErrConditionFailed) && !errors.Is(err, store.ErrInvalid)
		}},
		{"condition failure is final", 100, reasons("TransactionConflict", "ConditionalCheckFailed"), 1, func(err error) bool {
			var txErr *store.TxConditionError
			return errors.As(err, &txErr) && txErr.Index == 1
		}},
		{"validation error is final", 100, reasons("None", "ValidationError"), 1, func(err error) bool { return errors.Is(err, store.ErrInvalid) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int64
			db := cannedDB(func(target string) (int, string) {
				if target != "TransactWriteItems" {
					return http.StatusBadRequest, `{"__type":"UnknownOperationException"}`
				}
				if calls.Add(1) <= int64(tt.failures) {
					return http.StatusBadRequest, tt.reason
				}
				return http.StatusOK, "{}"
			})
			err := db.Transact(context.Background(), ops...)
			if !tt.check(err) {
				t.Fatalf("Transact: %v", err)
			}
			if n := calls.Load(); n != int64(tt.wantCalls) {
				t.Fatalf("%d TransactWriteItems calls, want %d", n, tt.wantCalls)
			}
		})
	}
}

// hanging is a transport that answers only when the request's context ends.
type hanging struct{}

func (hanging) RoundTrip(req *http.Request) (*http.Response, error) {
	<-req.Context().Done()
	return nil, req.Context().Err()
}

// TestContextEndsRequest checks that a context ending during a request
// ends it, with an error that says so (the contract suite checks only a
// context cancelled before the call).
func TestContextEndsRequest(t *testing.T) {
	client := dynamodb.New(dynamodb.Options{
		Region:       "eu-west-3",
		BaseEndpoint: aws.String("http://dynamodb.invalid"),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   &http.Client{Transport: hanging{}},
	})
	db := dynamo.New(client, storetest.Schemas(), nil)
	tb := db.Table(storetest.Items)
	calls := map[string]func(context.Context) error{
		"Get": func(ctx context.Context) error { _, err := tb.Get(ctx, store.Key{PK: "p", SK: "s"}); return err },
		"Put": func(ctx context.Context) error { return tb.Put(ctx, store.Item{"pk": "p", "sk": "s"}, nil) },
		"Query": func(ctx context.Context) error {
			_, err := tb.Query(ctx, store.Query{PK: "p"})
			return err
		},
		"Transact": func(ctx context.Context) error {
			return db.Transact(ctx, store.PutOp(storetest.Items, store.Item{"pk": "p", "sk": "s"}, nil))
		},
	}
	for name, call := range calls {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		err := call(ctx)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v, want context.DeadlineExceeded", name, err)
		}
	}
}

// BenchmarkGetCanned is BenchGet without a network: a canned GetItem
// response, so it measures what a Get costs the Lambda's CPU (SDK
// middleware, signing, JSON, the driver's decoding), apart from latency.
func BenchmarkGetCanned(b *testing.B) {
	const item = `{"Item":{"pk":{"S":"bget0001"},"sk":{"S":"meta"},"owner":{"S":"acct#bget0001"},` +
		`"created":{"S":"2024-05-01T10:00:00Z"},"scopes":{"L":[{"S":"read"},{"S":"write"}]},"active":{"BOOL":true},` +
		`"uses":{"N":"0"},"hash":{"B":"MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="},"expires":{"N":"4102444800"}}}`
	db := cannedDB(func(string) (int, string) { return http.StatusOK, item })
	tb := db.Table(storetest.Items)
	ctx := context.Background()
	k := store.Key{PK: "bget0001", SK: "meta"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tb.Get(ctx, k); err != nil {
			b.Fatal(err)
		}
	}
}

// Benchmarks: the storetest ones, against the emulator, so that the
// figures compare with bolt's (docs/dynamodb.md). They measure the driver
// plus a loopback HTTP round trip to the emulator, not DynamoDB's latency.

func benchDB(b *testing.B) store.DB { return newEnv(b).open(b, storetest.Schemas()) }

func BenchmarkGet(b *testing.B)         { storetest.BenchGet(b, benchDB(b)) }
func BenchmarkGetParallel(b *testing.B) { storetest.BenchGetParallel(b, benchDB(b)) }
func BenchmarkPut(b *testing.B)         { storetest.BenchPut(b, benchDB(b)) }
func BenchmarkUpdate(b *testing.B)      { storetest.BenchUpdateCounter(b, benchDB(b)) }
func BenchmarkQuery(b *testing.B)       { storetest.BenchQuery(b, benchDB(b)) }
