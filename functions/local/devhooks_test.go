package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/webhooks"
)

// send makes a JSON request with c and returns the status and the decoded
// answer, whatever the status. A session's errors are in French.
func send(t *testing.T, c *http.Client, method, url string, body any) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, r)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// posted is one request a receiver got.
type posted struct {
	header http.Header
	body   []byte
}

// TestDevLoopbackWebhooks: the local server, built as make run builds it,
// refuses a loopback receiver by default; with SVC_DEV_LOOPBACK_WEBHOOKS=1
// it says so loudly, accepts an https receiver on 127.0.0.1 and on
// localhost whose self-signed certificate it has never seen, still refuses
// plain http, private addresses and itself, and delivers a completed job's
// event there, signed so that webhooks.Verify (the receiver's check)
// accepts it.
func TestDevLoopbackWebhooks(t *testing.T) {
	bin := buildServer(t)
	var mu sync.Mutex
	var got []posted
	recv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, posted{r.Header.Clone(), b})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	port := recv.URL[strings.LastIndex(recv.URL, ":")+1:]

	// Off by default.
	offDir := t.TempDir()
	off := start(t, bin, offDir)
	c, _ := signup(t, off, offDir, "off@example.org")
	for u, says := range map[string]string{
		recv.URL + "/hook":                    "l'hôte 127.0.0.1 est", // the service's own host, and loopback
		"https://localhost:" + port + "/hook": "usage spécial (localhost)",
		"https://[::1]:" + port + "/hook":     "une adresse de bouclage",
		"https://127.0.0.2:" + port + "/hook": "une adresse de bouclage",
	} {
		if code, out := send(t, c, "POST", "http://"+off.addr+"/api/webhooks", map[string]any{"url": u, "events": []string{"job.completed"}}); code != 400 ||
			!strings.Contains(out["detail"].(string), says) {
			t.Errorf("%s without the switch: %d %v, want 400 naming %q", u, code, out, says)
		}
	}
	if l := off.log(); strings.Contains(l, "DEVELOPMENT") || !strings.Contains(l, "public https receivers only") {
		t.Errorf("log without the switch:\n%s", l)
	}

	dir := t.TempDir()
	p := start(t, bin, dir, "SVC_DEV_LOOPBACK_WEBHOOKS=1", "SVC_SIM_LATENCY_MS=0")
	base := "http://" + p.addr
	c, do := signup(t, p, dir, "dev@example.org")
	for _, tt := range []struct {
		url  string
		code int
		says string
	}{
		{"http://127.0.0.1:" + port + "/hook", 400, "seules les URL https://"},
		{"https://10.0.0.1:" + port + "/hook", 400, "une adresse privée"},
		{"https://169.254.169.254/hook", 400, "métadonnées cloud"},
		{"https://[::ffff:127.0.0.1]:" + port + "/hook", 400, "mappée IPv4"},
		{"https://" + p.addr + "/api", 400, "ce service lui-même"},
		{"https://localhost:" + p.addr[strings.LastIndex(p.addr, ":")+1:] + "/api", 400, "ce service lui-même"},
	} {
		if code, out := send(t, c, "POST", base+"/api/webhooks", map[string]any{"url": tt.url, "events": []string{"job.completed"}}); code != tt.code ||
			!strings.Contains(out["detail"].(string), tt.says) {
			t.Errorf("POST /api/webhooks %s: %d %v, want %d naming %q", tt.url, code, out, tt.code, tt.says)
		}
	}
	secrets := map[string]string{} // delivery id prefix -> secret
	for _, u := range []string{recv.URL + "/hook", "https://localhost:" + port + "/hook"} {
		code, out := send(t, c, "POST", base+"/api/webhooks", map[string]any{"url": u, "events": []string{"job.completed"}})
		if code != 201 {
			t.Fatalf("POST /api/webhooks %s with the switch: %d %v", u, code, out)
		}
		secrets["dlv_"+itoa(int64(out["id"].(float64)))+"_"] = out["secret"].(string)
	}

	id := do("/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Villeurbanne"}})["id"].(string)
	if j := waitDone(t, c, p, id, 2*time.Minute); j["status"] != "done" {
		t.Fatalf("job %v", j)
	}
	var hits []posted
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		hits = append([]posted(nil), got...)
		mu.Unlock()
		if len(hits) >= 2 {
			break
		}
	}
	if len(hits) != 2 {
		t.Fatalf("the receiver got %d deliveries, want 2 (one per endpoint):\n%s", len(hits), p.log())
	}
	for _, h := range hits {
		d := h.header.Get("X-Svc-Delivery")
		secret := ""
		for prefix, s := range secrets {
			if strings.HasPrefix(d, prefix) {
				secret = s
			}
		}
		if !webhooks.Verify(secret, h.body, h.header.Get("X-Svc-Signature")) {
			t.Errorf("delivery %s: the signature does not verify", d)
		}
		var ev struct {
			Type string
			Data struct{ ID, Status string }
		}
		if err := json.Unmarshal(h.body, &ev); err != nil || ev.Type != "job.completed" || ev.Data.ID != id || ev.Data.Status != "done" ||
			h.header.Get("X-Svc-Event") != "job.completed" {
			t.Errorf("delivery %s: %v %s", d, err, h.body)
		}
	}
	logs := p.log()
	for _, want := range []string{
		"level=WARN msg=\"DEVELOPMENT SWITCH ON: webhooks to https receivers on loopback",
		"DEVELOPMENT SWITCH ON (SVC_DEV_LOOPBACK_WEBHOOKS)", // the banner
		"level=WARN msg=\"webhooks: DEVELOPMENT delivery to a loopback receiver",
		"url=https://localhost:" + port + "/hook",
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}
}
