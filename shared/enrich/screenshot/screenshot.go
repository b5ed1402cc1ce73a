// Package screenshot renders a website's home page to a PNG with headless
// Chromium, driven from Go over the DevTools protocol (chromedp).
//
// Chromium never reaches the network itself. Every request the page makes
// is paused (the Fetch domain) and answered by the service from its own
// transport: the crawler's, which connects to public addresses only (and,
// with the simulated provider, serves the sim world's sites). On top of
// that, Chromium is started with a host resolver that resolves nothing and
// a proxy that does not exist, so a request that escaped the interception
// would fail rather than reach an internal address. A page cannot make the
// browser read the metadata service or the private network.
package screenshot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// Limits of one screenshot.
const (
	// Width and Height are the viewport: a common laptop screen.
	Width, Height = 1280, 800
	// Timeout bounds one screenshot, the page's load included.
	Timeout = 30 * time.Second
	// MaxResources is how many requests a page may make; the rest fail.
	MaxResources = 150
	// MaxResource caps one answer's body.
	MaxResource = 8 << 20
	// Tabs is how many screenshots run at once in one browser.
	Tabs = 2
)

// ErrNoBrowser: no Chromium was found.
var ErrNoBrowser = errors.New("screenshot: no Chromium found")

// Find returns the path of a Chromium or Chrome executable, or "".
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Browser takes screenshots in one headless Chromium, started on first use
// and kept for the next ones. It is safe for concurrent use.
type Browser struct {
	exec      string
	pack      string // a pack's directory, unpacked on first use (Pack)
	client    *http.Client
	userAgent string
	slots     chan struct{}

	mu      sync.Mutex
	ctx     context.Context // the browser's; nil until started
	cancel  context.CancelFunc
	started bool
}

// Option tunes a Browser.
type Option func(*Browser)

// Pack has the browser run the serverless Chromium pack in dir (see
// Unpack), unpacked into the temporary directory on the first screenshot;
// execPath is then ignored.
func Pack(dir string) Option { return func(b *Browser) { b.pack = dir } }

// New returns a browser over the Chromium at execPath whose requests are
// all answered through tr.
func New(execPath string, tr http.RoundTripper, userAgent string, opts ...Option) *Browser {
	b := &Browser{
		exec: execPath,
		client: &http.Client{
			Transport: tr, Timeout: 10 * time.Second,
			// Chromium follows the redirects itself, each one a new
			// request paused and answered here.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		userAgent: userAgent,
		slots:     make(chan struct{}, Tabs),
	}
	for _, o := range opts {
		o(b)
	}
	return b
}

// browser starts Chromium once.
func (b *Browser) browser() (context.Context, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started {
		return b.ctx, nil
	}
	var extra []chromedp.ExecAllocatorOption
	if b.pack != "" {
		exe, env, err := Unpack(b.pack, filepath.Join(os.TempDir(), "chromium"))
		if err != nil {
			return nil, err
		}
		b.exec = exe
		extra = append(extra, chromedp.Env(env...))
		for k, v := range packFlags {
			extra = append(extra, chromedp.Flag(k, v))
		}
	}
	if b.exec == "" {
		return nil, ErrNoBrowser
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(b.exec),
		chromedp.NoSandbox, // the service runs unprivileged in a container; the page runs no code of ours
		chromedp.WindowSize(Width, Height),
		chromedp.UserAgent(b.userAgent),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
	)
	opts = append(opts, extra...)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	// The first run starts the process; it must not carry a deadline.
	if err := chromedp.Do(ctx); err != nil {
		cancelCtx()
		cancelAlloc()
		return nil, fmt.Errorf("screenshot: start %s: %w", b.exec, err)
	}
	b.ctx, b.started = ctx, true
	b.cancel = func() { cancelCtx(); cancelAlloc() }
	return ctx, nil
}

// Close stops the browser.
func (b *Browser) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started {
		b.cancel()
		b.started = false
	}
}

// Screenshot renders u in a new tab and returns the viewport as a PNG.
func (b *Browser) Screenshot(ctx context.Context, u *url.URL) ([]byte, error) {
	select {
	case b.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-b.slots }()
	bctx, err := b.browser()
	if err != nil {
		return nil, err
	}
	tab, closeTab := chromedp.NewContext(bctx)
	defer closeTab()
	// The tab ends with the caller's context or the timeout, whichever
	// comes first.
	stop := context.AfterFunc(ctx, closeTab)
	defer stop()
	timer := time.AfterFunc(Timeout, closeTab)
	defer timer.Stop()

	paused := chromedp.Events(tab, fetch.RequestPaused)
	if _, err := chromedp.Call(tab, fetch.Enable, fetch.EnableParams{}); err != nil {
		return nil, fmt.Errorf("screenshot: intercept: %w", err)
	}
	var served atomic.Int64
	var wg sync.WaitGroup
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			wg.Go(func() { b.answer(tab, ev, served.Add(1)) })
		}
	}()
	err = chromedp.Do(tab, chromedp.EmulateViewport(Width, Height), chromedp.Navigate(u.String()),
		chromedp.Sleep(500*time.Millisecond)) // late images and fonts
	var png []byte
	if err == nil {
		png, err = chromedp.Run(tab, chromedp.CaptureScreenshot())
	}
	closeTab()
	wg.Wait()
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("screenshot of %s: %w", u.Redacted(), err)
	}
	return png, nil
}

// answer serves one paused request from the transport, or fails it.
func (b *Browser) answer(tab context.Context, ev fetch.EventRequestPaused, n int64) {
	fail := func() {
		_, _ = chromedp.Call(tab, fetch.FailRequest, fetch.FailRequestParams{
			RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient,
		})
	}
	if n > MaxResources || ev.Request == nil || (ev.Request.Method != http.MethodGet && ev.Request.Method != http.MethodHead) {
		fail()
		return
	}
	req, err := http.NewRequestWithContext(tab, ev.Request.Method, ev.Request.URL, nil)
	if err != nil || (req.URL.Scheme != "http" && req.URL.Scheme != "https") {
		fail()
		return
	}
	req.Header.Set("User-Agent", b.userAgent)
	for k, v := range ev.Request.Headers {
		if s, ok := v.(string); ok && (k == "Accept" || k == "Accept-Language" || k == "Referer") {
			req.Header.Set(k, s)
		}
	}
	res, err := b.client.Do(req)
	if err != nil {
		fail()
		return
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxResource))
	if err != nil {
		fail()
		return
	}
	var headers []*fetch.HeaderEntry
	for k, vs := range res.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Content-Length", "Content-Encoding", "Transfer-Encoding":
			continue // the body given is whole and decoded
		}
		for _, v := range vs {
			headers = append(headers, &fetch.HeaderEntry{Name: k, Value: v})
		}
	}
	_, _ = chromedp.Call(tab, fetch.FulfillRequest, fetch.FulfillRequestParams{
		RequestID: ev.RequestID, ResponseCode: int64(res.StatusCode), ResponseHeaders: headers, Body: body,
	})
}
