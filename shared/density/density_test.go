package density_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/prospectdata/svc/shared/density"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// TestRates: a query never run has the prior; what runs teach moves it,
// more as they cover more people; queries are keyed as normalised, per
// country.
func TestRates(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "s.db"), []store.Schema{density.Schema()}, bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := density.New(db.Table(density.Table))
	ctx := context.Background()
	rate := func(country, q string) float64 {
		t.Helper()
		v, err := r.Rate(ctx, country, q)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := rate("FRA", "restaurant"); got != density.PriorRate {
		t.Errorf("never run: %v, want the prior %v", got, density.PriorRate)
	}
	// A town of 50,000 with 150 restaurants (1/333): halfway between
	// the prior and what was seen.
	if err := r.Learn(ctx, "FRA", "Restaurant", 150, 50_000); err != nil {
		t.Fatal(err)
	}
	half := (150 + density.PriorRate*density.PriorPeople) / (50_000 + density.PriorPeople)
	if got := rate("FRA", "restaurant"); math.Abs(got-half) > 1e-12 {
		t.Errorf("after a town: %v, want %v", got, half)
	}
	// A department of 2 million at the same density outweighs the prior.
	if err := r.Learn(ctx, "FRA", " restaurant ", 6000, 2_000_000); err != nil {
		t.Fatal(err)
	}
	if got := rate("FRA", "RESTAURANT"); math.Abs(got-1.0/333) > 0.1/333 {
		t.Errorf("after a department: %v, want about 1/333", got)
	}
	if got := rate("DEU", "restaurant"); got != density.PriorRate {
		t.Errorf("another country: %v, want the prior", got)
	}
	// Nothing covered teaches nothing.
	if err := r.Learn(ctx, "FRA", "notaire", 0, 0); err != nil {
		t.Fatal(err)
	}
	if got := rate("FRA", "notaire"); got != density.PriorRate {
		t.Errorf("nothing learnt: %v", got)
	}
}
