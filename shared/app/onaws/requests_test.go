package onaws_test

import (
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/store/dynamo"
)

// counter is an http.RoundTripper that counts the DynamoDB operations it
// carries, by the X-Amz-Target header (GetItem, Query, ...).
type counter struct {
	next http.RoundTripper
	mu   sync.Mutex
	ops  map[string]int
}

func (c *counter) RoundTrip(r *http.Request) (*http.Response, error) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	c.mu.Lock()
	c.ops[op]++
	c.mu.Unlock()
	return c.next.RoundTrip(r)
}

// take returns the operations counted since the last take, as "GetItem×2
// Query×1", and their total.
func (c *counter) take() (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var parts []string
	n := 0
	for op, k := range c.ops {
		parts = append(parts, op+"×"+strconv.Itoa(k))
		n += k
	}
	sort.Strings(parts)
	c.ops = map[string]int{}
	return strings.Join(parts, " "), n
}

// dynamoApp runs the whole app over DynamoDB tables on the emulator, its
// requests counted.
func dynamoApp(t testing.TB) (*apptest.Env, *counter) {
	t.Helper()
	ep, names := dynamoEmulator(t)
	c := &counter{next: http.DefaultTransport, ops: map[string]int{}}
	client := dynamodb.New(dynamodb.Options{
		Region: "eu-west-3", BaseEndpoint: aws.String(ep),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:  &http.Client{Transport: c, Timeout: 30 * time.Second},
	})
	return apptest.StartOn(t, dynamo.New(client, app.Schemas(), names)), c
}

// TestRequestsPerCall pins the DynamoDB requests each kind of API call
// costs, over the real app: every lookup is one GetItem on a key the
// request already knows (API key fingerprint, session id, user id, email),
// a list is one Query, and nothing scans. A change to the key design that
// adds a request per call fails here.
func TestRequestsPerCall(t *testing.T) {
	e, c := dynamoApp(t)
	user := e.NewClient()
	user.Signup("count@example.org", "pass-w0rd!")
	key := user.CreateKey("count")
	machine := e.NewClient()
	machine.Key = key
	machine.Do("GET", "/api/auth/me", nil).Must(t, 200) // the first use writes last_used_at
	c.take()
	tests := []struct {
		name         string
		client       *apptest.Client
		method, path string
		body         any
		status       int
		want         string
	}{
		{"me with a key: key, user", machine, "GET", "/api/auth/me", nil, 200, "GetItem×2"},
		{"me with a session: session, user", user, "GET", "/api/auth/me", nil, 200, "GetItem×2"},
		{"registry with a key: authentication only", machine, "GET", "/api/modules-registry", nil, 200, "GetItem×2"},
		{"key list: one query of the owner's keys", user, "GET", "/api/keys", nil, 200, "GetItem×2 Query×1"},
		{"login: email, user, two limit counters, new session", e.NewClient(), "POST", "/api/auth/login",
			map[string]string{"email": "count@example.org", "password": "pass-w0rd!"}, 200, "GetItem×2 PutItem×1 UpdateItem×2"},
		{"anonymous registry: no request", e.NewClient(), "GET", "/api/modules-registry", nil, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.client.Do(tt.method, tt.path, tt.body).Must(t, tt.status)
			if got, _ := c.take(); got != tt.want {
				t.Errorf("DynamoDB requests: %q, want %q", got, tt.want)
			}
		})
	}
}

// BenchmarkMeWithKeyOnDynamoDB is GET /api/auth/me with an API key over
// DynamoDB (the emulator on loopback): the latency of an authenticated
// call when each of its two lookups is a network request. It reports the
// requests per call.
func BenchmarkMeWithKeyOnDynamoDB(b *testing.B) {
	e, c := dynamoApp(b)
	user := e.NewClient()
	user.Signup("bench@example.org", "pass-w0rd!")
	machine := e.NewClient()
	machine.Key = user.CreateKey("bench")
	machine.Do("GET", "/api/auth/me", nil).Must(b, 200)
	c.take()
	for b.Loop() {
		machine.Do("GET", "/api/auth/me", nil).Must(b, 200)
	}
	_, n := c.take()
	b.ReportMetric(float64(n)/float64(b.N), "req/op")
}
