package stepfn

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
)

// fakeStates answers the Step Functions JSON protocol on loopback, so the
// executor is tested through the real SDK client (its signing, encoding
// and error decoding).
type fakeStates struct {
	mu    sync.Mutex
	calls []call
	// errs maps an operation to the error type it answers.
	errs map[string]string
}

type call struct {
	op   string
	body map[string]any
}

func (f *fakeStates) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "AWSStepFunctions.")
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	f.mu.Lock()
	f.calls = append(f.calls, call{op, body})
	typ := f.errs[op]
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	if typ != "" {
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"__type":"`+typ+`","message":"from the fake"}`)
		return
	}
	switch op {
	case "StartExecution":
		_, _ = io.WriteString(w, `{"executionArn":"arn:aws:states:eu-west-3:123456789012:execution:m:x","startDate":1.7e9}`)
	default:
		_, _ = io.WriteString(w, `{}`)
	}
}

func newExecutor(t *testing.T, f *fakeStates) *Executor {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c := sfn.New(sfn.Options{
		Region:       "eu-west-3",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("k", "s", ""),
	})
	return &Executor{Client: c, StateMachine: "arn:aws:states:eu-west-3:123456789012:stateMachine:Svc-pipelines"}
}

func TestStart(t *testing.T) {
	f := &fakeStates{}
	e := newExecutor(t, f)
	if err := e.Start(context.Background(), "p1", []byte(`{"pipeline_id":"p1","round":0}`)); err != nil {
		t.Fatal(err)
	}
	if len(f.calls) != 1 || f.calls[0].op != "StartExecution" {
		t.Fatalf("calls %v", f.calls)
	}
	b := f.calls[0].body
	if b["stateMachineArn"] != e.StateMachine || b["name"] != "p1" || b["input"] != `{"pipeline_id":"p1","round":0}` {
		t.Errorf("StartExecution body %v", b)
	}
	f.errs = map[string]string{"StartExecution": "StateMachineDoesNotExist"}
	if err := e.Start(context.Background(), "p2", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "p2") {
		t.Errorf("a failed start: %v", err)
	}
}

// TestResume: a token handed back; one no longer waited on is no error
// (the execution moved on), any other refusal is.
func TestResume(t *testing.T) {
	for _, c := range []struct {
		answer  string
		wantErr bool
	}{
		{"", false},
		{"TaskDoesNotExist", false},
		{"TaskTimedOut", false},
		{"InvalidToken", true},
	} {
		t.Run(c.answer, func(t *testing.T) {
			f := &fakeStates{errs: map[string]string{"SendTaskSuccess": c.answer}}
			e := newExecutor(t, f)
			err := e.Resume(context.Background(), "tok-1")
			if (err != nil) != c.wantErr {
				t.Fatalf("err %v, want error %v", err, c.wantErr)
			}
			if len(f.calls) != 1 || f.calls[0].op != "SendTaskSuccess" || f.calls[0].body["taskToken"] != "tok-1" ||
				f.calls[0].body["output"] != "{}" {
				t.Errorf("calls %v", f.calls)
			}
		})
	}
}
