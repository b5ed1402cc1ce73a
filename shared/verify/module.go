package verify

import (
	"context"
	"strings"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/registry"
)

// Columns are the module's Produces columns, in order.
var Columns = []string{"status", "category"}

// Module is the verify_emails enrichment module over a checker. source
// names what it reads, as the job shows it: "sim" over the simulated
// world's mail (shared/provider/sim), "dns+smtp" over the real DNS and
// mail servers, "dns" when the checker's SMTP probe is off.
//
// An item without an email gets empty cells and counts for nothing.
// Every verdict, unknown included, is a value: no outcome is
// Unreachable. Only the item's context ending (the engine's item
// timeout, a cancelled job) is an error, which the engine counts.
// Found is set for the verdicts that say something (valid, invalid,
// risky), not for unknown.
func Module(c *Checker, source string) enrich.Module {
	return &module{c: c, source: source}
}

type module struct {
	c      *Checker
	source string
}

var _ enrich.Sourced = (*module)(nil)

func (m *module) Slug() string      { return registry.VerifyEmails }
func (m *module) Columns() []string { return Columns }
func (m *module) Reads() []string   { return []string{"email"} }

// DistinctColumns: an email's status and category are not a business's
// (a scrape's rows have a category column).
func (m *module) DistinctColumns() []string { return Columns }
func (m *module) Source() string            { return m.source }

func (m *module) Run(ctx context.Context, _ *enrich.Env, in enrich.Input) (enrich.Result, error) {
	email := strings.TrimSpace(in["email"])
	if email == "" {
		return enrich.Result{Values: []string{"", ""}}, nil
	}
	r, err := m.c.Verify(ctx, email)
	if err != nil {
		return enrich.Result{}, err
	}
	return enrich.Result{
		Values: []string{string(r.Status), string(r.Category)},
		Found:  r.Status != Unknown,
	}, nil
}
