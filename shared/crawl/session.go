package crawl

import (
	"context"
	"net/url"
	"strings"
	"sync"
)

// DefaultSessionPages bounds a session's cache.
const DefaultSessionPages = 512

// Session is one job's view of the fetcher: the pages it fetched are kept,
// so that two parts of a job asking for the same URL (an extractor's
// contact page that is also another's legal page, a batch retried) fetch
// it once, and concurrent asks wait for the one fetch in flight. Its cache
// is bounded; beyond it, pages are fetched again.
type Session struct {
	f   *Fetcher
	max int

	mu    sync.Mutex
	pages map[string]*cached
}

type cached struct {
	done chan struct{}
	page *Page
	err  error
}

// Session returns a new session over the fetcher; maxPages <= 0 means
// DefaultSessionPages.
func (f *Fetcher) Session(maxPages int) *Session {
	if maxPages <= 0 {
		maxPages = DefaultSessionPages
	}
	return &Session{f: f, max: maxPages, pages: map[string]*cached{}}
}

// Fetch returns the page of raw, from the session's cache when it holds it
// (errors included: a dead site is not asked twice by one job).
func (s *Session) Fetch(ctx context.Context, raw string) (*Page, error) {
	key := cacheKey(raw)
	s.mu.Lock()
	c, ok := s.pages[key]
	if !ok {
		if len(s.pages) >= s.max {
			clear(s.pages)
		}
		c = &cached{done: make(chan struct{})}
		s.pages[key] = c
	}
	s.mu.Unlock()
	if ok {
		select {
		case <-c.done:
			return c.page, c.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c.page, c.err = s.f.Fetch(ctx, raw)
	if c.err != nil && ctx.Err() != nil {
		// Our own deadline is not the site's fault: forget it.
		s.mu.Lock()
		delete(s.pages, key)
		s.mu.Unlock()
	}
	close(c.done)
	return c.page, c.err
}

// cacheKey is raw without its fragment, scheme and host lower-cased.
func cacheKey(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Fragment = ""
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	return u.String()
}
