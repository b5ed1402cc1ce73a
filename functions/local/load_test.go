package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestMain doubles as the bare net/http server the load benchmark compares
// against: the same binary, re-executed with SVC_BARE_SERVER set, serves one
// handler that writes a JSON body of the same size as GET /api/auth/me.
func TestMain(m *testing.M) {
	if os.Getenv("SVC_BARE_SERVER") != "" {
		body := []byte(`{"id":1,"email":"bench@example.org","is_admin":false,"is_active":true,"email_verified":false,"created_at":"2026-01-01T00:00:00Z"}` + "\n")
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
			w.Write(body)
		})
		if err := http.ListenAndServe(os.Getenv("SVC_ADDR"), h); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

const (
	loadDuration    = 5 * time.Second
	loadConnections = 32
)

var wrkRate = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)

// load drives url for loadDuration and returns requests per second, with wrk
// when it is installed (make bench installs it), else with a Go client.
func load(b *testing.B, url string, header ...string) float64 {
	b.Helper()
	if wrk, err := exec.LookPath("wrk"); err == nil {
		args := []string{"-t2", "-c" + strconv.Itoa(loadConnections), "-d" + strconv.Itoa(int(loadDuration.Seconds())) + "s"}
		for i := 0; i+1 < len(header); i += 2 {
			args = append(args, "-H", header[i]+": "+header[i+1])
		}
		out, err := exec.Command(wrk, append(args, url)...).CombinedOutput()
		if err != nil {
			b.Fatalf("wrk: %v\n%s", err, out)
		}
		if regexp.MustCompile(`Non-2xx or 3xx responses`).Match(out) {
			b.Fatalf("wrk saw errors:\n%s", out)
		}
		m := wrkRate.FindSubmatch(out)
		if m == nil {
			b.Fatalf("wrk output:\n%s", out)
		}
		rate, _ := strconv.ParseFloat(string(m[1]), 64)
		b.Logf("wrk %s:\n%s", url, out)
		return rate
	}
	b.Log("wrk not found: loading with the Go client (it costs more CPU than wrk, so figures are lower)")
	ctx, cancel := context.WithTimeout(context.Background(), loadDuration)
	defer cancel()
	var n, bad atomic.Int64
	var wg sync.WaitGroup
	tr := &http.Transport{MaxIdleConnsPerHost: loadConnections}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	start := time.Now()
	for range loadConnections {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
				for i := 0; i+1 < len(header); i += 2 {
					req.Header.Set(header[i], header[i+1])
				}
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					bad.Add(1)
				}
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	if bad.Load() > 0 {
		b.Fatalf("%d non-200 answers", bad.Load())
	}
	return float64(n.Load()) / time.Since(start).Seconds()
}

// BenchmarkLoadAuthMe measures GET /api/auth/me with an API key on the local
// server (its own process, logging one line per request as it does in use)
// and a bare net/http handler in the same run. Targets: at least 20,000 req/s
// and within 3x of the bare handler.
func BenchmarkLoadAuthMe(b *testing.B) {
	bin := buildServer(b)
	p := start(b, bin, b.TempDir())
	base := "http://" + p.addr
	resp := postJSON(b, base+"/api/auth/signup", map[string]any{
		"email": "bench@example.org", "password": "pass-w0rd", "invitation_code": "code", "accept_responsibility": true,
	})
	resp.Body.Close()
	var cookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "svc_session" {
			cookie = c
		}
	}
	req, _ := http.NewRequest("POST", base+"/api/keys", jsonBody(map[string]any{"name": "bench"}))
	req.AddCookie(cookie)
	req.Header.Set("Content-Type", "application/json")
	kr, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var created struct {
		Key string `json:"key"`
	}
	json.NewDecoder(kr.Body).Decode(&created)
	kr.Body.Close()
	if created.Key == "" {
		b.Fatalf("key creation: %d", kr.StatusCode)
	}

	bareAddr := freeAddr(b)
	bare := exec.Command(os.Args[0])
	bare.Env = append(os.Environ(), "SVC_BARE_SERVER=1", "SVC_ADDR="+bareAddr)
	if err := bare.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { bare.Process.Kill(); bare.Wait() })
	waitHealthy(b, "http://"+bareAddr+"/")

	for range b.N {
		me := load(b, base+"/api/auth/me", "X-API-Key", created.Key)
		plain := load(b, "http://"+bareAddr+"/")
		b.ReportMetric(me, "me_req/s")
		b.ReportMetric(plain, "bare_req/s")
		b.ReportMetric(plain/me, "bare/me")
	}
}

func waitHealthy(b *testing.B, url string) {
	for range 200 {
		if r, err := http.Get(url); err == nil {
			r.Body.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatalf("%s never answered", url)
}

func jsonBody(v any) io.Reader {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(json.NewEncoder(pw).Encode(v)) }()
	return pr
}
