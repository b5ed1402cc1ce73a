// Package scrape holds the scrape concept: the request a user sends (spec:
// "Scrape request (JobCreateRequest)"), its plan over the map (zones
// resolved to a grid of tiles) and its estimate.
package scrape

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/pricing"
)

// The spec's bounds of a scrape request.
const (
	MaxQueries     = 20
	MaxQueryLength = 200
	MaxZones       = 50
	MaxZoneLength  = 200
	MaxStopAt      = 2_000_000
	MaxPerPhone    = 10
)

// ExtraColumns are the extra_columns values a scrape accepts; others are
// ignored, as the spec says.
var extraColumns = []string{"gps", "departement", "region"}

// Request is the scrape request as sent (JobCreateRequest). Pointers tell an
// absent field from a zero one where the default is not the zero value.
type Request struct {
	Queries              []string `json:"queries"`
	Country              string   `json:"country,omitempty"`
	Zones                []string `json:"zones"`
	IncludeReviews       bool     `json:"include_reviews,omitempty"`
	ScrapMode            string   `json:"scrap_mode,omitempty"`
	StopAt               *int64   `json:"stop_at,omitempty"`
	MaxPerPhone          int      `json:"max_per_phone,omitempty"`
	ExcludeForeignPhones *bool    `json:"exclude_foreign_phones,omitempty"`
	ExtraColumns         []string `json:"extra_columns,omitempty"`
}

// Settings are a request with its defaults applied and its lists cleaned:
// what a job records and echoes.
type Settings struct {
	Queries              []string
	Country              string // ISO 3166-1 alpha-3, upper case
	Zones                []string
	IncludeReviews       bool
	Mode                 pricing.Mode
	StopAt               int64 // 0: none
	MaxPerPhone          int
	ExcludeForeignPhones bool
	ExtraColumns         []string // nil when none was requested
}

var alpha3 = regexp.MustCompile(`^[A-Z]{3}$`)

// Clean applies the spec's defaults and rules to r. Queries and zones are
// trimmed (inner runs of spaces collapsed) and deduplicated, ignoring case,
// keeping the first spelling. requireLists makes empty queries or zones an
// error, as job creation does; an estimate accepts them and reports the
// request as not valid instead. Every violation is returned at once, as a
// 422 naming each field.
func Clean(r Request, requireLists bool) (Settings, error) {
	var errs []apperr.FieldError
	s := Settings{IncludeReviews: r.IncludeReviews, MaxPerPhone: r.MaxPerPhone, ExcludeForeignPhones: true}

	var qerr, zerr []apperr.FieldError
	s.Queries, qerr = cleanList("queries", r.Queries, MaxQueries, MaxQueryLength, requireLists,
		"requête", "query")
	s.Zones, zerr = cleanList("zones", r.Zones, MaxZones, MaxZoneLength, requireLists,
		"zone", "zone")
	errs = append(append(errs, qerr...), zerr...)

	s.Country = strings.ToUpper(strings.TrimSpace(r.Country))
	if s.Country == "" {
		s.Country = "FRA"
	}
	if !alpha3.MatchString(s.Country) {
		errs = append(errs, apperr.Field("country",
			"code pays ISO 3166 alpha-3 attendu (par exemple FRA)", "expected an ISO 3166 alpha-3 country code (for example FRA)"))
	}

	mode := r.ScrapMode
	if strings.TrimSpace(mode) == "" {
		mode = string(pricing.Fast)
	}
	m, ok := pricing.ParseMode(mode)
	if !ok {
		errs = append(errs, apperr.Field("scrap_mode", "valeurs possibles : fast, normal, ultra", "allowed values: fast, normal, ultra"))
	}
	s.Mode = m

	if r.StopAt != nil {
		if *r.StopAt < 1 || *r.StopAt > MaxStopAt {
			errs = append(errs, apperr.Field("stop_at",
				fmt.Sprintf("entre 1 et %d, ou null", MaxStopAt), fmt.Sprintf("between 1 and %d, or null", MaxStopAt)))
		} else {
			s.StopAt = *r.StopAt
		}
	}
	if r.MaxPerPhone < 0 || r.MaxPerPhone > MaxPerPhone {
		errs = append(errs, apperr.Field("max_per_phone",
			fmt.Sprintf("entre 0 et %d", MaxPerPhone), fmt.Sprintf("between 0 and %d", MaxPerPhone)))
	}
	if r.ExcludeForeignPhones != nil {
		s.ExcludeForeignPhones = *r.ExcludeForeignPhones
	}
	if r.ExtraColumns != nil {
		s.ExtraColumns = []string{}
		for _, want := range extraColumns {
			for _, c := range r.ExtraColumns {
				if strings.EqualFold(strings.TrimSpace(c), want) {
					s.ExtraColumns = append(s.ExtraColumns, want)
					break
				}
			}
		}
	}
	if len(errs) > 0 {
		return s, apperr.Fields(errs...)
	}
	return s, nil
}

// cleanList trims, collapses and deduplicates a list of strings and checks
// its bounds. Blank entries are errors: a blank query or zone is a mistake
// the caller should see, not something to drop silently.
func cleanList(field string, in []string, maxItems, maxLen int, required bool, nounFR, nounEN string) ([]string, []apperr.FieldError) {
	var errs []apperr.FieldError
	if len(in) > maxItems {
		return nil, []apperr.FieldError{apperr.Field(field,
			fmt.Sprintf("au plus %d éléments (%d reçus)", maxItems, len(in)),
			fmt.Sprintf("at most %d items (got %d)", maxItems, len(in)))}
	}
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for i, v := range in {
		v = strings.Join(strings.Fields(v), " ")
		name := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case v == "":
			errs = append(errs, apperr.Field(name, nounFR+" vide", "empty "+nounEN))
			continue
		case !utf8.ValidString(v):
			errs = append(errs, apperr.Field(name, "texte UTF-8 invalide", "invalid UTF-8 text"))
			continue
		case utf8.RuneCountInString(v) > maxLen:
			errs = append(errs, apperr.Field(name,
				fmt.Sprintf("au plus %d caractères", maxLen), fmt.Sprintf("at most %d characters", maxLen)))
			continue
		}
		k := strings.ToLower(v)
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, v)
	}
	if required && len(in) == 0 {
		errs = append(errs, apperr.Field(field,
			fmt.Sprintf("entre 1 et %d éléments", maxItems), fmt.Sprintf("between 1 and %d items", maxItems)))
	}
	return out, errs
}
