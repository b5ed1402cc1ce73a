package fleet

import (
	"context"

	"github.com/prospectdata/svc/shared/provider"
)

// Provider is a map provider whose billable requests (Search, Place,
// Reviews) each wait for a permit of the limiter, run under the permit's
// context and report their outcome to it. It suits a provider that sends
// one request per call (the simulated world); the Google client takes the
// limiter as its gate instead, so that each of its retries is admitted
// too.
type Provider struct {
	inner provider.Provider
	l     *Limiter
}

var (
	_ provider.Provider    = (*Provider)(nil)
	_ provider.PlaceLinker = (*Provider)(nil)
)

// Wrap returns p admitted by l.
func Wrap(p provider.Provider, l *Limiter) *Provider { return &Provider{inner: p, l: l} }

// Name is the wrapped provider's.
func (p *Provider) Name() string { return p.inner.Name() }

// Limits are the wrapped provider's.
func (p *Provider) Limits() provider.Limits { return p.inner.Limits() }

// Search is one admitted search request.
func (p *Provider) Search(ctx context.Context, r provider.Request) (provider.Page, error) {
	pm, err := p.l.Acquire(ctx)
	if err != nil {
		return provider.Page{}, err
	}
	page, err := p.inner.Search(pm.Context(), r)
	pm.Done(err)
	return page, err
}

// Place is one admitted lookup.
func (p *Provider) Place(ctx context.Context, placeID string) (provider.Place, error) {
	pm, err := p.l.Acquire(ctx)
	if err != nil {
		return provider.Place{}, err
	}
	pl, err := p.inner.Place(pm.Context(), placeID)
	pm.Done(err)
	return pl, err
}

// Reviews is one admitted reviews request; asking for none sends nothing.
func (p *Provider) Reviews(ctx context.Context, placeID string, max int) ([]provider.Review, error) {
	if max <= 0 {
		return p.inner.Reviews(ctx, placeID, max)
	}
	pm, err := p.l.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := p.inner.Reviews(pm.Context(), placeID, max)
	pm.Done(err)
	return rs, err
}

// PlaceID is the wrapped provider's, when its links name their place.
func (p *Provider) PlaceID(mapsURL string) (string, bool) {
	if l, ok := p.inner.(provider.PlaceLinker); ok {
		return l.PlaceID(mapsURL)
	}
	return "", false
}
