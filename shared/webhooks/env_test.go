package webhooks_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/clocktest"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/queue"
	qbolt "github.com/prospectdata/svc/shared/queue/bolt"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
	"github.com/prospectdata/svc/shared/webhooks"
)

// verified is the Go snippet of docs/webhooks.md, as a receiver writes it.
func verified(secret string, body []byte, header string) bool {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	want := "sha256=" + hex.EncodeToString(m.Sum(nil))
	return hmac.Equal([]byte(want), []byte(header))
}

// hit is one request the receiver got.
type hit struct {
	header http.Header
	body   []byte
	at     time.Time // on the test clock
}

// receiver is a real TLS server answering with status().
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	hits   []hit
	status atomic.Int64
}

func (r *receiver) got() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hit(nil), r.hits...)
}

type env struct {
	t      *testing.T
	clock  *clocktest.Clock
	db     store.DB
	q      queue.Queue
	events *events.Service
	svc    *webhooks.Service
	recv   *receiver
	ids    atomic.Int64
}

// newEnv wires the service over bbolt tables and queue on a test clock,
// with a TLS receiver on loopback that the guard trusts (test-only
// allowance of 127.0.0.1).
func newEnv(t *testing.T, opts ...netguard.Option) *env {
	t.Helper()
	dir := t.TempDir()
	c := clocktest.New(time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC))
	db, err := bolt.Open(filepath.Join(dir, "tables.db"), []store.Schema{events.Schema(), webhooks.Schema()}, bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	q, err := qbolt.Open(filepath.Join(dir, "queue.db"),
		[]queue.Config{{Name: webhooks.QueueName, VisibilityTimeout: time.Minute}}, qbolt.WithClock(c.Now), qbolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	e := &env{t: t, clock: c, db: db, q: q, events: events.New(db, c.Now), recv: &receiver{}}
	e.recv.status.Store(http.StatusNoContent)
	e.recv.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		e.recv.mu.Lock()
		e.recv.hits = append(e.recv.hits, hit{header: r.Header.Clone(), body: body, at: c.Now()})
		e.recv.mu.Unlock()
		w.WriteHeader(int(e.recv.status.Load()))
	}))
	t.Cleanup(e.recv.srv.Close)
	pool := e.recv.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	guard := netguard.New(append([]netguard.Option{
		netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")), netguard.WithRootCAs(pool),
	}, opts...)...)
	e.svc = webhooks.New(webhooks.Deps{
		DB: db, Queue: q, Events: e.events, Check: guard, Client: guard.Client(webhooks.Timeout), Now: c.Now,
		IDs: func(context.Context, string) (int64, error) { return e.ids.Add(1), nil },
	})
	return e
}

// create makes an endpoint of uid on the receiver.
func (e *env) create(uid int64, types []string, secret string) *webhooks.Endpoint {
	e.t.Helper()
	var s *string
	if secret != "" {
		s = &secret
	}
	ep, err := e.svc.Create(context.Background(), uid, e.recv.srv.URL+"/hook", types, s)
	if err != nil {
		e.t.Fatal(err)
	}
	return ep
}

// emit appends an event and fans it out as the change feed would.
func (e *env) emit(uid int64, typ string) events.Event {
	e.t.Helper()
	ev, err := e.events.Append(context.Background(), uid, typ, events.JobData{ID: "job1", JobType: "scrap", Status: "done"})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.svc.FanOut(context.Background(), uid, ev); err != nil {
		e.t.Fatal(err)
	}
	return ev
}

// drain handles every delivery visible now.
func (e *env) drain() int {
	e.t.Helper()
	n, err := e.svc.Drain(context.Background(), 0)
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}
