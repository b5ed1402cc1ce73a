package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/webhooks"
)

// syncBuffer is the receiver's output, read by the test while it serves.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const secret = "whsec_0123456789abcdef0123"

var body = []byte(`{"id":41,"type":"job.completed","created_at":"2026-11-24 10:14:00","data":{"id":"lj4kkc7hv66vg7gy",` +
	`"job_type":"scrap","status":"done","results_count":546,"error_message":null,"ef_cost":1.5}}`)

// TestReceiver: a delivery signed as the service signs it is printed and
// answered 204; a bad, missing or foreign signature is printed and
// answered 401; a repeat is answered 204 and said to be one. The scheme
// has no timestamp, so there is no stale case: replays are told by
// X-Svc-Delivery.
func TestReceiver(t *testing.T) {
	out := &syncBuffer{}
	rc := newReceiver(secret, out)
	for _, tt := range []struct {
		name     string
		method   string
		body     []byte
		sig      string
		delivery string
		code     int
		printed  []string
	}{
		{"good signature", "POST", body, webhooks.Sign(secret, body), "dlv_3_41", 204,
			[]string{"event 41 job.completed dlv_3_41 at 2026-11-24 10:14:00, signature verified",
				"id=lj4kkc7hv66vg7gy job_type=scrap status=done results_count=546"}},
		{"the same delivery again", "POST", body, webhooks.Sign(secret, body), "dlv_3_41", 204,
			[]string{"event 41 job.completed dlv_3_41", "again: already handled"}},
		{"another secret", "POST", body, webhooks.Sign(secret+"x", body), "dlv_3_42", 401,
			[]string{"REJECTED dlv_3_42: bad signature"}},
		{"body changed after signing", "POST", append(append([]byte{}, body...), ' '), webhooks.Sign(secret, body), "dlv_3_43", 401,
			[]string{"REJECTED dlv_3_43: bad signature"}},
		{"no signature", "POST", body, "", "", 401, []string{"REJECTED (no X-Svc-Delivery): bad signature"}},
		{"a signature without its scheme", "POST", body, strings.TrimPrefix(webhooks.Sign(secret, body), "sha256="), "dlv_3_44", 401,
			[]string{"REJECTED dlv_3_44: bad signature"}},
		{"signed but not JSON", "POST", []byte("not json"), webhooks.Sign(secret, []byte("not json")), "dlv_3_45", 204,
			[]string{"unreadable JSON", "signature verified"}},
		{"too large", "POST", bytes.Repeat([]byte("x"), maxBody+1), "", "dlv_3_46", 400, []string{"REJECTED dlv_3_46: unreadable body"}},
		{"GET", "GET", nil, "", "", 405, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := len(out.String())
			req := httptest.NewRequest(tt.method, "/hook", bytes.NewReader(tt.body))
			if tt.sig != "" {
				req.Header.Set("X-Svc-Signature", tt.sig)
			}
			if tt.delivery != "" {
				req.Header.Set("X-Svc-Delivery", tt.delivery)
			}
			w := httptest.NewRecorder()
			rc.ServeHTTP(w, req)
			if w.Code != tt.code {
				t.Errorf("status %d, want %d", w.Code, tt.code)
			}
			printed := out.String()[before:]
			for _, want := range tt.printed {
				if !strings.Contains(printed, want) {
					t.Errorf("printed %q, want it to contain %q", printed, want)
				}
			}
			if tt.printed == nil && printed != "" {
				t.Errorf("printed %q, want nothing", printed)
			}
		})
	}
}

// TestCheckLoopback: the receiver listens on loopback only.
func TestCheckLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8443": true, "127.0.0.9:9000": true, "[::1]:8443": true, "localhost:8443": true,
		"0.0.0.0:8443": false, ":8443": false, "192.168.1.2:8443": false, "[::ffff:127.0.0.1]:8443": false,
		"example.com:8443": false, "127.0.0.1": false, "127.0.0.1:": false, "127.0.0.1:x": false,
	} {
		if err := checkLoopback(addr); (err == nil) != ok {
			t.Errorf("checkLoopback(%q) = %v, want ok %v", addr, err, ok)
		}
	}
}

// TestServeTLS: the receiver answers HTTPS with its self-signed
// certificate, valid for 127.0.0.1, ::1 and localhost, and a delivery
// posted over it is verified and printed; the server stops with its
// context.
func TestServeTLS(t *testing.T) {
	cert, err := selfSigned(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"127.0.0.1", "::1", "localhost"} {
		if err := cert.Leaf.VerifyHostname(name); err != nil {
			t.Errorf("certificate for %s: %v", name, err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, cert, newReceiver(secret, out), out) }()
	pool := x509.NewCertPool()
	pool.AddCert(cert.Leaf)
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	req, _ := http.NewRequest("POST", "https://"+ln.Addr().String()+"/hook", bytes.NewReader(body))
	req.Header.Set("X-Svc-Signature", webhooks.Sign(secret, body))
	req.Header.Set("X-Svc-Delivery", "dlv_1_41")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || !strings.Contains(out.String(), "event 41 job.completed dlv_1_41") {
		t.Errorf("status %d, printed %q", resp.StatusCode, out.String())
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop with its context")
	}
}

// TestRunNeedsASecret: without -secret nor the variable it refuses to
// start, and it refuses an address off loopback.
func TestRunNeedsASecret(t *testing.T) {
	var stderr bytes.Buffer
	none := func(string) string { return "" }
	if err := run(context.Background(), nil, none, &stderr, &stderr); err == nil || !strings.Contains(err.Error(), "no secret") {
		t.Errorf("run without a secret: %v", err)
	}
	if err := run(context.Background(), []string{"-secret", secret, "-addr", "0.0.0.0:8443"}, none, &stderr, &stderr); err == nil ||
		!strings.Contains(err.Error(), "not a loopback address") {
		t.Errorf("run on 0.0.0.0: %v", err)
	}
}
