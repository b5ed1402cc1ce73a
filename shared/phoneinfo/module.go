package phoneinfo

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/registry"
)

// LiveModeCacheOnly is phone_info's only live_mode (the contract's): the
// live columns are read through the per-number cache. With a LineLookup
// configured, a number the cache holds nothing fresh for is checked once
// and the answer cached; without one, the cache alone answers.
const LiveModeCacheOnly = "cache_only"

// Deps are what the module reads.
type Deps struct {
	// Plan is the numbering plan (LoadARCEP's, or SimPlan for offline
	// runs); nil leaves the operator columns empty and
	// phone_carrier_original to libphonenumber alone.
	Plan Plan
	// Cache holds the live checks; nil (with no Lookup) leaves
	// phone_carrier_current, phone_is_ported and phone_is_reachable
	// empty.
	Cache Cache
	// Lookup checks the numbers the cache holds nothing fresh for
	// (mobiles only: Lookable), and its answers go to the cache. Nil
	// leaves the live columns to the cache alone, and every job's log
	// says so (LineNotConfigured).
	Lookup LineLookup
	// Log receives the lookups' failures (each also counts in the job's
	// error_count); discarded when nil.
	Log *slog.Logger
	// Source names the module's data source as a job shows it; when ""
	// it is "libphonenumber + " and the plan's Source ("ARCEP numbering
	// plan", "numbering plan (sim)") when the plan has one.
	Source string
	// MaxAge, when positive, ignores a cached status checked longer ago
	// (or at an unknown time): an old "reachable" says little. With a
	// Lookup it is the cache's lifetime: an older status is checked
	// again (LineTTL is the service's).
	MaxAge time.Duration
	// Now is the clock of MaxAge; time.Now when nil.
	Now func() time.Time
}

// Module is the phone_info module over its sources.
func Module(d Deps) enrich.Module {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Source == "" {
		d.Source = "libphonenumber"
		for _, src := range []any{d.Plan, d.Lookup} {
			if s, ok := src.(interface{ Source() string }); ok && s.Source() != "" {
				d.Source += " + " + s.Source()
			}
		}
	}
	return &module{d: d}
}

type module struct {
	d  Deps
	fl flight
}

func (m *module) Slug() string      { return registry.PhoneInfo }
func (m *module) Columns() []string { return Columns }
func (m *module) Reads() []string   { return []string{"telephone", "country"} }
func (m *module) Source() string    { return m.d.Source }

var (
	_ enrich.Sourced = (*module)(nil)
	_ enrich.Noted   = (*module)(nil)
)

// JobNote implements enrich.Noted: without a line lookup every job's log
// says why the live columns are empty.
func (m *module) JobNote() (en, fr string) {
	if m.d.Lookup != nil {
		return "", ""
	}
	return LineNotConfigured, LineNotConfiguredFR
}

// Run enriches one item: an empty telephone gives empty cells; one that is
// not a valid number (unreadable, or no plan allows it) gives
// phone_is_valid "false" and nothing else; a valid one every column its
// sources know. A line lookup that fails leaves the live columns empty
// and the item Unreachable (the job's error_count), its other columns
// filled, and its price given back (Uncharged).
func (m *module) Run(ctx context.Context, env *enrich.Env, in enrich.Input) (enrich.Result, error) {
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
	s, ok, failed, err := m.line(ctx, env, n)
	if err != nil {
		return enrich.Result{}, err
	}
	if ok {
		vals[colCarrierCurrent] = s.CarrierCurrent
		vals[colPorted] = optBool(s.Ported)
		vals[colReachable] = optBool(s.Reachable)
	}
	r := enrich.Result{Values: vals, Found: true, Unreachable: failed}
	if failed {
		// The price pays for the live lookup (the other columns come
		// from tables the service embeds): a failed one is given back.
		r.Uncharged = 1
	}
	return r, nil
}

// line is what is known of a valid number's line: the cache's fresh
// status, else the lookup's answer (then cached). failed says the lookup
// failed for this number; err is the store's failure on read (a retry of
// the batch may mend it) or the context's.
func (m *module) line(ctx context.Context, env *enrich.Env, n Number) (s Status, ok, failed bool, err error) {
	if m.d.Cache != nil {
		s, ok, err := m.d.Cache.Get(ctx, n.E164)
		if err != nil {
			return Status{}, false, false, err
		}
		if ok && m.fresh(s) {
			return s, true, false, nil
		}
	}
	if m.d.Lookup == nil || !Lookable(n) {
		return Status{}, false, false, nil
	}
	s, err = m.fl.do(ctx, n.E164, func() (Status, error) {
		s, err := m.d.Lookup.LookupLine(ctx, n.E164)
		if err != nil {
			return Status{}, err
		}
		if s.CheckedAt.IsZero() {
			s.CheckedAt = m.d.Now()
		}
		if m.d.Cache != nil {
			if err := m.d.Cache.Put(ctx, n.E164, s); err != nil {
				// The answer is good and paid for: the row keeps it. Only
				// the next job asks again.
				m.d.Log.Warn("phone_info: caching a line lookup", "job", jobID(env), "err", err)
			}
		}
		return s, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return Status{}, false, false, ctx.Err()
		}
		m.d.Log.Warn("phone_info: line lookup failed", "job", jobID(env), "err", err)
		return Status{}, false, true, nil
	}
	return s, true, false, nil
}

func jobID(env *enrich.Env) string {
	if env == nil {
		return ""
	}
	return env.Job.ID
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
