package crawl

import (
	"context"
	"net/url"
	"strings"
	"sync"
)

// DefaultSessionPages and SessionBytes bound a session's cache: by count,
// and by the bodies held (a job's batches share a session; at most a few
// sessions live in a process, so memory stays bounded however many items a
// job has).
const (
	DefaultSessionPages = 512
	SessionBytes        = 32 << 20
)

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
	bytes int
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
		if len(s.pages) >= s.max || s.bytes >= SessionBytes {
			clear(s.pages)
			s.bytes = 0
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
	s.mu.Lock()
	switch {
	case c.err != nil && ctx.Err() != nil:
		// Our own deadline is not the site's fault: forget it.
		if s.pages[key] == c {
			delete(s.pages, key)
		}
	case c.page != nil:
		s.bytes += len(c.page.Body)
	}
	s.mu.Unlock()
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
