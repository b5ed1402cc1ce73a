package phoneinfo

import (
	"context"
	"log/slog"
	"strings"
	"time"
)

// Deps are what a Reader reads.
type Deps struct {
	// Plan is the numbering plan (LoadARCEP's, or phoneinfosim.Plan for
	// offline runs); nil leaves the operator columns empty and
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

// Reader reads the phone_info columns of a number from its sources
// (enrich.PhoneInfoModule binds it to the module's slug). Lookups of one
// number at once are made once (flight).
type Reader struct {
	d  Deps
	fl flight
}

// NewReader is a reader over d, its defaults filled.
func NewReader(d Deps) *Reader {
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
	return &Reader{d: d}
}

// Source names the reader's sources as a job shows them (Deps.Source).
func (r *Reader) Source() string { return r.d.Source }

// Note is what every job's log says of the reader: without a line lookup,
// why the live columns are empty; "" otherwise.
func (r *Reader) Note() (en, fr string) {
	if r.d.Lookup != nil {
		return "", ""
	}
	return LineNotConfigured, LineNotConfiguredFR
}

// Cells are the columns (Columns' order) of a telephone cell read in
// country (a row's country cell), for the job (its id in the log): an
// empty telephone gives empty cells; one that is not a valid number
// (unreadable, or no plan allows it) gives phone_is_valid "false" and
// nothing else; a valid one every column its sources know, and valid
// true. A line lookup that fails leaves the live columns empty and says
// failed; err is the cache's failure on read or the context's.
func (r *Reader) Cells(ctx context.Context, tel, country, job string) (vals []string, valid, failed bool, err error) {
	vals = make([]string, len(Columns))
	tel = strings.TrimSpace(tel)
	if tel == "" {
		return vals, false, false, nil
	}
	n, ok := Parse(tel, Region(country))
	if !ok || !n.Valid {
		// libphonenumber's formats of a number no plan allows ("+3312")
		// would pass for a number: only the verdict is said.
		vals[colValid] = "false"
		return vals, false, false, nil
	}
	vals[colE164], vals[colNational], vals[colCountry] = n.E164, n.National, n.Country
	vals[colLineType] = n.LineType
	vals[colValid] = "true"
	if r.d.Plan != nil && n.PlanKey != "" {
		if a, ok := r.d.Plan.Lookup(n.PlanKey); ok {
			vals[colCarrierOriginal] = a.Operator()
			vals[colSIRET], vals[colAddress], vals[colSince] = a.SIRET, a.Address, a.RegisteredSince
		}
	}
	if vals[colCarrierOriginal] == "" {
		vals[colCarrierOriginal] = n.LibCarrier()
	}
	s, ok, failed, err := r.line(ctx, job, n)
	if err != nil {
		return nil, false, false, err
	}
	if ok {
		vals[colCarrierCurrent] = s.CarrierCurrent
		vals[colPorted] = optBool(s.Ported)
		vals[colReachable] = optBool(s.Reachable)
	}
	return vals, true, failed, nil
}

// line is what is known of a valid number's line: the cache's fresh
// status, else the lookup's answer (then cached). failed says the lookup
// failed for this number; err is the store's failure on read (a retry of
// the batch may mend it) or the context's.
func (r *Reader) line(ctx context.Context, job string, n Number) (s Status, ok, failed bool, err error) {
	if r.d.Cache != nil {
		s, ok, err := r.d.Cache.Get(ctx, n.E164)
		if err != nil {
			return Status{}, false, false, err
		}
		if ok && r.fresh(s) {
			return s, true, false, nil
		}
	}
	if r.d.Lookup == nil || !Lookable(n) {
		return Status{}, false, false, nil
	}
	s, err = r.fl.do(ctx, n.E164, func() (Status, error) {
		s, err := r.d.Lookup.LookupLine(ctx, n.E164)
		if err != nil {
			return Status{}, err
		}
		if s.CheckedAt.IsZero() {
			s.CheckedAt = r.d.Now()
		}
		if r.d.Cache != nil {
			if err := r.d.Cache.Put(ctx, n.E164, s); err != nil {
				// The answer is good and paid for: the row keeps it. Only
				// the next job asks again.
				r.d.Log.Warn("phone_info: caching a line lookup", "job", job, "err", err)
			}
		}
		return s, nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return Status{}, false, false, ctx.Err()
		}
		r.d.Log.Warn("phone_info: line lookup failed", "job", job, "err", err)
		return Status{}, false, true, nil
	}
	return s, true, false, nil
}

func (r *Reader) fresh(s Status) bool {
	if r.d.MaxAge <= 0 {
		return true
	}
	return !s.CheckedAt.IsZero() && r.d.Now().Sub(s.CheckedAt) <= r.d.MaxAge
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
