package app

import (
	"context"
	"fmt"
	"sync"

	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/provider"
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
// world (its day kept by days) or Google Places.
func newProvider(cfg config.Config, sc *scrape.Service, days *sim.Days) *lazyProvider {
	lp := &lazyProvider{name: cfg.MapProvider}
	lp.get = sync.OnceValues(func() (provider.Provider, error) {
		if cfg.MapProvider == "google" {
			// Lookups (a veille's churn check) carry no request: they ask in
			// French for France, as most scrapes do, so that names and
			// addresses compare with the scrape's (docs/veille.md).
			return google.New(cfg.GooglePlacesKey, google.Options{PlaceLanguage: "fr", PlaceCountry: "FRA"})
		}
		g, err := sc.Gazetteer()
		if err != nil {
			return nil, err
		}
		return sim.New(g, sim.Options{Latency: cfg.SimLatency, Day: days.Day}), nil
	})
	return lp
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
