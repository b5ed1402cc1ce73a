// Package pricing is the EF model: what a scrape costs in EF units, how
// long it should take, and how much an account may spend. Every figure of
// the model lives in this file; docs/pricing.md explains each one.
//
// One EF ("équivalent France") is the cost of one map search: one query on
// one base tile of a French grid, in fast mode, without reviews.
package pricing

import (
	"math"
	"strings"
)

// Mode is a scrape mode: how many levels a saturated tile may split.
type Mode string

// The modes of the scrape request's scrap_mode.
const (
	Fast   Mode = "fast"
	Normal Mode = "normal"
	Ultra  Mode = "ultra"
)

// ParseMode reads a scrap_mode value (any case, surrounding spaces).
func ParseMode(s string) (Mode, bool) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case Fast, Normal, Ultra:
		return m, true
	}
	return "", false
}

// MaxDepth is how many times a saturated tile may split into its four
// children: each level finds what the provider's result cap hid.
func (m Mode) MaxDepth() int {
	switch m {
	case Normal:
		return 2
	case Ultra:
		return 3
	}
	return 1
}

// Subdivision is the expected number of searches per base tile, splits
// included. A tile saturates (the provider returns its maximum) with
// probability SaturationRate; a saturated tile at depth d < MaxDepth adds
// four child searches, each saturating at the same rate. So the factor is
// the sum over d = 0..MaxDepth of (4·SaturationRate)^d.
func (m Mode) Subdivision() float64 {
	f, level := 0.0, 1.0
	for d := 0; d <= m.MaxDepth(); d++ {
		f += level
		level *= 4 * SaturationRate
	}
	return f
}

// The model's figures, calibrated on the simulated provider; docs/pricing.md
// says how to recalibrate them from real runs (total_attempts_count).
const (
	// EFPerSearch is the cost of one search: the unit.
	EFPerSearch = 1.0
	// SaturationRate is the share of searches that return the provider's
	// maximum and so split when the mode allows.
	SaturationRate = 0.15
	// ReviewsFactor multiplies the cost when include_reviews is on: one
	// reviews request per place found (PlacesPerSearch of them per
	// search) on top of the search itself. The engine asks once per place
	// and task, a little more than once per place.
	ReviewsFactor = 1 + PlacesPerSearch
	// PlacesPerSearch is the mean number of distinct places a search adds,
	// for reducing the cost of a scrape with stop_at.
	PlacesPerSearch = 8.0
	// SecondsPerSearch is the mean provider round trip of one search.
	SecondsPerSearch = 0.4
	// Workers is how many searches a job runs at once.
	Workers = 8
	// SetupSeconds is the fixed start and export time of a job.
	SetupSeconds = 5
)

// The map provider's paging (Places API Text Search): places per page, and
// the most places one search lists, however many pages are asked.
const (
	ProviderPageSize = 20
	ProviderCap      = 60
)

// Defaults of the account limits (SVC_EF_QUOTA, SVC_EF_COST_THRESHOLD).
const (
	// DefaultQuota is the EF an account may spend per calendar month (UTC).
	DefaultQuota = 100_000
	// DefaultThreshold is the worst-case EF above which a pipeline is
	// refused for cost.
	DefaultThreshold = 20_000
)

// LowPriorityFactor is what a job of a low-priority pipeline costs, as a
// share of its price: its requests yield to every other job's (the
// engine's slots, the pools' queues), so it fills capacity that would
// otherwise sit idle (docs/pricing.md).
const LowPriorityFactor = 0.7

// LowPriority is the price of a job of a low-priority pipeline whose
// normal price is ef, rounded to the cent.
func LowPriority(ef float64) float64 { return math.Round(ef*LowPriorityFactor*100) / 100 }

// EFPerLookup is the price of one lookup of a place by its id (a
// veille's churn check): one provider request, like a search.
const EFPerLookup = EFPerSearch

// Params are the cost drivers of one scrape.
type Params struct {
	Tiles          int // distinct base tiles over the union of zones
	Queries        int
	Mode           Mode
	IncludeReviews bool
	StopAt         int64 // 0: no stop threshold
	// CountryFactor scales a country's searches to French ones (1 for
	// every country today: the provider bills them alike).
	CountryFactor float64
	// Searches, when positive, is the density model's expectation of the
	// searches of every query (scrape.Plan.ExpectedSearches, stop_at
	// aside), in place of Tiles × Queries × the mode's subdivision.
	// Places is its expectation of the places they list, in place of
	// PlacesPerSearch a search: what stop_at is weighed against.
	Searches, Places float64
}

// Estimate is the model's answer for Params.
type Estimate struct {
	Requests         int     // Tiles × Queries: base searches
	ExpectedSearches float64 // with the mode's subdivision, reduced by stop_at
	ExpectedPlaces   float64 // places the searches are expected to list, at most stop_at
	EF               float64 // rounded to the cent
	DurationSeconds  int
}

// Compute prices p. A stop_at below the expected number of places reduces
// the cost in proportion (the scrape stops early); it never raises it.
func Compute(p Params) Estimate {
	req := p.Tiles * p.Queries
	searches := float64(req) * p.Mode.Subdivision()
	if p.Searches > 0 {
		searches = p.Searches
	}
	places := searches * PlacesPerSearch
	if p.Places > 0 {
		places = p.Places
	}
	if p.StopAt > 0 && searches > 0 && float64(p.StopAt) < places {
		searches *= float64(p.StopAt) / places
		places = float64(p.StopAt)
	}
	cf := p.CountryFactor
	if cf <= 0 {
		cf = 1
	}
	ef := searches * EFPerSearch * cf
	if p.IncludeReviews {
		ef *= ReviewsFactor
	}
	dur := 0
	if req > 0 {
		dur = SetupSeconds + int(math.Ceil(searches*SecondsPerSearch/Workers))
	}
	return Estimate{Requests: req, ExpectedSearches: searches, ExpectedPlaces: places, EF: math.Round(ef*100) / 100, DurationSeconds: dur}
}
