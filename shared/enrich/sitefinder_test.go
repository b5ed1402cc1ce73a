package enrich_test

import (
	"context"
	"testing"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/provider"
)

// listings is a provider whose every search lists the same places.
type listings []provider.Place

func (l listings) Name() string            { return "test" }
func (l listings) Limits() provider.Limits { return provider.Limits{PageSize: 20, Cap: 60} }
func (l listings) Search(context.Context, provider.Request) (provider.Page, error) {
	return provider.Page{Places: l}, nil
}
func (l listings) Place(context.Context, string) (provider.Place, error) {
	return provider.Place{}, provider.ErrNotFound
}
func (l listings) Reviews(context.Context, string, int) ([]provider.Review, error) { return nil, nil }

// TestSiteFinderPhone: the row's number and the listings' are read as
// French (the country site_finder searches), whatever format each uses.
func TestSiteFinderPhone(t *testing.T) {
	const addr = "12 rue de la République, 69003 Lyon"
	for _, tt := range []struct {
		name     string
		rowPhone string
		listing  provider.Place
		site     string
		match    string
	}{
		{"national row, international listing", "04 72 10 30 30",
			provider.Place{Name: "Boulangerie Durand et fils", Phone: "+33 4 72 10 30 30", Address: addr, Website: "https://durand.fr"},
			"https://durand.fr", enrich.MatchPhone},
		{"international row, national listing", "+33 4 72 10 30 30",
			provider.Place{Name: "Boulangerie Durand et fils", Phone: "04 72 10 30 30", Address: addr, Website: "https://durand.fr"},
			"https://durand.fr", enrich.MatchPhone},
		{"another number: another business", "04 72 10 30 30",
			provider.Place{Name: "Durand", Phone: "04 72 99 99 99", Address: addr, Website: "https://autre.fr"},
			"", ""},
		{"no usable number: by name", "n/a",
			provider.Place{Name: "Durand", Phone: "04 72 99 99 99", Address: addr, Website: "https://durand.fr"},
			"https://durand.fr", enrich.MatchName},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := enrich.SiteFinderModule(enrich.SiteFinderDeps{Provider: listings{tt.listing}, Gazetteer: data.Load})
			res, err := m.Run(context.Background(), nil, enrich.Input{
				"nom": "Durand", "adresse": addr, "telephone": tt.rowPhone, "code_postal": "69003",
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Values[0] != tt.site || res.Values[1] != tt.match {
				t.Errorf("site_web %q, match %q; want %q, %q", res.Values[0], res.Values[1], tt.site, tt.match)
			}
		})
	}
}
