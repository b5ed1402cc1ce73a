// Package api is the HTTP surface: one route table (routes.go) that the
// local server and every Lambda route group mount, the middleware every
// request passes (recover, log, authentication, key scope), the one mapping of
// application errors to statuses and {detail} bodies, and the OpenAPI
// document derived from the same table.
package api

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
)

// DefaultMaxBody caps request bodies unless a route says otherwise.
const DefaultMaxBody = 1 << 20

// CookieName is the session cookie of the spec.
const CookieName = "svc_session"

// Deps are the services the routes act on, each through the port the
// routes need of it (ports.go). A field whose comment says what nil means
// is optional; an optional port that is absent is left nil, never given a
// nil pointer (an interface holding one is not nil, so the route would
// call it). The other ports are set before their routes are called.
type Deps struct {
	Accounts Accounts
	Keys     Keys
	Features Features
	Scrape   Scrape
	Jobs     Jobs
	Events   Events
	Webhooks Webhooks
	// World moves the simulated map world forward (the admin's clock,
	// POST /api/admin/sim/advance); nil with a real map provider.
	World WorldClock
	// Files holds the files brand_assets re-hosts (the job file store).
	Files blob.Store
	// Pipelines creates, checks and reads pipelines.
	Pipelines Pipelines
	Veille    Veille
	// Exports builds the account export into the file store where
	// responses are capped (a Lambda); nil streams it in the request.
	Exports Exports
	// Companies is the company lookup; nil answers 503.
	Companies Companies
	// Delivery says whether delivery checks can run (seed mailboxes);
	// nil or not ready answers 503.
	Delivery interface{ Ready() bool }
	Log      *slog.Logger
	BaseURL  string
	// TrustedProxies are the peers whose X-Forwarded-For is believed; empty
	// means the connection's remote address is the client.
	TrustedProxies []netip.Prefix
}

// Server serves the API.
type Server struct {
	d      Deps
	routes []Route
	mux    *http.ServeMux
	secure bool   // session cookie marked Secure (https base URL)
	group  string // "" mounts every route
	// streamFor bounds one progress stream (WithStreamFor).
	streamFor time.Duration
	// crossOrigin refuses a browser's request from another site that
	// would change something (docs/console.md).
	crossOrigin *http.CrossOriginProtection
}

// Option changes what a server mounts.
type Option func(*Server)

// WithStreamFor bounds each progress stream: behind API Gateway a Lambda's
// response reaches the client only when it ends, so there a stream ends
// after a few seconds and the client resumes with Last-Event-ID.
func WithStreamFor(d time.Duration) Option {
	return func(s *Server) { s.streamFor = d }
}

// OnlyGroup mounts only the routes of one route group (Groups): what the
// group's Lambda serves.
func OnlyGroup(name string) Option {
	return func(s *Server) { s.group = name }
}

// New builds the server with every route of the table, or of one group.
func New(d Deps, opts ...Option) *Server {
	s := &Server{d: d, mux: http.NewServeMux(), secure: strings.HasPrefix(d.BaseURL, "https://"),
		crossOrigin: http.NewCrossOriginProtection()}
	if o, ok := originOf(d.BaseURL); ok {
		// The console's own origin, when a proxy (CloudFront) hands the
		// API a Host of its own.
		if err := s.crossOrigin.AddTrustedOrigin(o); err != nil && d.Log != nil {
			d.Log.Warn("api: base URL not trusted as an origin", "base_url", d.BaseURL, "err", err)
		}
	}
	for _, o := range opts {
		o(s)
	}
	s.routes = s.table()
	for i, rt := range s.routes {
		// A wildcard is checked before the route runs (checkPathIDs): a
		// route with one can always answer 404, and its document says so.
		if len(wildcards(rt.Path)) > 0 && !slices.Contains(rt.Errors, 404) {
			s.routes[i].Errors = append(slices.Clone(rt.Errors), 404)
		}
	}
	mounted := s.routes
	if s.group != "" {
		mounted = slices.DeleteFunc(slices.Clone(s.routes), func(rt Route) bool { return GroupOf(rt.Path) != s.group })
	}
	s.mount(mounted)
	return s
}

// Routes returns the route table (the OpenAPI document and the tests read it).
func (s *Server) Routes() []Route { return s.routes }

func (s *Server) mount(routes []Route) {
	methods := map[string][]string{}
	for _, rt := range routes {
		s.mux.Handle(rt.Method+" "+rt.Path, s.wrap(rt))
		methods[rt.Path] = append(methods[rt.Path], rt.Method)
	}
	// A known path called with another method is a 405 {detail}. The
	// fallback is registered per missing method, not for the bare path: a
	// bare "/api/jobs/parse-list" would conflict with "GET /api/jobs/{id}"
	// (each more specific in one respect). HEAD is left to GET.
	for p, ms := range methods {
		allow := strings.Join(slices.Sorted(slices.Values(ms)), ", ")
		notAllowed := func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", allow)
			writeError(w, r, s.d.Log, apperr.New(apperr.MethodNotAllowed, "Méthode non autorisée", "Method not allowed"))
		}
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
			if slices.Contains(ms, m) || (m == http.MethodHead && slices.Contains(ms, http.MethodGet)) {
				continue
			}
			s.mux.HandleFunc(m+" "+p, notAllowed)
		}
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, s.d.Log, apperr.New(apperr.NotFound, "Route inconnue", "Unknown route"))
	})
}

// ServeHTTP runs the middleware chain: recover, access log, authentication
// and key scope, then the route.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{ResponseWriter: w}
	defer func() {
		p := recover()
		if p == http.ErrAbortHandler {
			s.d.Log.InfoContext(r.Context(), "request aborted", "method", r.Method, "path", r.URL.Path,
				"bytes", rec.bytes, "dur_ms", float64(time.Since(start).Microseconds())/1000)
			panic(p) // net/http closes the connection without logging a stack
		}
		if p != nil {
			s.d.Log.ErrorContext(r.Context(), "panic", "method", r.Method, "path", r.URL.Path,
				"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			if !rec.wrote {
				writeError(rec, r, s.d.Log, apperr.New(apperr.Internal, "Erreur interne du serveur", "Internal server error"))
			}
		}
		s.d.Log.InfoContext(r.Context(), "request", "method", r.Method, "path", r.URL.Path,
			"status", rec.status(), "bytes", rec.bytes, "dur_ms", float64(time.Since(start).Microseconds())/1000)
	}()
	if strings.HasPrefix(r.URL.Path, "/api/") {
		// Before anything else: a cross-site form or fetch riding on the
		// session cookie changes nothing. Requests without the browser's
		// fetch metadata and Origin (curl, a server) pass.
		if err := s.crossOrigin.Check(r); err != nil {
			writeError(rec, r, s.d.Log, apperr.New(apperr.Forbidden,
				"Requête d'un autre site refusée.", "Request from another site refused."))
			return
		}
		c, err := s.authenticate(r)
		if err != nil {
			writeError(rec, r, s.d.Log, err)
			return
		}
		r = r.WithContext(withCaller(r.Context(), c))
	}
	s.mux.ServeHTTP(rec, r)
}

// authenticate resolves the caller. A presented key must be valid (else
// 401), belong to an active account (else 401) and stay within the key scope
// (else 403). A session cookie that is forged, ended or expired is ignored:
// the route then sees an anonymous caller.
func (s *Server) authenticate(r *http.Request) (*Caller, error) {
	ctx := r.Context()
	if secret, ok := presentedKey(r); ok {
		k, err := s.d.Keys.Authenticate(ctx, secret)
		if err != nil {
			return nil, err
		}
		u, err := s.d.Accounts.User(ctx, k.UserID)
		if apperr.Is(err, apperr.NotFound) {
			return nil, apperr.New(apperr.Unauthorized, "Clé d'API invalide ou révoquée", "Invalid or revoked API key")
		}
		if err != nil {
			return nil, err
		}
		if !u.IsActive {
			return nil, apperr.New(apperr.Unauthorized, "Compte désactivé", "Account deactivated")
		}
		if !KeyAllowed(r.Method, r.URL.Path) {
			return nil, apperr.New(apperr.Forbidden, "Route non accessible avec une clé d'API",
				"This route is not accessible with an API key")
		}
		return &Caller{User: u, Key: k}, nil
	}
	ck, err := r.Cookie(CookieName)
	if err != nil || ck.Value == "" {
		return &Caller{}, nil
	}
	sess, ok, err := s.d.Accounts.Session(ctx, ck.Value)
	if err != nil {
		return nil, err
	}
	if !ok {
		return &Caller{}, nil
	}
	u, err := s.d.Accounts.User(ctx, sess.UserID)
	if apperr.Is(err, apperr.NotFound) {
		return &Caller{}, nil
	}
	if err != nil {
		return nil, err
	}
	return &Caller{User: u, Session: sess}, nil
}

// wrap applies a route's own requirements: its credential kind, an active
// account when it mutates, its body cap; then runs it and answers its error.
func (s *Server) wrap(rt Route) http.Handler {
	maxBody := int64(DefaultMaxBody)
	if rt.MaxBody > 0 {
		maxBody = rt.MaxBody
	}
	ids := wildcards(rt.Path)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := CallerOf(r.Context())
		if err := rt.Auth.check(c); err != nil {
			writeError(w, r, s.d.Log, err)
			return
		}
		if rt.Active && c.User != nil && !c.User.IsActive {
			writeError(w, r, s.d.Log, apperr.New(apperr.Forbidden, "Compte désactivé", "Account deactivated"))
			return
		}
		if err := checkPathIDs(r, ids); err != nil {
			writeError(w, r, s.d.Log, err)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if err := rt.Handle(w, r, c); err != nil {
			writeError(w, r, s.d.Log, err)
		}
	})
}

// check enforces a route's credential kind.
func (a Auth) check(c *Caller) error {
	switch a {
	case Public:
		return nil
	case SessionOnly, Admin:
		if c.Key != nil {
			return apperr.New(apperr.Forbidden, "Route réservée à la session web", "This route needs a session, not an API key")
		}
	}
	if c.User == nil {
		return apperr.Unauthenticated()
	}
	if a == Admin && !c.User.IsAdmin {
		return apperr.New(apperr.Forbidden, "Réservé aux administrateurs", "Admins only")
	}
	return nil
}

// recorder remembers the status and size of a response for the access log.
type recorder struct {
	http.ResponseWriter
	code  int
	bytes int
	wrote bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.code, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.code, r.wrote = http.StatusOK, true
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

func (r *recorder) status() int {
	if !r.wrote {
		return http.StatusOK
	}
	return r.code
}

// Unwrap lets http.ResponseController reach the connection (flushing for
// event streams, deadlines).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Flush passes through so streaming routes work behind the recorder.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		if !r.wrote {
			r.code, r.wrote = http.StatusOK, true
		}
		f.Flush()
	}
}

// clientIP is the address rate limits key "per IP": the connection's remote
// address, or, behind a trusted proxy, the nearest untrusted address of
// X-Forwarded-For.
func (s *Server) clientIP(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	var addr netip.Addr
	if err == nil {
		addr = ap.Addr().Unmap()
	} else if a, err := netip.ParseAddr(r.RemoteAddr); err == nil {
		addr = a.Unmap()
	} else {
		return r.RemoteAddr
	}
	if !s.trusted(addr) {
		return addr.String()
	}
	hops := strings.Split(r.Header.Get("X-Forwarded-For"), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			break
		}
		a = a.Unmap()
		if !s.trusted(a) {
			return a.String()
		}
		addr = a
	}
	return addr.String()
}

func (s *Server) trusted(a netip.Addr) bool {
	for _, p := range s.d.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// originOf is the scheme and host of a base URL.
func originOf(base string) (string, bool) {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", false
	}
	return u.Scheme + "://" + u.Host, true
}

// safeMethod tells whether a method changes nothing (the cross-origin
// check lets it through).
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}
