// Package apptest starts the whole local app (bbolt tables, outbox mail,
// every route) on a loopback listener for API tests and benchmarks, and gives
// them the few steps every test repeats: signing up, reading the outbox,
// creating keys.
package apptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"mime/quotedprintable"

	"github.com/prospectdata/svc/shared/app"
	blobdir "github.com/prospectdata/svc/shared/blob/dir"
	"github.com/prospectdata/svc/shared/clocktest"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/console"
	"github.com/prospectdata/svc/shared/mail/outbox"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/pipelines"
	qbolt "github.com/prospectdata/svc/shared/queue/bolt"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// Code is the invitation code the test app accepts.
const Code = "test-invite"

// AdminEmail is an admin of the test app.
const AdminEmail = "admin@example.org"

// Env is a running app.
type Env struct {
	T      testing.TB
	App    *app.App
	Server *httptest.Server
	Dir    string
	Clock  *Clock
	Config config.Config
	// Adapters are the app's adapters, to build more apps over the same
	// tables (one per route group, as the Lambdas do).
	Adapters app.Adapters

	mu     sync.Mutex
	nextIP int

	// The served OpenAPI document every request of a Client is checked
	// against (Doc, Validate), fetched once.
	docOnce sync.Once
	doc     *Doc
	docErr  error
}

// Clock is a settable test clock (the app's starts at the real time).
type Clock = clocktest.Clock

// Option changes the test app's configuration or adapters.
type Option func(*Setup)

// Setup is what an Option may change before the app starts.
type Setup struct {
	Config   *config.Config
	Adapters *app.Adapters
}

// WithConfig changes the configuration.
func WithConfig(f func(*config.Config)) Option { return func(s *Setup) { f(s.Config) } }

// WithGuard replaces the guard of webhook URLs and deliveries: tests allow
// a loopback TLS receiver this way, which the default guard refuses.
func WithGuard(g *netguard.Guard) Option { return func(s *Setup) { s.Adapters.Guard = g } }

// WithPipelines runs the pipelines on an executor (a state machine run
// in process by statemachines/asltest) instead of the in-process runner.
func WithPipelines(x pipelines.Executor) Option {
	return func(s *Setup) { s.Adapters.Pipelines = x }
}

// Start runs the app until the test ends. Logs go to the test log only when
// SVC_TEST_LOG is set, so benchmarks measure the service, not the terminal.
// Its tables are bbolt's, in the test's temporary directory.
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	dir := t.TempDir()
	db, err := bolt.Open(filepath.Join(dir, "tables.db"), app.Schemas())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return start(t, dir, db, opts)
}

// StartOn runs the app like Start, over the given tables (another driver's,
// such as DynamoDB on an emulator). The caller closes db.
func StartOn(t testing.TB, db store.DB, opts ...Option) *Env {
	t.Helper()
	return start(t, t.TempDir(), db, opts)
}

func start(t testing.TB, dir string, db store.DB, opts []Option) *Env {
	t.Helper()
	cfg, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = dir
	cfg.SimLatency = 0 // the simulated provider answers at once in tests
	cfg.InvitationCodes = []string{Code}
	cfg.AdminEmails = []string{AdminEmail}
	// Options run before the adapters exist; the adapter fields they set
	// (Guard, Pipelines) are copied in below.
	var set app.Adapters
	for _, o := range opts {
		o(&Setup{Config: &cfg, Adapters: &set})
	}
	var logOut io.Writer = io.Discard
	if os.Getenv("SVC_TEST_LOG") != "" {
		logOut = os.Stderr
	}
	log := slog.New(slog.NewTextHandler(logOut, nil))
	clock := clocktest.New(time.Now())
	secret := bytes.Repeat([]byte{7}, 32)
	srv := httptest.NewUnstartedServer(nil)
	cfg.BaseURL = "http://" + srv.Listener.Addr().String()
	q, err := qbolt.Open(filepath.Join(dir, "queue.db"), app.Queues(), qbolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	files, err := blobdir.New(filepath.Join(dir, "files"))
	if err != nil {
		t.Fatal(err)
	}
	ad := app.Adapters{
		DB: db, Mail: &outbox.Outbox{Dir: filepath.Join(dir, "outbox"), Log: log, Now: clock.Now},
		SessionSecret: secret, Now: clock.Now, Log: log, HTTPClient: http.DefaultClient,
		Queue: q, Files: files, Guard: set.Guard, Pipelines: set.Pipelines,
	}
	a, err := app.New(cfg, ad)
	if err != nil {
		t.Fatal(err)
	}
	// The job engine works beside the server; it stops (and the queue
	// closes) before the tables do.
	workCtx, stopWork := context.WithCancel(context.Background())
	workDone := make(chan struct{})
	go func() {
		defer close(workDone)
		_ = a.Work(workCtx)
	}()
	t.Cleanup(func() {
		stopWork()
		<-workDone
		q.Close()
	})
	con, err := console.New(console.Options{Tiles: cfg.ConsoleTiles, CaptchaSiteKey: cfg.CaptchaSiteKey, CaptchaScript: cfg.CaptchaScript})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = console.WithAPI(a.Server, con)
	srv.Start()
	// Registered after the caller's cleanups, so it runs before them: the
	// server stops before its tables close.
	t.Cleanup(srv.Close)
	return &Env{T: t, App: a, Server: srv, Dir: dir, Clock: clock, Config: cfg, Adapters: ad}
}

// WithCaptcha turns captcha verification on against url.
func WithCaptcha(url, secret string) Option {
	return WithConfig(func(c *config.Config) { c.CaptchaURL, c.CaptchaSecret = url, secret })
}

// Client is an HTTP client with its own cookie jar: one browser.
type Client struct {
	E    *Env
	HTTP *http.Client
	// IP is the loopback address the client connects from.
	IP string
	// Key, when set, is sent as X-API-Key.
	Key string
	// Header is added to every request.
	Header http.Header
}

// NewClient returns a client with an empty cookie jar, connecting from its
// own loopback address (127.0.0.2, 127.0.0.3, ...), so that limits keyed per
// IP see each client as a different machine, as the design's local
// convention says.
func (e *Env) NewClient() *Client {
	e.mu.Lock()
	e.nextIP++
	n := e.nextIP
	e.mu.Unlock()
	ip := net.IPv4(127, byte(n/250), byte(n%250+2), 1)
	return e.NewClientFrom(ip.String())
}

// NewClientFrom returns a client connecting from the loopback address ip.
func (e *Env) NewClientFrom(ip string) *Client {
	jar, _ := cookiejar.New(nil)
	dialer := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DialContext: dialer.DialContext, MaxIdleConnsPerHost: 4}
	e.T.Cleanup(tr.CloseIdleConnections)
	return &Client{E: e, IP: ip, HTTP: &http.Client{Jar: jar, Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

// Response is a read response.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body.
func (r *Response) JSON() map[string]any {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	return m
}

// Do sends a request; body is JSON-encoded unless it is a string or []byte.
func (c *Client) Do(method, path string, body any) *Response {
	c.E.T.Helper()
	var rd io.Reader
	var sent []byte
	switch b := body.(type) {
	case nil:
	case string:
		sent = []byte(b)
	case []byte:
		sent = b
	default:
		j, err := json.Marshal(b)
		if err != nil {
			c.E.T.Fatal(err)
		}
		sent = j
	}
	if body != nil {
		rd = bytes.NewReader(sent)
	}
	req, err := http.NewRequest(method, c.E.Server.URL+path, rd)
	if err != nil {
		c.E.T.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Key != "" {
		req.Header.Set("X-API-Key", c.Key)
	}
	for k, v := range c.Header {
		req.Header[k] = v
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		c.E.T.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.E.T.Fatal(err)
	}
	Validate(c.E.T, c.E.Doc(), req, sent, resp.StatusCode, resp.Header, b)
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Must fails the test unless the response has the status.
func (r *Response) Must(t testing.TB, status int) *Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	return r
}

// Signup creates an account with the client and returns its id.
func (c *Client) Signup(email, password string) int64 {
	c.E.T.Helper()
	r := c.Do("POST", "/api/auth/signup", map[string]any{
		"email": email, "password": password, "invitation_code": Code, "accept_responsibility": true,
	}).Must(c.E.T, 200)
	u, _ := r.JSON()["user"].(map[string]any)
	id, _ := u["id"].(float64)
	return int64(id)
}

// Verify follows the newest verification link mailed to email.
func (c *Client) Verify(email string) {
	c.E.T.Helper()
	tok := c.E.Token(email, "verify-email")
	c.Do("POST", "/api/auth/email/verify", map[string]any{"token": tok}).Must(c.E.T, 200)
}

// CreateKey creates an API key with the client's session.
func (c *Client) CreateKey(name string) string {
	c.E.T.Helper()
	r := c.Do("POST", "/api/keys", map[string]any{"name": name}).Must(c.E.T, 201)
	k, _ := r.JSON()["key"].(string)
	return k
}

// Mail is one outbox message.
type Mail struct {
	File    string
	Header  mail.Header
	Subject string
	Text    string
}

// Outbox returns the messages mailed to the address, oldest first.
func (e *Env) Outbox(to string) []Mail {
	e.T.Helper()
	files, _ := filepath.Glob(filepath.Join(e.Dir, "outbox", "*.eml"))
	sort.Strings(files)
	var out []Mail
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			e.T.Fatal(err)
		}
		m, err := mail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			e.T.Fatalf("%s is not an RFC 5322 message: %v", f, err)
		}
		addr, err := mail.ParseAddress(m.Header.Get("To"))
		if err != nil || !strings.EqualFold(addr.Address, to) {
			continue
		}
		var rd io.Reader = m.Body
		if strings.EqualFold(m.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
			rd = quotedprintable.NewReader(m.Body)
		}
		body, err := io.ReadAll(rd)
		if err != nil {
			e.T.Fatal(err)
		}
		subject, _ := new(mimeDecoder).DecodeHeader(m.Header.Get("Subject"))
		out = append(out, Mail{File: f, Header: m.Header, Subject: subject, Text: string(body)})
	}
	return out
}

var linkRe = regexp.MustCompile(`https?://\S+/(verify-email|reset-password)\?token=([A-Za-z0-9_%-]+)`)

// Token returns the token of the newest link of the kind ("verify-email",
// "reset-password") mailed to the address.
func (e *Env) Token(to, kind string) string {
	e.T.Helper()
	msgs := e.Outbox(to)
	for i := len(msgs) - 1; i >= 0; i-- {
		for _, m := range linkRe.FindAllStringSubmatch(msgs[i].Text, -1) {
			if m[1] == kind {
				if !strings.HasPrefix(m[0], e.Server.URL+"/") {
					e.T.Fatalf("link %s is not under the base URL %s", m[0], e.Server.URL)
				}
				return m[2]
			}
		}
	}
	e.T.Fatalf("no %s link mailed to %s", kind, to)
	return ""
}
