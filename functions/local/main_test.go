package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/apptest"
)

// buildServer compiles this command once per test binary run.
func buildServer(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "local")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// proc is a running local server.
type proc struct {
	cmd     *exec.Cmd
	addr    string
	logFile string
	done    chan error
}

func (p *proc) log() string {
	b, _ := os.ReadFile(p.logFile)
	return string(b)
}

func start(t testing.TB, bin, dataDir string, env ...string) *proc {
	t.Helper()
	p := &proc{addr: freeAddr(t), done: make(chan error, 1)}
	p.cmd = exec.Command(bin)
	p.cmd.Env = append(os.Environ(), "SVC_ADDR="+p.addr, "SVC_DATA_DIR="+dataDir, "SVC_INVITATION_CODES=code")
	p.cmd.Env = append(p.cmd.Env, env...)
	// The log goes to a file, as a deployed server's would: a pipe read by
	// this process would put the test's own CPU on every request's path.
	logf, err := os.Create(filepath.Join(t.TempDir(), "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	p.logFile = logf.Name()
	p.cmd.Stderr = logf
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	logf.Close()
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
	})
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + p.addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("server did not become healthy:\n%s", p.log())
	return nil
}

func postJSON(t testing.TB, url string, body any, hdr ...string) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestGracefulShutdown: SIGTERM lets an in-flight request finish, closes
// bbolt, exits 0; data written before survives into the next start.
func TestGracefulShutdown(t *testing.T) {
	bin := buildServer(t)
	dir := t.TempDir()
	p := start(t, bin, dir)
	resp := postJSON(t, "http://"+p.addr+"/api/auth/signup", map[string]any{
		"email": "keep@example.org", "password": "pass-w0rd", "invitation_code": "code", "accept_responsibility": true,
	})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("signup: %d", resp.StatusCode)
	}

	// A request in a handler when SIGTERM arrives: its body is half sent.
	conn, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"email":"keep@example.org","password":"pass-w0rd"}`
	fmt.Fprintf(conn, "POST /api/auth/login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		p.addr, len(body), body[:10])
	time.Sleep(100 * time.Millisecond)
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := http.Get("http://" + p.addr + "/healthz"); err == nil {
		t.Error("new connections still accepted after SIGTERM")
	}
	fmt.Fprint(conn, body[10:])
	r, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("in-flight request cut: %v\n%s", err, p.log())
	}
	io.Copy(io.Discard, r.Body)
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("in-flight request: %d", r.StatusCode)
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, p.log())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop after SIGTERM")
	}
	logs := p.log()
	for _, want := range []string{"shutting down", "stopped", `msg=request method=POST path=/api/auth/signup status=200`, "dur_ms="} {
		if !strings.Contains(logs, want) {
			t.Errorf("log lacks %q:\n%s", want, logs)
		}
	}

	// The account survives: bbolt was closed cleanly and reopens.
	p2 := start(t, bin, dir)
	resp = postJSON(t, "http://"+p2.addr+"/api/auth/login", map[string]any{"email": "keep@example.org", "password": "pass-w0rd"})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("login after restart: %d", resp.StatusCode)
	}
}

// scrapeRun signs up on a server, creates a scrape and returns the server
// and a client holding the session, and the job id.
func scrapeRun(t *testing.T, p *proc, dataDir string, body map[string]any) (*http.Client, string) {
	t.Helper()
	c, do := signup(t, p, dataDir, "crash@example.org")
	return c, do("/api/jobs", body)["id"].(string)
}

// signup creates a verified account on a server (the verification link
// read from the outbox) and returns a client holding its session, and a
// function that POSTs JSON with it and fails the test on any non-200.
func signup(t *testing.T, p *proc, dataDir, email string) (*http.Client, func(path string, v any) map[string]any) {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := apptest.CheckedClient(t, jar) // every exchange checked against the served OpenAPI document
	base := "http://" + p.addr
	do := func(path string, v any) map[string]any {
		b, _ := json.Marshal(v)
		resp, err := c.Post(base+path, "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s: %d %v", path, resp.StatusCode, out)
		}
		return out
	}
	do("/api/auth/signup", map[string]any{"email": email, "password": "pass-w0rd", "invitation_code": "code", "accept_responsibility": true})
	var token string
	for end := time.Now().Add(10 * time.Second); token == "" && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(dataDir, "outbox", "*.eml"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			if m := regexp.MustCompile(`verify-email\?token=([A-Za-z0-9_-]+)`).FindSubmatch(b); m != nil {
				token = string(m[1])
			}
		}
	}
	do("/api/auth/email/verify", map[string]any{"token": token})
	return c, do
}

func getJob(t *testing.T, c *http.Client, addr, id string) map[string]any {
	t.Helper()
	resp, err := c.Get("http://" + addr + "/api/jobs/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var j map[string]any
	json.NewDecoder(resp.Body).Decode(&j)
	return j
}

// sortedRows downloads a done job's CSV and returns its rows sorted.
func sortedRows(t *testing.T, c *http.Client, addr, id string) []string {
	t.Helper()
	resp, err := c.Get("http://" + addr + "/api/jobs/" + id + "/download")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	rows := strings.Split(strings.TrimSpace(string(b)), "\n")
	slices.Sort(rows)
	return rows
}

func waitDone(t *testing.T, c *http.Client, p *proc, id string, within time.Duration) map[string]any {
	t.Helper()
	var j map[string]any
	for end := time.Now().Add(within); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if j = getJob(t, c, p.addr, id); j["status"] == "done" || j["status"] == "failed" {
			return j
		}
	}
	t.Fatalf("job %s not done: %v\n%s", id, j, p.log())
	return nil
}

// TestCrashMidJob: a server killed with SIGKILL in the middle of a job
// finishes it after a restart, with the rows of an uninterrupted run.
func TestCrashMidJob(t *testing.T) {
	bin := buildServer(t)
	body := map[string]any{"queries": []string{"restaurant"}, "zones": []string{"Rhône"}, "scrap_mode": "ultra"}
	env := []string{"SVC_SIM_LATENCY_MS=20"}

	cleanDir := t.TempDir()
	clean := start(t, bin, cleanDir, env...)
	cc, cleanID := scrapeRun(t, clean, cleanDir, body)
	waitDone(t, cc, clean, cleanID, 3*time.Minute)
	want := sortedRows(t, cc, clean.addr, cleanID)

	dir := t.TempDir()
	p := start(t, bin, dir, env...)
	c, id := scrapeRun(t, p, dir, body)
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if j := getJob(t, c, p.addr, id); j["processed_points"].(float64) > 5 {
			break
		}
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-p.done
	p2 := start(t, bin, dir, env...)
	j := waitDone(t, c, p2, id, 3*time.Minute)
	if j["status"] != "done" || j["processed_points"] != j["grid_points_count"] {
		t.Fatalf("after the restart: %v", j)
	}
	if got := sortedRows(t, c, p2.addr, id); !slices.Equal(got, want) {
		t.Errorf("rows after a crash: %d, uninterrupted %d", len(got), len(want))
	}
}
