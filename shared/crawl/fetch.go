package crawl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/temoto/robotstxt"
	"golang.org/x/net/html/charset"

	"github.com/prospectdata/svc/shared/upstream"
)

// Limits of one fetch (docs/crawl.md).
const (
	// MaxBody is how much of a body is read; the rest is dropped (Page.Body
	// is cut, Truncated says so).
	MaxBody = 2 << 20
	// MaxRedirects is how many redirects a fetch follows.
	MaxRedirects = 5
	// Timeout bounds one fetch, redirects included.
	Timeout = 15 * time.Second
	// PerHost is how many requests run at once against one host.
	PerHost = 2
	// Delay is the least time between two requests to one host; a
	// robots.txt Crawl-delay raises it, up to MaxDelay.
	Delay = 250 * time.Millisecond
	// MaxDelay caps a robots.txt Crawl-delay: a site asking for more is
	// fetched at this pace (its few pages still come in a few seconds).
	MaxDelay = 5 * time.Second
	// maxRobots is how much of a robots.txt is read (Google reads 500 KiB).
	maxRobots = 512 << 10
	// robotsTTL is how long a host's robots.txt is kept.
	robotsTTL = time.Hour
	// maxHosts bounds the per-host state kept (robots rules, pacing).
	maxHosts = 4096
)

// Errors of a fetch, matched with errors.Is.
var (
	// ErrRobots: the site's robots.txt disallows the URL for our agent.
	ErrRobots = errors.New("crawl: disallowed by robots.txt")
	// ErrScheme: not an http or https URL.
	ErrScheme = errors.New("crawl: not an http(s) URL")
	// ErrRedirects: more than MaxRedirects redirects.
	ErrRedirects = errors.New("crawl: too many redirects")
)

// Deps are the fetcher's dependencies.
type Deps struct {
	// Transport sends the requests. In production it is the netguard
	// client's (public addresses only, checked when connecting), in front
	// of which the sim world's fixture web answers its own hosts.
	Transport http.RoundTripper
	// UserAgent is sent with every request; Agent is the token robots.txt
	// groups are matched against.
	UserAgent, Agent string
	Now              func() time.Time
	Sleep            func(ctx context.Context, d time.Duration) error
	Log              *slog.Logger
}

// Fetcher fetches pages politely. It is safe for concurrent use and keeps
// per-host state (robots.txt, pacing) across jobs.
type Fetcher struct {
	d      Deps
	client *http.Client

	mu    sync.Mutex
	hosts map[string]*host
}

// host is the state of one scheme://host:port.
type host struct {
	slots   chan struct{}
	mu      sync.Mutex
	next    time.Time // the earliest start of the next request
	robots  *robotstxt.RobotsData
	delay   time.Duration
	fetched time.Time // when robots was read; zero before
	robotsM sync.Mutex
}

// New returns a fetcher.
func New(d Deps) *Fetcher {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Sleep == nil {
		d.Sleep = upstream.Sleep
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Agent == "" {
		d.Agent = "svc-crawler"
	}
	if d.UserAgent == "" {
		d.UserAgent = d.Agent + "/1.0"
	}
	return &Fetcher{
		d: d,
		client: &http.Client{
			Transport: d.Transport,
			// Redirects are followed by Fetch, one hop at a time, so that
			// each hop passes robots.txt and the pacing of its host.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		hosts: map[string]*host{},
	}
}

// Fetch GETs raw, following redirects, and returns the final page (any
// status: a 404 page is a page). The error is a transport error (DNS,
// TLS, refused, timeout, an address refused by the guard), ErrRobots,
// ErrScheme or ErrRedirects, wrapped with the URL.
func (f *Fetcher) Fetch(ctx context.Context, raw string) (*Page, error) {
	return f.fetch(ctx, raw, fetchOpts{robots: true, max: MaxBody, timeout: Timeout})
}

// MaxFile and FileTimeout bound FetchFile.
const (
	MaxFile     = 16 << 20
	FileTimeout = 60 * time.Second
)

// ErrTooLarge: a file longer than FetchFile's cap.
var ErrTooLarge = errors.New("crawl: file too large")

// FetchFile GETs a file a user named (an import's spreadsheet address):
// the same guarded transport, redirect cap, pacing and User-Agent as
// Fetch, but not robots.txt, which governs crawling, not one read a user
// asks for (docs/crawl.md), and the bytes as they came, at most max
// (MaxFile when 0 or more than MaxFile); a longer file is ErrTooLarge.
func (f *Fetcher) FetchFile(ctx context.Context, raw string, max int64) (*Page, error) {
	if max <= 0 || max > MaxFile {
		max = MaxFile
	}
	return f.fetch(ctx, raw, fetchOpts{max: max, raw: true, timeout: FileTimeout})
}

// fetchOpts are what differs between a crawl's page and a named file.
type fetchOpts struct {
	robots  bool
	raw     bool // keep the bytes; a body over max is an error
	max     int64
	timeout time.Duration
}

func (f *Fetcher) fetch(ctx context.Context, raw string, o fetchOpts) (*Page, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("crawl: %q: %w", raw, err)
	}
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	for hop := 0; ; hop++ {
		if u.Scheme != "http" && u.Scheme != "https" {
			return nil, fmt.Errorf("%s: %w", u, ErrScheme)
		}
		u.Fragment = ""
		p, next, err := f.get(ctx, u, o)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: %w", u.Redacted(), err)
		}
		if next == nil {
			return p, nil
		}
		if hop == MaxRedirects {
			return nil, fmt.Errorf("fetch %s: %w", raw, ErrRedirects)
		}
		u = next
	}
}

// get makes one request; next is the redirect target when the answer is a
// redirect with a Location.
func (f *Fetcher) get(ctx context.Context, u *url.URL, o fetchOpts) (*Page, *url.URL, error) {
	h := f.host(u)
	if o.robots {
		if err := f.allowed(ctx, h, u); err != nil {
			return nil, nil, err
		}
	}
	res, err := f.do(ctx, h, u)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	if loc := res.Header.Get("Location"); res.StatusCode >= 300 && res.StatusCode < 400 && loc != "" {
		next, err := u.Parse(loc)
		if err != nil {
			return nil, nil, fmt.Errorf("bad Location %q: %w", loc, err)
		}
		return nil, next, nil
	}
	if o.raw {
		body, err := io.ReadAll(io.LimitReader(res.Body, o.max+1))
		if err != nil {
			return nil, nil, fmt.Errorf("read body: %w", err)
		}
		if int64(len(body)) > o.max {
			return nil, nil, fmt.Errorf("more than %d bytes: %w", o.max, ErrTooLarge)
		}
		return NewPage(u, res.StatusCode, res.Header, body), nil, nil
	}
	body, err := readBody(res)
	if err != nil {
		return nil, nil, err
	}
	return NewPage(u, res.StatusCode, res.Header, body), nil, nil
}

// do sends one GET within the host's concurrency and pacing.
func (f *Fetcher) do(ctx context.Context, h *host, u *url.URL) (*http.Response, error) {
	select {
	case h.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-h.slots }()
	h.mu.Lock()
	now := f.d.Now()
	start := now
	if h.next.After(now) {
		start = h.next
	}
	gap := Delay
	if h.delay > gap {
		gap = h.delay
	}
	h.next = start.Add(gap)
	h.mu.Unlock()
	if wait := start.Sub(now); wait > 0 {
		if err := f.d.Sleep(ctx, wait); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", f.d.UserAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5")
	req.Header.Set("Accept-Language", "fr-FR,fr;q=0.9,en;q=0.7")
	return f.client.Do(req)
}

// readBody reads at most MaxBody bytes and decodes them to UTF-8 from the
// Content-Type charset, a <meta charset> or the bytes themselves
// (golang.org/x/net/html/charset). gzip is undone by the transport.
func readBody(res *http.Response) ([]byte, error) {
	raw, err := io.ReadAll(io.LimitReader(res.Body, MaxBody))
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	ct := res.Header.Get("Content-Type")
	if ct == "" {
		// No type said: the bytes tell whether it is text (an image served
		// bare must not go through a text decoder); text keeps no type, so
		// that the decoder reads its <meta charset>.
		if sniffed := http.DetectContentType(raw); !strings.HasPrefix(sniffed, "text/") {
			ct = sniffed
		}
	}
	if mt, _, _ := mime.ParseMediaType(ct); mt != "" && !strings.HasPrefix(mt, "text/") && !strings.Contains(mt, "html") &&
		!strings.Contains(mt, "xml") && !strings.Contains(mt, "json") {
		return raw, nil // an image or a file: bytes as they are
	}
	r, err := charset.NewReader(bytes.NewReader(raw), ct)
	if err != nil {
		return raw, nil // an unknown charset: the bytes as they came
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return raw, nil
	}
	return out, nil
}

// host returns the state of u's host, creating it; beyond maxHosts the
// map is reset (the state is a cache: robots.txt is read again).
func (f *Fetcher) host(u *url.URL) *host {
	key := u.Scheme + "://" + strings.ToLower(u.Host)
	f.mu.Lock()
	defer f.mu.Unlock()
	h := f.hosts[key]
	if h == nil {
		if len(f.hosts) >= maxHosts {
			clear(f.hosts)
		}
		h = &host{slots: make(chan struct{}, PerHost)}
		f.hosts[key] = h
	}
	return h
}

// allowed reads the host's robots.txt when it has none fresh and tests
// u's path against our agent's group. A robots.txt that cannot be fetched
// (no answer) allows everything, as a 404 does; a 5xx disallows all
// (Google's reading, which the library follows).
func (f *Fetcher) allowed(ctx context.Context, h *host, u *url.URL) error {
	if u.Path == "/robots.txt" {
		return nil
	}
	h.robotsM.Lock()
	defer h.robotsM.Unlock()
	if h.fetched.IsZero() || f.d.Now().Sub(h.fetched) > robotsTTL {
		g, err := f.readRobots(ctx, u)
		if err != nil && ctx.Err() != nil {
			return err
		}
		h.robots, h.fetched = g, f.d.Now()
		h.mu.Lock()
		h.delay = 0
		if g != nil {
			h.delay = min(g.FindGroup(f.d.Agent).CrawlDelay, MaxDelay)
		}
		h.mu.Unlock()
	}
	if h.robots != nil && !h.robots.TestAgent(u.EscapedPath(), f.d.Agent) {
		return ErrRobots
	}
	return nil
}

// readRobots fetches /robots.txt (following redirects, as crawlers do)
// and returns its rules; nil means everything is allowed.
func (f *Fetcher) readRobots(ctx context.Context, u *url.URL) (*robotstxt.RobotsData, error) {
	ru := &url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/robots.txt"}
	for hop := 0; hop <= MaxRedirects; hop++ {
		res, err := f.do(ctx, f.host(ru), ru)
		if err != nil {
			f.d.Log.Debug("robots.txt unreachable: everything allowed", "url", ru.String(), "err", err)
			return nil, err
		}
		loc := res.Header.Get("Location")
		if res.StatusCode >= 300 && res.StatusCode < 400 && loc != "" {
			res.Body.Close()
			next, err := ru.Parse(loc)
			if err != nil || (next.Scheme != "http" && next.Scheme != "https") {
				return nil, nil
			}
			ru = next
			continue
		}
		body, err := io.ReadAll(io.LimitReader(res.Body, maxRobots))
		res.Body.Close()
		if err != nil {
			return nil, nil
		}
		data, err := robotstxt.FromStatusAndBytes(res.StatusCode, body)
		if err != nil || data == nil {
			return nil, nil
		}
		return data, nil
	}
	return nil, nil
}
