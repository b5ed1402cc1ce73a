// Package viewport is the viewport_test diagnostic: one query searched over
// one rectangle of the map, every page of it, through the map provider
// port, to see what the provider shows there and whether the rectangle is
// saturated (it lists the provider's cap: smaller tiles would find more).
// It is how a user checks a zone before paying for a scrape, and how an
// operator checks the provider adapter. It has no reusable CSV: its result
// is a report (GET /api/jobs/{id}/viewport-result, docs/data-sources.md).
package viewport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/provider"
)

// MaxSpan is the largest side of a viewport, in degrees (about 110 km of
// latitude): a diagnostic of one map view, not of a region.
const MaxSpan = 1.0

// MaxPages bounds the pages read, whatever the provider says.
const MaxPages = 10

// Bounds is a viewport in degrees (WGS 84).
type Bounds struct {
	South float64 `json:"south"`
	West  float64 `json:"west"`
	North float64 `json:"north"`
	East  float64 `json:"east"`
}

// Request is the body of POST /api/jobs/viewport-test.
type Request struct {
	Query   string `json:"query"`
	Country string `json:"country,omitempty"` // ISO 3166 alpha-3, default FRA
	Bounds  Bounds `json:"bounds"`
}

// Validate checks the request and fills its defaults (422 naming the
// field).
func (r *Request) Validate() error {
	r.Query = strings.TrimSpace(r.Query)
	if r.Query == "" || utf8.RuneCountInString(r.Query) > 200 {
		return apperr.Fields(apperr.Field("query", "query : 1 à 200 caractères.", "query: 1 to 200 characters."))
	}
	r.Country = strings.ToUpper(strings.TrimSpace(r.Country))
	if r.Country == "" {
		r.Country = "FRA"
	}
	if len(r.Country) != 3 {
		return apperr.Fields(apperr.Field("country", "country : un code ISO 3166 alpha-3.", "country: an ISO 3166 alpha-3 code."))
	}
	b := r.Bounds
	switch {
	case b.South < -90 || b.North > 90 || b.West < -180 || b.East > 180:
		return apperr.Fields(apperr.Field("bounds", "bounds : latitudes de -90 à 90, longitudes de -180 à 180.",
			"bounds: latitudes -90 to 90, longitudes -180 to 180."))
	case b.South >= b.North || b.West >= b.East:
		return apperr.Fields(apperr.Field("bounds", "bounds : south < north et west < east.",
			"bounds: south < north and west < east."))
	case b.North-b.South > MaxSpan || b.East-b.West > MaxSpan:
		return apperr.Fields(apperr.Field("bounds", fmt.Sprintf("bounds : au plus %g degré de côté.", MaxSpan),
			fmt.Sprintf("bounds: at most %g degree a side.", MaxSpan)))
	}
	return nil
}

// Place is one listing of the report.
type Place struct {
	ID       string  `json:"id"`
	Name     string  `json:"name"`
	Category string  `json:"category"`
	Address  string  `json:"address"`
	Lat      float64 `json:"lat"`
	Lon      float64 `json:"lon"`
	// Inside says the place lies in the viewport: the location
	// restriction promises nothing outside, and the test shows whether
	// the provider keeps it.
	Inside bool `json:"inside"`
}

// Report is the result of a viewport test.
type Report struct {
	Query    string `json:"query"`
	Country  string `json:"country"`
	Bounds   Bounds `json:"bounds"`
	Provider string `json:"provider"`
	// Results is the listings the search gave (every page); Inside of
	// them lie in the viewport.
	Results int `json:"results"`
	Inside  int `json:"inside"`
	Pages   int `json:"pages"`
	// Requests counts the provider calls, retries included.
	Requests int `json:"requests"`
	// Cap and PageSize are the provider's limits; Saturated is Results at
	// the cap (the viewport holds more than the provider shows), and
	// SaturationPct is Results over Cap.
	Cap           int     `json:"cap"`
	PageSize      int     `json:"page_size"`
	Saturated     bool    `json:"saturated"`
	SaturationPct float64 `json:"saturation_pct"`
	// Categories counts the listings by category.
	Categories map[string]int `json:"categories"`
	DurationMS int64          `json:"duration_ms"`
	Places     []Place        `json:"places"`
}

// Runner runs viewport tests over a provider.
type Runner struct {
	Provider provider.Provider
	// Retries of a transient failure per page (default 2), waiting
	// Backoff (default 1 s) doubled each time.
	Retries int
	Backoff time.Duration
	Now     func() time.Time
}

// Test searches the request's query over its viewport, page after page.
func (r *Runner) Test(ctx context.Context, req Request) (*Report, error) {
	now := r.Now
	if now == nil {
		now = time.Now
	}
	retries, backoff := r.Retries, r.Backoff
	if retries == 0 {
		retries = 2
	}
	if backoff == 0 {
		backoff = time.Second
	}
	start := now()
	lim := r.Provider.Limits()
	bound := orb.Bound{Min: orb.Point{req.Bounds.West, req.Bounds.South}, Max: orb.Point{req.Bounds.East, req.Bounds.North}}
	rep := &Report{Query: req.Query, Country: req.Country, Bounds: req.Bounds, Provider: r.Provider.Name(),
		Cap: lim.Cap, PageSize: lim.PageSize, Categories: map[string]int{}, Places: []Place{}}
	seen := map[string]bool{}
	token := ""
	for page := 0; page < MaxPages; page++ {
		var res provider.Page
		var err error
		wait := backoff
		for try := 0; ; try++ {
			rep.Requests++
			res, err = r.Provider.Search(ctx, provider.Request{Query: req.Query, Bound: bound, Country: req.Country,
				Language: "fr", PageToken: token})
			if err == nil || !errors.Is(err, provider.ErrTransient) || try >= retries {
				break
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(wait):
			}
			wait *= 2
		}
		if err != nil {
			return nil, fmt.Errorf("search page %d: %w", page+1, err)
		}
		rep.Pages++
		for _, p := range res.Places {
			if seen[p.ID] {
				continue
			}
			seen[p.ID] = true
			in := bound.Contains(orb.Point{p.Lon, p.Lat})
			rep.Places = append(rep.Places, Place{ID: p.ID, Name: p.Name, Category: p.Category, Address: p.Address,
				Lat: p.Lat, Lon: p.Lon, Inside: in})
			if in {
				rep.Inside++
			}
			rep.Categories[p.Category]++
		}
		token = res.NextPageToken
		if token == "" {
			break
		}
	}
	rep.Results = len(rep.Places)
	if lim.Cap > 0 {
		rep.Saturated = rep.Results >= lim.Cap
		rep.SaturationPct = float64(int(1000*float64(rep.Results)/float64(lim.Cap))) / 10
	}
	rep.DurationMS = now().Sub(start).Milliseconds()
	return rep, nil
}

// Run is the engine's single-run call: the job's parameters are its
// Request.
func (r *Runner) Run(ctx context.Context, j *jobs.Job) (any, int, error) {
	var req Request
	if err := json.Unmarshal(j.Params, &req); err != nil {
		return nil, 0, fmt.Errorf("viewport parameters: %w", err)
	}
	if err := req.Validate(); err != nil {
		return nil, 0, err
	}
	rep, err := r.Test(ctx, req)
	if err != nil {
		return nil, 0, err
	}
	return rep, rep.Results, nil
}
