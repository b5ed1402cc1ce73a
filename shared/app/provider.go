package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/provider/fleet"
	"github.com/prospectdata/svc/shared/provider/google"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/scrape"
)

// lazyProvider builds the configured map provider on first use: the
// simulated world is built over the gazetteer, which a process that never
// scrapes (the api-auth Lambda) must not load.
type lazyProvider struct {
	name string
	get  func() (provider.Provider, error)
}

// newProvider returns the map provider of the configuration: the simulated
// world (its day kept by days) or Google Places, its requests bounded for
// the whole fleet by the limits of the configuration (provider/fleet over
// ad.DB's counters table; docs/provider-load.md).
func newProvider(cfg config.Config, ad Adapters, sc *scrape.Service, days *sim.Days) *lazyProvider {
	lp := &lazyProvider{name: cfg.MapProvider}
	lp.get = sync.OnceValues(func() (provider.Provider, error) {
		limiter, err := newLimiter(cfg, ad)
		if err != nil {
			return nil, err
		}
		if cfg.MapProvider == "google" {
			// Lookups (a veille's churn check) carry no request: they ask in
			// French for France, as most scrapes do, so that names and
			// addresses compare with the scrape's (docs/veille.md).
			opt := google.Options{BaseURL: cfg.GooglePlacesURL, PlaceLanguage: "fr", PlaceCountry: "FRA"}
			if limiter != nil {
				// Each attempt, retries included, is admitted.
				opt.Gate = limiter
			}
			return google.New(cfg.GooglePlacesKey, opt)
		}
		g, err := sc.Gazetteer()
		if err != nil {
			return nil, err
		}
		var p provider.Provider = sim.New(g, sim.Options{Latency: cfg.SimLatency, Day: days.Day})
		if limiter != nil {
			p = fleet.Wrap(p, limiter)
		}
		return p, nil
	})
	return lp
}

// newLimiter is the fleet's limiter of the provider's load; nil when the
// configuration bounds nothing (the simulated world by default).
func newLimiter(cfg config.Config, ad Adapters) (*fleet.Limiter, error) {
	if cfg.ProviderMaxInFlight == 0 && cfg.ProviderMaxPerSecond == 0 {
		return nil, nil
	}
	// The wall clock, not ad.Now: the limiter paces real requests by
	// real sleeps, which a test's shifted or frozen clock would stall.
	l, err := fleet.New(ad.DB, fleet.Config{
		Scope: cfg.MapProvider, MaxInFlight: cfg.ProviderMaxInFlight, MaxPerSecond: cfg.ProviderMaxPerSecond,
		Now: time.Now, Log: ad.Log,
	})
	if err != nil {
		return nil, fmt.Errorf("map provider %s: %w", cfg.MapProvider, err)
	}
	return l, nil
}

func (p *lazyProvider) Name() string { return p.name }

func (p *lazyProvider) Limits() provider.Limits {
	if pr, err := p.get(); err == nil {
		return pr.Limits()
	}
	return provider.Limits{}
}

func (p *lazyProvider) Search(ctx context.Context, r provider.Request) (provider.Page, error) {
	pr, err := p.get()
	if err != nil {
		return provider.Page{}, fmt.Errorf("map provider %s: %w", p.name, err)
	}
	return pr.Search(ctx, r)
}

func (p *lazyProvider) Place(ctx context.Context, placeID string) (provider.Place, error) {
	pr, err := p.get()
	if err != nil {
		return provider.Place{}, fmt.Errorf("map provider %s: %w", p.name, err)
	}
	return pr.Place(ctx, placeID)
}

func (p *lazyProvider) Reviews(ctx context.Context, placeID string, max int) ([]provider.Review, error) {
	pr, err := p.get()
	if err != nil {
		return nil, fmt.Errorf("map provider %s: %w", p.name, err)
	}
	return pr.Reviews(ctx, placeID, max)
}

// PlaceID reads a place id back from a row's link, when the provider's
// links name their place (provider.PlaceLinker).
func (p *lazyProvider) PlaceID(mapsURL string) (string, bool) {
	inner, err := p.get()
	if err != nil {
		return "", false
	}
	l, ok := inner.(provider.PlaceLinker)
	if !ok {
		return "", false
	}
	return l.PlaceID(mapsURL)
}
