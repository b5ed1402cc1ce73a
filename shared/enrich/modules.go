package enrich

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich/ads"
	"github.com/prospectdata/svc/shared/enrich/deadsite"
	"github.com/prospectdata/svc/shared/enrich/emails"
	"github.com/prospectdata/svc/shared/enrich/legalids"
	"github.com/prospectdata/svc/shared/enrich/mentions"
	"github.com/prospectdata/svc/shared/enrich/phones"
	"github.com/prospectdata/svc/shared/enrich/socials"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/placerow"
)

// siteModule is a module over the pages of an item's site: it reads
// site_web (and extra keys), gathers pages, and extracts its columns.
type siteModule struct {
	slug    string
	columns []string
	extra   []string // keys read besides site_web
	// gather returns the pages to extract from, the home page first.
	gather func(ctx context.Context, env *Env, site *url.URL, home *crawl.Page) []*crawl.Page
	// extract returns the columns and whether they say anything.
	extract func(env *Env, in Input, pages []*crawl.Page) ([]string, bool)
}

func (m *siteModule) Slug() string      { return m.slug }
func (m *siteModule) Columns() []string { return m.columns }
func (m *siteModule) Reads() []string   { return append([]string{"site_web"}, m.extra...) }

func (m *siteModule) Run(ctx context.Context, env *Env, in Input) (Result, error) {
	site, ok := placerow.SiteURL(in["site_web"])
	if !ok {
		return Result{Values: empty(len(m.columns))}, nil
	}
	h, err := home(ctx, env, in)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Result{Values: empty(len(m.columns)), Unreachable: true}, nil
	}
	pages := []*crawl.Page{h}
	if m.gather != nil {
		pages = m.gather(ctx, env, site, h)
	}
	vals, found := m.extract(env, in, pages)
	return Result{Values: vals, Found: found}, nil
}

// homeOnly gathers the home page alone (what fingerprints and tags need:
// they sit in every page's template).
func homeOnly(_ context.Context, _ *Env, _ *url.URL, h *crawl.Page) []*crawl.Page {
	return []*crawl.Page{h}
}

// contactPages gathers the home page and its contact, legal-notice and
// about pages (at most 5, same site), where a small business shows its
// addresses, numbers, profiles and company ids.
func contactPages(ctx context.Context, env *Env, site *url.URL, h *crawl.Page) []*crawl.Page {
	return append([]*crawl.Page{h}, fetchAll(ctx, env, h.URL, emails.Links(h))...)
}

func anyValue(vs []string) bool {
	for _, v := range vs {
		if v != "" {
			return true
		}
	}
	return false
}

// SiteModules are the modules over a site's pages that need nothing but
// the fetcher: socials, legal_ids, legal_mentions, phones_extra, pricing,
// ads_intelligence, dead_check, and emails.
func SiteModules() []Module {
	return []Module{
		emailsModule(),
		&siteModule{
			slug: modules.Socials, columns: socials.Columns, gather: contactPages,
			extract: func(_ *Env, _ Input, pages []*crawl.Page) ([]string, bool) {
				v := socials.Find(pages).Values()
				return v, anyValue(v)
			},
		},
		&siteModule{
			slug: modules.LegalIDs, columns: legalids.Columns, gather: contactPages,
			extract: func(_ *Env, _ Input, pages []*crawl.Page) ([]string, bool) {
				v := legalids.Find(pages).Values()
				return v, anyValue(v)
			},
		},
		&siteModule{
			slug: modules.LegalMentions, columns: mentions.Columns, gather: contactPages,
			extract: func(_ *Env, _ Input, pages []*crawl.Page) ([]string, bool) {
				for _, p := range pages {
					if mentions.IsLegalPage(p) {
						v := mentions.Parse(p).Values()
						return v, anyValue(v)
					}
				}
				return empty(len(mentions.Columns)), false
			},
		},
		&siteModule{
			slug: modules.PhonesExtra, columns: phones.Columns, extra: []string{"telephone"}, gather: contactPages,
			extract: func(_ *Env, in Input, pages []*crawl.Page) ([]string, bool) {
				v := phones.Find(pages, regionOf(pages[0].URL), in["telephone"]).Values()
				return v, anyValue(v)
			},
		},
		pricingModule(),
		&siteModule{
			slug: modules.AdsIntelligence, columns: ads.Columns, gather: homeOnly,
			extract: func(_ *Env, _ Input, pages []*crawl.Page) ([]string, bool) {
				return ads.Analyze(pages).Values(), true
			},
		},
		deadCheck{},
	}
}

// TechDetector finds a site's technologies in its pages: the values of
// the techstack module's columns, in their order (enrich/techstack's
// fingerprint detector). The module takes it as an interface so that a
// process that never runs the module does not link its database.
type TechDetector interface {
	Values(pages []*crawl.Page) []string
}

// TechstackModule is the techstack module over a fingerprint detector
// with those columns, loaded on first use (its database takes a moment to
// load: a process that runs no techstack job, such as an API function,
// never pays it).
func TechstackModule(columns []string, load func() (TechDetector, error)) Module {
	return &techstackModule{siteModule{slug: modules.Techstack, columns: columns, gather: homeOnly}, load}
}

type techstackModule struct {
	siteModule
	load func() (TechDetector, error)
}

func (m *techstackModule) Run(ctx context.Context, env *Env, in Input) (Result, error) {
	d, err := m.load()
	if err != nil {
		return Result{}, fmt.Errorf("techstack fingerprints: %w", err)
	}
	sm := m.siteModule
	sm.extract = func(_ *Env, _ Input, pages []*crawl.Page) ([]string, bool) {
		v := d.Values(pages)
		return v, anyValue(v)
	}
	return sm.Run(ctx, env, in)
}

// regionOf is the default region of national phone numbers on a site:
// its country-code top-level domain when it has one, else France (the
// service's home market).
func regionOf(u *url.URL) string {
	host := u.Hostname()
	tld := strings.ToUpper(host[strings.LastIndex(host, ".")+1:])
	switch tld {
	case "BE", "CH", "LU", "DE", "ES", "IT", "PT", "NL", "GB", "MC", "CA":
		return tld
	case "UK":
		return "GB"
	}
	return "FR"
}

// deadCheck is the dead_check module: site_alive from what fetching the
// home page gives (DNS, TLS, connection, status) and what the page says
// (parked, for sale, a host's default page), deadsite.Classify.
type deadCheck struct{}

func (deadCheck) Slug() string      { return modules.DeadCheck }
func (deadCheck) Columns() []string { return []string{"site_alive"} }
func (deadCheck) Reads() []string   { return []string{"site_web"} }

func (deadCheck) Run(ctx context.Context, env *Env, in Input) (Result, error) {
	u, ok := placerow.SiteURL(in["site_web"])
	if !ok {
		return Result{Values: []string{""}}, nil
	}
	p, err := env.Session.Fetch(ctx, u.String())
	if err != nil && ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	if errors.Is(err, crawl.ErrRobots) {
		// The site asks robots not to read its home page: alive or not,
		// it is not ours to tell.
		return Result{Values: []string{""}}, nil
	}
	probe := deadsite.Probe{Page: p}
	if p != nil {
		probe.Status = p.Status
		if p.URL != nil && !sameSite(u, p.URL) {
			probe.Redirected = p.URL
		}
	}
	if err != nil {
		var dnsErr *net.DNSError
		var certErr *tls.CertificateVerificationError
		var unknownAuth x509.UnknownAuthorityError
		var hostErr x509.HostnameError
		var invalid x509.CertificateInvalidError
		switch {
		case errors.As(err, &dnsErr):
			probe.DNSErr = err
		case errors.As(err, &certErr), errors.As(err, &unknownAuth), errors.As(err, &hostErr), errors.As(err, &invalid):
			probe.TLSErr = err
		default:
			probe.ConnErr = err
		}
	}
	v := deadsite.Classify(probe)
	alive := "false"
	if v.Alive {
		alive = "true"
	}
	return Result{Values: []string{alive}, Found: true}, nil
}
