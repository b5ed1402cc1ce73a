package phoneinfosim_test

import (
	"context"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/phoneinfo"
	"github.com/prospectdata/svc/shared/phoneinfo/phoneinfosim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

// TestPlanCoversTheSimWorld: every valid French-plan number of the
// simulated world has a Plan operator, named "(sim)"; foreign numbers
// have none; the module labels its source as simulated.
func TestPlanCoversTheSimWorld(t *testing.T) {
	plan := phoneinfosim.Plan()
	m := enrich.PhoneInfoModule(phoneinfo.Deps{Plan: plan, Cache: phoneinfo.NewMemCache()})
	if got := enrich.SourceOf(m); got != "libphonenumber + numbering plan (sim)" {
		t.Errorf("Source = %q", got)
	}
	var n, empty, valid, covered, foreign, invalid int
	for _, tel := range simtest.Phones(t, 500) {
		n++
		r, err := m.Run(context.Background(), nil, enrich.Input{"telephone": tel})
		if err != nil {
			t.Fatal(err)
		}
		v := row(m, r)
		switch {
		case tel == "":
			empty++
			continue
		case v["phone_is_valid"] != "true":
			invalid++
			// The simulated overseas ranges are drawn a little wider than
			// their plans (0590 87…): only those may be invalid.
			if !strings.HasPrefix(tel, "0590") && !strings.HasPrefix(tel, "0269") && !strings.HasPrefix(tel, "0594") && !strings.HasPrefix(tel, "0596") && !strings.HasPrefix(tel, "0262") {
				t.Errorf("%q is not valid", tel)
			}
			continue
		}
		valid++
		if strings.HasPrefix(tel, "+") {
			foreign++
			if v["phone_operator_siret"] != "" || strings.Contains(v["phone_carrier_original"], "(sim)") {
				t.Errorf("foreign %q got a sim operator: %v", tel, v)
			}
			continue
		}
		if !strings.HasSuffix(v["phone_carrier_original"], "(sim)") {
			t.Errorf("%q (%s): carrier %q, want a (sim) operator", tel, v["phone_country"], v["phone_carrier_original"])
			continue
		}
		covered++
		if v["phone_operator_siret"] != "" || v["phone_operator_address"] != "" || v["phone_operator_registered_since"] != "" {
			t.Errorf("%q: the sim plan invents no identity: %v", tel, v)
		}
		if v["phone_carrier_current"] != "" || v["phone_is_ported"] != "" || v["phone_is_reachable"] != "" {
			t.Errorf("%q: nothing cached, nothing said: %v", tel, v)
		}
	}
	t.Logf("%d listings: %d without phone, %d valid (%d French with a sim operator, %d foreign), %d invalid", n, empty, valid, covered, foreign, invalid)
	if covered < n/2 || foreign == 0 {
		t.Errorf("too few numbers checked: %d covered, %d foreign of %d", covered, foreign, n)
	}
	// Plan covers nothing outside the sim world's ranges.
	for _, national := range []string{"0632345678", "0663123456", "0712345678", "0262612345", "0597123456", "0975212345", "0800501234", "0148162345"} {
		if a, ok := plan.Lookup(national); ok != strings.HasPrefix(national, "01") {
			t.Errorf("Plan.Lookup(%s) = %+v, %v", national, a, ok)
		}
	}
}

func row(m enrich.Module, r enrich.Result) map[string]string {
	out := map[string]string{}
	for i, c := range m.Columns() {
		if r.Values[i] != "" {
			out[c] = r.Values[i]
		}
	}
	return out
}
