package phoneinfo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/phoneinfo"
	"github.com/prospectdata/svc/shared/phoneinfo/phoneinfosim"
)

// FuzzModule: any telephone and country cell gives 12 cells without
// panic or error, and a valid number's E.164 is "+" and digits.
func FuzzModule(f *testing.F) {
	for _, s := range []string{"06 95 12 34 56", "+33 1 42 12 34 56", "0696 00 12 34", "n/a", "", "poste", "1 poste 2",
		"+800 1234 5678", "0033695123456", "(0)6.95.12.34.56", "+", "++33", "\x00", strings.Repeat("9", 64)} {
		f.Add(s, "")
		f.Add(s, "BEL")
	}
	m := enrich.PhoneInfoModule(phoneinfo.Deps{Plan: phoneinfosim.Plan(), Cache: phoneinfo.NewMemCache()})
	f.Fuzz(func(t *testing.T, tel, country string) {
		r, err := m.Run(context.Background(), nil, enrich.Input{"telephone": tel, "country": country})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Values) != len(phoneinfo.Columns) || r.Unreachable {
			t.Fatalf("%d values, unreachable %v", len(r.Values), r.Unreachable)
		}
		e164, valid := r.Values[0], r.Values[8]
		if valid == "true" {
			if len(e164) < 3 || e164[0] != '+' || strings.Trim(e164[1:], "0123456789") != "" {
				t.Fatalf("valid number with E.164 %q", e164)
			}
		} else if e164 != "" {
			t.Fatalf("invalid number with E.164 %q", e164)
		}
	})
}

// FuzzLoadARCEP: any bytes give a plan or an error, never a panic.
func FuzzLoadARCEP(f *testing.F) {
	f.Add("EZABPQM;Tranche_Debut;Tranche_Fin;Mnémo\n014816;0148160000;0148169999;HUBT\n", "CODE_OPERATEUR;IDENTITE_OPERATEUR\nHUBT;Hub One\n")
	f.Add("EZABPQM;Mn\xe9mo\n\"0142\";FRTE\n", "IDENTITE_OPERATEUR;CODE_OPERATEUR\n\"a;b\";FRTE\n")
	f.Fuzz(func(t *testing.T, blocks, ops string) {
		p, err := phoneinfo.LoadARCEP(strings.NewReader(blocks), strings.NewReader(ops))
		if err == nil {
			p.Lookup("0148160000")
		}
	})
}
