package enrich

import (
	"context"

	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/phoneinfo"
)

// PhoneInfoModule is the phone_info module over its sources
// (phoneinfo.Reader).
func PhoneInfoModule(d phoneinfo.Deps) Module {
	return &phoneInfoModule{r: phoneinfo.NewReader(d)}
}

type phoneInfoModule struct{ r *phoneinfo.Reader }

var (
	_ Sourced = (*phoneInfoModule)(nil)
	_ Noted   = (*phoneInfoModule)(nil)
)

func (m *phoneInfoModule) Slug() string      { return modules.PhoneInfo }
func (m *phoneInfoModule) Columns() []string { return phoneinfo.Columns }
func (m *phoneInfoModule) Reads() []string   { return []string{"telephone", "country"} }
func (m *phoneInfoModule) Source() string    { return m.r.Source() }

// JobNote implements Noted: without a line lookup every job's log says
// why the live columns are empty.
func (m *phoneInfoModule) JobNote() (en, fr string) { return m.r.Note() }

// Run enriches one item (phoneinfo.Reader.Cells): found for a valid
// number. A line lookup that fails leaves the live columns empty and the
// item Unreachable (the job's error_count), its other columns filled, and
// its price given back (Uncharged).
func (m *phoneInfoModule) Run(ctx context.Context, env *Env, in Input) (Result, error) {
	job := ""
	if env != nil {
		job = env.Job.ID
	}
	vals, valid, failed, err := m.r.Cells(ctx, in["telephone"], in["country"], job)
	if err != nil {
		return Result{}, err
	}
	r := Result{Values: vals, Found: valid, Unreachable: failed}
	if failed {
		// The price pays for the live lookup (the other columns come
		// from tables the service embeds): a failed one is given back.
		r.Uncharged = 1
	}
	return r, nil
}
