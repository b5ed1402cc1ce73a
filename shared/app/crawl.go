package app

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/imports"
	"github.com/prospectdata/svc/shared/netguard"
	"github.com/prospectdata/svc/shared/provider/sim"
)

// CrawlerAgent is the token robots.txt groups are matched against, and
// the start of the crawler's User-Agent.
const CrawlerAgent = "ProspectDataBot"

// newModules builds the enrichment modules over one polite fetcher: its
// transport is the guard's (public addresses only, checked when
// connecting) and, with the simulated map provider, the sim world's
// fixture web answers its own hosts (*.sim.test) in front of it.
func newModules(cfg config.Config, guard *netguard.Guard, prov *lazyProvider, gaz func() (*gazetteer.Gazetteer, error),
	files blob.Store, srcs *sources, log *slog.Logger) (*enrich.Set, error) {
	var tr http.RoundTripper = guard.Client(0).Transport
	if cfg.MapProvider == "sim" {
		tr = simWeb{prov: prov, next: tr}
	}
	ua := CrawlerAgent + "/1.0 (+" + cfg.BaseURL + "/bot; company data enrichment)"
	f := crawl.New(crawl.Deps{Transport: tr, Agent: CrawlerAgent, UserAgent: ua, Log: log})
	shots := newScreenshotter(cfg, tr, ua)
	mods := append(enrich.SiteModules(),
		enrich.BrandModule(enrich.BrandDeps{Files: files, BaseURL: cfg.BaseURL, Shots: shots}),
		enrich.SiteFinderModule(enrich.SiteFinderDeps{Provider: prov, Gazetteer: gaz}),
		enrich.ReviewsModule(enrich.ReviewsDeps{Provider: prov}),
	)
	mods = append(mods, techstackModules()...)
	mods = append(mods, srcs.modules()...)
	set, err := enrich.NewSet(f, log, mods...)
	if err != nil {
		return nil, fmt.Errorf("enrichment modules: %w", err)
	}
	if cfg.MapProvider == "sim" {
		set.WebSource("sim")
	}
	return set, nil
}

// simWeb answers the sim world's hosts from its fixture web and hands
// every other request to next.
type simWeb struct {
	prov *lazyProvider
	next http.RoundTripper
}

func (s simWeb) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(strings.ToLower(req.URL.Hostname()), ".sim.test") {
		return s.next.RoundTrip(req)
	}
	p, err := s.prov.get()
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	w, ok := p.(*sim.World)
	if !ok {
		return s.next.RoundTrip(req)
	}
	return w.Web().RoundTrip(req)
}

// importHosts checks an import's spreadsheet host as its fetch will: the
// guard's rules, except the sim world's hosts (*.sim.test), which the
// fixture web answers in front of the guard when the map provider is
// simulated.
func importHosts(cfg config.Config, guard *netguard.Guard) imports.Hosts {
	if cfg.MapProvider != "sim" {
		return guard
	}
	return simImportHosts{next: guard}
}

type simImportHosts struct{ next imports.Hosts }

func (s simImportHosts) CheckHost(host string) error {
	if strings.HasSuffix(strings.TrimSuffix(strings.ToLower(host), "."), ".sim.test") {
		return nil
	}
	return s.next.CheckHost(host)
}
