// Package enrich runs the enrichment modules of item-driven jobs. A module
// reads a few cells of an item (a row of an earlier job: its site_web, its
// nom), fetches what it needs through the job's crawl session, and returns
// its columns (the spec's Produces list, in order). The extraction itself
// lives in one package per concern under shared/enrich/ (emails, socials,
// legalids, ...), pure functions over fetched pages; this package binds
// them to the fetcher, the file store and the engine.
package enrich

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/placerow"
)

// Input is the cells of an item a module reads (its Reads keys).
type Input map[string]string

// Job is what a module knows of the job it works for.
type Job struct {
	ID     string
	UserID int64
	// Options are the job's settings: every option of its module
	// (modules.Entry.Options), defaults filled.
	Options modules.Values
}

// Env is a module's view of one item's run.
type Env struct {
	// Session fetches pages, shared by the items of a job on one worker so
	// that a page is fetched once.
	Session *crawl.Session
	Job     Job
}

// Result is a module's answer for one item.
type Result struct {
	// Values are the module's columns, aligned with Columns().
	Values []string
	// Unreachable says the item's site (or source) could not be read: its
	// cells are empty for that reason, not because it holds nothing. The
	// job counts these in error_count.
	Unreachable bool
	// Found says the module found something for the item (a job's log
	// reports how many items it enriched).
	Found bool
	// Failure says what of the item's paid work failed though its site
	// was read (brand_assets' screenshot), as the job's log says it (en,
	// fr; "" for nothing): the job counts the item in error_count, logs
	// the cause and gives back Uncharged.
	Failure   string
	FailureFR string
	// Uncharged is the share (0 to 1) of the item's price its failed work
	// stood for, refunded to the account (a screenshot's surcharge).
	Uncharged float64
}

// Module is one enrichment module.
type Module interface {
	// Slug is the module's registry slug (its job_type).
	Slug() string
	// Columns is the spec's Produces list, in order.
	Columns() []string
	// Reads is the item keys the module reads: its Needs first, then the
	// optional ones it uses when present.
	Reads() []string
	// Run enriches one item. Its error is only for what a retry of the
	// batch may mend (a file store failing, ctx ended); a site that is
	// down or says nothing is a Result.
	Run(ctx context.Context, env *Env, in Input) (Result, error)
}

// Sourced is a module reading a data source other than the item's own
// website (a register, an API, the map provider). Source names it as the
// job shows it: "sim" (or "<name> (sim)") for the simulated twin of an
// offline run, so that simulated data is never passed off as real.
type Sourced interface {
	Source() string
}

// Noted is a module with something every job's log must say at its start
// (en and fr; "" for nothing): a source it runs without, so that columns
// left empty for that reason are never silently empty.
type Noted interface {
	JobNote() (en, fr string)
}

// Distinct is a module some of whose columns share a name with common
// item columns but not their meaning: verify's category (of an email)
// against a scrape's category (of a business). Where an item has such a
// column, the module's goes after the item's columns as "<name>_2" and
// the item's keeps its values. Every other collision is the same data
// (site_finder's site_web, opendata's telephone): the module's non-empty
// value fills the item's cell in place (docs/enrichment.md).
type Distinct interface {
	DistinctColumns() []string
}

// SourceOf is the source a job of the module reads: the module's own
// when it says one, "web" (the items' websites) otherwise.
func SourceOf(m Module) string {
	if s, ok := m.(Sourced); ok {
		return s.Source()
	}
	return "web"
}

// ItemTimeout bounds one item's run: a slow site cannot hold a batch.
const ItemTimeout = 90 * time.Second

// Set holds the modules a runtime offers, by slug.
type Set struct {
	mods map[string]Module
	f    *crawl.Fetcher
	log  *slog.Logger
	// web names the websites the site modules read: "web", or "sim"
	// when the fetcher answers from the sim world's fixture web.
	web string
}

// WebSource names what the site modules read (default "web"); an
// offline run over the sim world's fixture web says "sim".
func (s *Set) WebSource(name string) *Set {
	s.web = name
	return s
}

// NewSet returns the set of mods over the fetcher: the binding of the
// registry's modules to their code. A module is bound once, to a slug the
// registry declares as a module of items, with the registry's columns
// (Produces) in their order: the registry says what a module is, its code
// only how it runs, and NewSet refuses a binding that disagrees.
func NewSet(f *crawl.Fetcher, log *slog.Logger, mods ...Module) (*Set, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Set{mods: map[string]Module{}, f: f, log: log, web: "web"}
	for _, m := range mods {
		if m == nil {
			continue
		}
		slug := m.Slug()
		e, ok := modules.Lookup(slug)
		switch {
		case !ok || !e.Items():
			return nil, fmt.Errorf("module %q: the registry declares no module of items of that slug", slug)
		case !slices.Equal(m.Columns(), e.Produces):
			return nil, fmt.Errorf("module %q: columns %v, the registry's are %v", slug, m.Columns(), e.Produces)
		case s.mods[slug] != nil:
			return nil, fmt.Errorf("module %q bound twice", slug)
		}
		s.mods[slug] = m
	}
	return s, nil
}

// Lookup returns the module of a slug.
func (s *Set) Lookup(slug string) (Module, bool) {
	if s == nil {
		return nil, false
	}
	m, ok := s.mods[slug]
	return m, ok
}

// Source is the source a job of the module reads (SourceOf); "" for a
// slug the set lacks.
func (s *Set) Source(slug string) string {
	m, ok := s.Lookup(slug)
	if !ok {
		return ""
	}
	if src, ok := m.(Sourced); ok {
		return src.Source()
	}
	return s.web
}

// Fetcher is the set's polite fetcher (an import reads a spreadsheet
// address with it).
func (s *Set) Fetcher() *crawl.Fetcher { return s.f }

// Session starts a page session over the set's fetcher.
func (s *Set) Session() *crawl.Session { return s.f.Session(0) }

// errUnusable marks an item whose site cell holds no usable address.
var errUnusable = errors.New("enrich: no usable site address")

// home fetches the site of the item's site_web cell. The page is nil with
// errUnusable when the cell is empty or not an address, nil with the
// fetch error when the site cannot be read, and a page with a status of
// 400 or more is returned as an error too (an error page says nothing of
// the business).
func home(ctx context.Context, env *Env, in Input) (*crawl.Page, error) {
	u, ok := placerow.SiteURL(in["site_web"])
	if !ok {
		return nil, errUnusable
	}
	p, err := env.Session.Fetch(ctx, u.String())
	if err != nil {
		return nil, err
	}
	if p.Status >= 400 {
		return p, &StatusError{Status: p.Status}
	}
	return p, nil
}

// StatusError is a page answered with an HTTP error status.
type StatusError struct{ Status int }

func (e *StatusError) Error() string { return "http status " + strconv.Itoa(e.Status) }

// sameSite tells whether u is on the host of base (www. ignored), so that
// a module follows the site's own links only.
func sameSite(base, u *url.URL) bool {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	strip := func(h string) string { return strings.TrimPrefix(strings.ToLower(h), "www.") }
	return strip(base.Hostname()) == strip(u.Hostname())
}

// fetchAll fetches the URLs (same site only, each once) and returns the
// pages that answered below 400, in order. A page that fails is skipped:
// the home page already proved the site alive.
func fetchAll(ctx context.Context, env *Env, base *url.URL, us []*url.URL) []*crawl.Page {
	var out []*crawl.Page
	seen := map[string]bool{}
	for _, u := range us {
		if !sameSite(base, u) {
			continue
		}
		key := u.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		p, err := env.Session.Fetch(ctx, key)
		if err != nil || p.Status >= 400 {
			continue
		}
		out = append(out, p)
	}
	return out
}

// empty is a row of n empty cells.
func empty(n int) []string { return make([]string, n) }

// goquerySel is a goquery selection (an alias keeps the modules' code
// short).
type goquerySel = goquery.Selection
