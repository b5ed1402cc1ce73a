package main

import (
	"bytes"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// buildTestServer compiles this command with the svctest tag, whose only
// difference is the loopback allowance of guard_svctest.go.
func buildTestServer(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "local-svctest")
	out, err := exec.Command("go", "build", "-tags", "svctest", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// dedupReceiver is a webhook receiver as docs/webhooks.md asks for: it
// counts deliveries by X-Svc-Delivery. While hold is set it keeps each
// request waiting (below the 10 s timeout), so deliveries are in flight.
type dedupReceiver struct {
	mu    sync.Mutex
	seen  map[string]int
	hold  chan struct{}
	total int
}

func (d *dedupReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	d.total++
	d.seen[r.Header.Get("X-Svc-Delivery")]++
	hold := d.hold
	d.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-time.After(8 * time.Second):
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func (d *dedupReceiver) counts() (unique, total int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.seen), d.total
}

// TestDeliveriesSurviveACrash: a server killed with SIGKILL while webhook
// deliveries are pending (some posted and waiting for the answer, others
// queued or not yet fanned out) delivers every one after a restart; the
// receiver, deduplicating by X-Svc-Delivery, sees each event once.
func TestDeliveriesSurviveACrash(t *testing.T) {
	bin := buildTestServer(t)
	recv := &dedupReceiver{seen: map[string]int{}, hold: make(chan struct{})}
	srv := httptest.NewTLSServer(recv)
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"SVC_SIM_LATENCY_MS=20", "SVC_TEST_WEBHOOK_CA=" + caFile}
	dir := t.TempDir()
	p := start(t, bin, dir, env...)
	big := map[string]any{"queries": []string{"restaurant"}, "zones": []string{"France"}}
	c, first := scrapeRun(t, p, dir, big)
	base := "http://" + p.addr
	post := func(path string, body any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(body)
		resp, err := c.Post(base+path, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode/100 != 2 {
			t.Fatalf("POST %s: %d %v", path, resp.StatusCode, out)
		}
		return out
	}
	hook := post("/api/webhooks", map[string]any{"url": srv.URL + "/svc", "events": []string{"job.cancelled"}})
	const events = 6
	post("/api/jobs/"+first+"/cancel", nil)
	for range events - 1 {
		id := post("/api/jobs", big)["id"].(string)
		post("/api/jobs/"+id+"/cancel", nil)
	}
	// Kill it once a delivery is in flight (the receiver holds it).
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if _, total := recv.counts(); total > 0 {
			break
		}
	}
	if _, total := recv.counts(); total == 0 {
		t.Fatalf("no delivery started:\n%s", p.log())
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
	recv.mu.Lock()
	close(recv.hold)
	recv.hold = nil
	recv.mu.Unlock()

	p2 := start(t, bin, dir, env...)
	for end := time.Now().Add(90 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if unique, _ := recv.counts(); unique == events {
			break
		}
	}
	unique, total := recv.counts()
	if unique != events {
		t.Fatalf("%d distinct deliveries of %d events after the restart (%d posts):\n%s", unique, events, total, p2.log())
	}
	// Every delivery is recorded delivered once the restart settles.
	id := int64(hook["id"].(float64))
	var list struct {
		Deliveries []struct {
			Status     string `json:"status"`
			DeliveryID string `json:"delivery_id"`
		} `json:"deliveries"`
	}
	delivered := map[string]bool{}
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && len(delivered) < events; time.Sleep(100 * time.Millisecond) {
		resp, err := c.Get("http://" + p2.addr + "/api/webhooks/" + itoa(id) + "/deliveries")
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&list)
		resp.Body.Close()
		for _, d := range list.Deliveries {
			if d.Status == "delivered" {
				delivered[d.DeliveryID] = true
			}
		}
	}
	if len(delivered) != events {
		t.Errorf("%d deliveries recorded delivered, want %d: %+v", len(delivered), events, list.Deliveries)
	}
	unique, total = recv.counts()
	if unique != events {
		t.Errorf("%d distinct deliveries at the end, want %d", unique, events)
	}
	t.Logf("%d events, %d posts in all (%d repeated after the crash, deduplicated by the receiver)", events, total, total-unique)
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }
