// Package density holds what the service learns of how common a query's
// places are: per country and query, the places its searches listed and
// the people of the tiles they covered, whence a rate of places per
// person that prices the next scrape of that query (docs/pricing.md).
//
// Only searches that did not reach the provider's cap count: their
// listing is the whole of their tile. A saturated tile's children, which
// the engine searches in its place, cover the same ground, so the rate is
// not biased towards sparse tiles.
//
// Key design, in the densities table (docs/tables.md):
//
//	pk  "DENSITY#<country>"        ("DENSITY#FRA")
//	sk  "Q#<normalised query>"     ("Q#plombier")
//	places  number: places listed by the searches learnt from
//	people  number: people of their tiles (scrape.Plan.People)
//
// Both are ADDed, so concurrent jobs learn without losing a count.
package density

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/store"
)

// The prior: what a query never run is assumed to hold, and how much it
// weighs against what runs teach. 1 place per 1,500 people is a common
// trade's density (plumbers, lawyers, garages in France); the weight of
// 50,000 people lets a first run over a town of that size count as much
// as the prior, and a run over a city outweigh it.
const (
	PriorRate   = 1.0 / 1500
	PriorPeople = 50_000
)

// maxQueryKey caps the query part of a key (queries are at most 200
// characters; normalised they do not grow much, but a key must stay
// bounded).
const maxQueryKey = 300

// Table is the name of the densities table.
const Table = "densities"

// Schema is the densities table's key design (above).
func Schema() store.Schema { return store.Schema{Name: Table, PK: "pk", SK: "sk"} }

// Rates reads and learns the densities kept in a table.
type Rates struct {
	t store.Table
}

// New returns the rates kept in t (the densities table).
func New(t store.Table) *Rates { return &Rates{t: t} }

func key(country, query string) store.Key {
	q := gazetteer.Normalize(query)
	if len(q) > maxQueryKey {
		q = q[:maxQueryKey]
	}
	return store.Key{PK: "DENSITY#" + strings.ToUpper(country), SK: "Q#" + q}
}

// Rate is the places per person of query in country: what was learnt,
// shrunk towards PriorRate by PriorPeople.
func (r *Rates) Rate(ctx context.Context, country, query string) (float64, error) {
	it, err := r.t.Get(ctx, key(country, query))
	if errors.Is(err, store.ErrNotFound) {
		return PriorRate, nil
	}
	if err != nil {
		return 0, fmt.Errorf("density of %q in %s: %w", query, country, err)
	}
	return Blend(it.Int("places"), it.Int("people")), nil
}

// Blend is the rate of places over people shrunk towards the prior.
func Blend(places, people int64) float64 {
	if places < 0 || people < 0 {
		places, people = 0, 0
	}
	return (float64(places) + PriorRate*PriorPeople) / (float64(people) + PriorPeople)
}

// Learn adds what a job's searches of query saw: places listed over people
// covered. Nothing is written when they covered nobody.
func (r *Rates) Learn(ctx context.Context, country, query string, places, people int64) error {
	if people <= 0 || places < 0 {
		return nil
	}
	_, err := r.t.Update(ctx, key(country, query), store.Update{}.Add("places", places).Add("people", people), nil)
	if err != nil {
		return fmt.Errorf("learn the density of %q in %s: %w", query, country, err)
	}
	return nil
}
