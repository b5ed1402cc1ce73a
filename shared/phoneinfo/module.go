package phoneinfo

import (
	"context"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/enrich"
)

// Slug is the module's registry slug.
const Slug = "phone_info"

// LiveModeCacheOnly is phone_info's only live_mode: no live lookup, the
// live columns come from the cache.
const LiveModeCacheOnly = "cache_only"

// Deps are what the module reads.
type Deps struct {
	// Plan is the numbering plan (LoadARCEP's, or SimPlan for offline
	// runs); nil leaves the operator columns empty and
	// phone_carrier_original to libphonenumber alone.
	Plan Plan
	// Cache holds the live checks; nil leaves phone_carrier_current,
	// phone_is_ported and phone_is_reachable empty.
	Cache Cache
	// Source names the module's data source as a job shows it; when ""
	// it is "libphonenumber + " and the plan's Source ("ARCEP numbering
	// plan", "numbering plan (sim)") when the plan has one.
	Source string
	// MaxAge, when positive, ignores a cached status checked longer ago
	// (or at an unknown time): an old "reachable" says little.
	MaxAge time.Duration
	// Now is the clock of MaxAge; time.Now when nil.
	Now func() time.Time
}

// Module is the phone_info module over its sources.
func Module(d Deps) enrich.Module {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Source == "" {
		d.Source = "libphonenumber"
		if s, ok := d.Plan.(interface{ Source() string }); ok && s.Source() != "" {
			d.Source += " + " + s.Source()
		}
	}
	return &module{d}
}

type module struct{ d Deps }

func (m *module) Slug() string      { return Slug }
func (m *module) Columns() []string { return Columns }
func (m *module) Reads() []string   { return []string{"telephone", "country"} }
func (m *module) Source() string    { return m.d.Source }

var _ enrich.Sourced = (*module)(nil)

// Run enriches one item: an empty telephone gives empty cells; one that is
// not a valid number (unreadable, or no plan allows it) gives
// phone_is_valid "false" and nothing else; a valid one every column its
// sources know.
func (m *module) Run(ctx context.Context, _ *enrich.Env, in enrich.Input) (enrich.Result, error) {
	vals := make([]string, len(Columns))
	tel := strings.TrimSpace(in["telephone"])
	if tel == "" {
		return enrich.Result{Values: vals}, nil
	}
	n, ok := Parse(tel, Region(in["country"]))
	if !ok {
		vals[colValid] = "false"
		return enrich.Result{Values: vals}, nil
	}
	if !n.Valid {
		// libphonenumber's formats of a number no plan allows ("+3312")
		// would pass for a number: only the verdict is said.
		vals[colValid] = "false"
		return enrich.Result{Values: vals}, nil
	}
	vals[colE164], vals[colNational], vals[colCountry] = n.E164, n.National, n.Country
	vals[colLineType] = n.LineType
	vals[colValid] = "true"
	if m.d.Plan != nil && n.PlanKey != "" {
		if a, ok := m.d.Plan.Lookup(n.PlanKey); ok {
			vals[colCarrierOriginal] = a.Operator()
			vals[colSIRET], vals[colAddress], vals[colSince] = a.SIRET, a.Address, a.RegisteredSince
		}
	}
	if vals[colCarrierOriginal] == "" {
		vals[colCarrierOriginal] = n.LibCarrier()
	}
	if m.d.Cache != nil {
		s, ok, err := m.d.Cache.Get(ctx, n.E164)
		if err != nil {
			return enrich.Result{}, err
		}
		if ok && m.fresh(s) {
			vals[colCarrierCurrent] = s.CarrierCurrent
			vals[colPorted] = optBool(s.Ported)
			vals[colReachable] = optBool(s.Reachable)
		}
	}
	return enrich.Result{Values: vals, Found: true}, nil
}

func (m *module) fresh(s Status) bool {
	if m.d.MaxAge <= 0 {
		return true
	}
	return !s.CheckedAt.IsZero() && m.d.Now().Sub(s.CheckedAt) <= m.d.MaxAge
}

// Positions of the columns.
const (
	colE164 = iota
	colNational
	colCountry
	colLineType
	colCarrierOriginal
	colCarrierCurrent
	colPorted
	colReachable
	colValid
	colSIRET
	colAddress
	colSince
)

func boolCell(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func optBool(b *bool) string {
	if b == nil {
		return ""
	}
	return boolCell(*b)
}
