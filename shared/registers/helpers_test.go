package registers

import (
	"github.com/prospectdata/svc/shared/registers/registerstest"
	"net/http"
	"net/url"
	"testing"
)

// testNow is the fake clock's start: the BODACC window is 2025-06-15 on.
var testNow = registerstest.Start

// fakeClock advances when slept on, and remembers the sleeps.
type fakeClock = registerstest.Clock

// reply is one canned answer: a testdata file (or body) with a status
// and headers.
type reply struct {
	status int
	file   string
	body   string
	header map[string]string
}

func (r reply) twin() registerstest.Reply {
	return registerstest.Reply{Status: r.status, File: r.file, Body: r.body, Header: r.header}
}

// apiServer is the registers' twin answering both APIs by a route
// function, and remembering the requests.
type apiServer struct{ *registerstest.Server }

func newUpstream(t testing.TB, route func(r *http.Request) reply) *apiServer {
	t.Helper()
	return &apiServer{registerstest.New(t, func(r *http.Request) registerstest.Reply { return route(r).twin() })}
}

// requests are the requests received so far.
func (u *apiServer) requests() []*url.URL { return u.Requests() }

// client is a Client over the upstream, on a fake clock, without jitter
// worth waiting for.
func (u *apiServer) client(t testing.TB, cfg Config) (*Client, *fakeClock) {
	t.Helper()
	clk := registerstest.NewClock()
	cfg.SearchURL, cfg.BodaccURL = u.URL(), u.URL()
	c, err := New(Deps{Config: cfg, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	return c, clk
}

// TestTwinPaths keeps the twin's BODACC path the client's.
func TestTwinPaths(t *testing.T) {
	if registerstest.BodaccPath != bodaccPath {
		t.Errorf("registerstest.BodaccPath %q, the client asks %q", registerstest.BodaccPath, bodaccPath)
	}
}

// isBodacc tells a BODACC request from a search one.
func isBodacc(r *http.Request) bool { return registerstest.IsBodacc(r) }

// fixtures is the route of the recorded answers (registerstest.Fixtures).
func fixtures(r *http.Request) reply { return reply{file: registerstest.Fixtures(r).File} }
