package enrich

import (
	"context"
	"strings"

	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/verify"
)

// VerifyModule is the verify_emails module over a checker. source names
// what it reads, as the job shows it: "sim" over the simulated world's
// mail (shared/provider/sim), "dns+smtp" over the real DNS and mail
// servers, "dns" when the checker's SMTP probe is off.
//
// An item without an email gets empty cells and counts for nothing.
// Every verdict, unknown included, is a value: no outcome is
// Unreachable. Only the item's context ending (the engine's item
// timeout, a cancelled job) is an error, which the engine counts.
// Found is set for the verdicts that say something (valid, invalid,
// risky), not for unknown.
func VerifyModule(c *verify.Checker, source string) Module {
	return &verifyModule{c: c, source: source}
}

type verifyModule struct {
	c      *verify.Checker
	source string
}

var _ Sourced = (*verifyModule)(nil)

func (m *verifyModule) Slug() string      { return modules.VerifyEmails }
func (m *verifyModule) Columns() []string { return verify.Columns }
func (m *verifyModule) Reads() []string   { return []string{"email"} }

// DistinctColumns: an email's status and category are not a business's
// (a scrape's rows have a category column).
func (m *verifyModule) DistinctColumns() []string { return verify.Columns }
func (m *verifyModule) Source() string            { return m.source }

func (m *verifyModule) Run(ctx context.Context, _ *Env, in Input) (Result, error) {
	email := strings.TrimSpace(in["email"])
	if email == "" {
		return Result{Values: make([]string, len(verify.Columns))}, nil
	}
	r, err := m.c.Verify(ctx, email)
	if err != nil {
		return Result{}, err
	}
	return Result{Values: r.Cells(), Found: r.Status != verify.Unknown}, nil
}
