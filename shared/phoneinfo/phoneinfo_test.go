package phoneinfo_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/phoneinfo"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// arcepSample is the plan of testdata's ARCEP rows, as published
// (Windows-1252).
func arcepSample(tb testing.TB) *phoneinfo.MemPlan {
	tb.Helper()
	blocks, ops := readSample(tb)
	p, err := phoneinfo.LoadARCEP(bytes.NewReader(blocks), bytes.NewReader(ops))
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func readSample(tb testing.TB) (blocks, ops []byte) {
	tb.Helper()
	var err error
	if blocks, err = os.ReadFile(filepath.Join("testdata", "MAJNUM_sample.csv")); err != nil {
		tb.Fatal(err)
	}
	if ops, err = os.ReadFile(filepath.Join("testdata", "identifiants_CE_sample.csv")); err != nil {
		tb.Fatal(err)
	}
	return blocks, ops
}

// toUTF8 transcodes a Windows-1252 file to UTF-8 with a byte-order mark.
func toUTF8(tb testing.TB, b []byte) []byte {
	tb.Helper()
	out, err := charmap.Windows1252.NewDecoder().Bytes(b)
	if err != nil {
		tb.Fatal(err)
	}
	return append([]byte("\xef\xbb\xbf"), out...)
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, cell, country string
		want                phoneinfo.Number
	}{
		{"French mobile", "06 95 12 34 56", "", phoneinfo.Number{E164: "+33695123456", National: "06 95 12 34 56", Country: "FRA", Region: "FR", LineType: "mobile", Valid: true, PlanKey: "0695123456"}},
		{"French mobile international", "+33 6 95 12 34 56", "", phoneinfo.Number{E164: "+33695123456", National: "06 95 12 34 56", Country: "FRA", Region: "FR", LineType: "mobile", Valid: true, PlanKey: "0695123456"}},
		{"French mobile 00 prefix", "0033695123456", "", phoneinfo.Number{E164: "+33695123456", National: "06 95 12 34 56", Country: "FRA", Region: "FR", LineType: "mobile", Valid: true, PlanKey: "0695123456"}},
		{"French fixed line", "01 42 12 34 56", "", phoneinfo.Number{E164: "+33142123456", National: "01 42 12 34 56", Country: "FRA", Region: "FR", LineType: "fixed_line", Valid: true, PlanKey: "0142123456"}},
		{"French fixed line with an extension", "01.42.12.34.56 poste 12", "", phoneinfo.Number{E164: "+33142123456", National: "01 42 12 34 56", Country: "FRA", Region: "FR", LineType: "fixed_line", Valid: true, PlanKey: "0142123456"}},
		{"French VoIP 09", "09 75 21 23 45", "FRA", phoneinfo.Number{E164: "+33975212345", National: "09 75 21 23 45", Country: "FRA", Region: "FR", LineType: "voip", Valid: true, PlanKey: "0975212345"}},
		{"French toll-free 0800", "0800 50 12 34", "", phoneinfo.Number{E164: "+33800501234", National: "0 800 50 12 34", Country: "FRA", Region: "FR", LineType: "toll_free", Valid: true, PlanKey: "0800501234"}},
		{"French premium 089", "0892 35 12 34", "", phoneinfo.Number{E164: "+33892351234", National: "0 892 35 12 34", Country: "FRA", Region: "FR", LineType: "premium", Valid: true, PlanKey: "0892351234"}},
		{"French shared cost 0810", "0810 00 12 34", "", phoneinfo.Number{E164: "+33810001234", National: "0 810 00 12 34", Country: "FRA", Region: "FR", LineType: "shared_cost", Valid: true, PlanKey: "0810001234"}},
		{"Martinique mobile dialled nationally", "0696 00 12 34", "", phoneinfo.Number{E164: "+596696001234", National: "0696 00 12 34", Country: "MTQ", Region: "MQ", LineType: "mobile", Valid: true, PlanKey: "0696001234"}},
		{"Guadeloupe fixed dialled nationally", "0590 81 23 45", "", phoneinfo.Number{E164: "+590590812345", National: "0590 81 23 45", Country: "GLP", Region: "GP", LineType: "fixed_line", Valid: true, PlanKey: "0590812345"}},
		{"Réunion fixed international", "+262 262 21 23 45", "", phoneinfo.Number{E164: "+262262212345", National: "0262 21 23 45", Country: "REU", Region: "RE", LineType: "fixed_line", Valid: true, PlanKey: "0262212345"}},
		{"Swiss fixed line", "+41 22 345 67 89", "", phoneinfo.Number{E164: "+41223456789", National: "022 345 67 89", Country: "CHE", Region: "CH", LineType: "fixed_line", Valid: true}},
		{"British fixed line", "+44 20 7123 4567", "", phoneinfo.Number{E164: "+442071234567", National: "020 7123 4567", Country: "GBR", Region: "GB", LineType: "fixed_line", Valid: true}},
		{"US number", "+1 212-555-1234", "", phoneinfo.Number{E164: "+12125551234", National: "(212) 555-1234", Country: "USA", Region: "US", LineType: "fixed_line_or_mobile", Valid: true}},
		{"Belgian national with alpha-3 country", "02 512 34 56", "BEL", phoneinfo.Number{E164: "+3225123456", National: "02 512 34 56", Country: "BEL", Region: "BE", LineType: "fixed_line", Valid: true}},
		{"Belgian national with alpha-2 country", "02 512 34 56", "be", phoneinfo.Number{E164: "+3225123456", National: "02 512 34 56", Country: "BEL", Region: "BE", LineType: "fixed_line", Valid: true}},
		{"unknown country falls back to France", "01 42 12 34 56", "XYZ", phoneinfo.Number{E164: "+33142123456", National: "01 42 12 34 56", Country: "FRA", Region: "FR", LineType: "fixed_line", Valid: true, PlanKey: "0142123456"}},
		{"international freephone", "+800 1234 5678", "", phoneinfo.Number{E164: "+80012345678", National: "1234 5678", LineType: "toll_free", Valid: true}},
		{"too short", "3949", "", phoneinfo.Number{E164: "+333949", National: "3949", Country: "FRA", Region: "FR", LineType: "unknown", PlanKey: "03949"}},
		{"unassigned range", "07 00 00 01 23", "", phoneinfo.Number{E164: "+33700000123", National: "07 00 00 01 23", Country: "FRA", Region: "FR", LineType: "unknown", PlanKey: "0700000123"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := phoneinfo.Parse(tt.cell, phoneinfo.Region(tt.country))
			if !ok {
				t.Fatalf("Parse(%q) not ok", tt.cell)
			}
			got = stripped(got)
			if got != tt.want {
				t.Errorf("Parse(%q, %q)\n got %+v\nwant %+v", tt.cell, tt.country, got, tt.want)
			}
		})
	}
	for _, cell := range []string{"", "   ", "n/a", "abc", "–", strings.Repeat("1", 80)} {
		if n, ok := phoneinfo.Parse(cell, "FR"); ok {
			t.Errorf("Parse(%q) = %+v, want not ok", cell, n)
		}
	}
}

// stripped is n without its unexported libphonenumber value.
func stripped(n phoneinfo.Number) phoneinfo.Number {
	return phoneinfo.Number{E164: n.E164, National: n.National, Country: n.Country, Region: n.Region,
		LineType: n.LineType, Valid: n.Valid, PlanKey: n.PlanKey}
}

func TestRegion(t *testing.T) {
	for in, want := range map[string]string{
		"": "FR", "FRA": "FR", "fra": "FR", "FR": "FR", "BEL": "BE", "ch": "CH", " GBR ": "GB", "MTQ": "MQ",
		"XX": "FR", "France": "FR", "EU": "FR", "ZZZ": "FR",
	} {
		if got := phoneinfo.Region(in); got != want {
			t.Errorf("Region(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLoadARCEPBothEncodings(t *testing.T) {
	blocks, ops := readSample(t)
	encodings := []struct {
		name        string
		blocks, ops []byte
	}{
		{"Windows-1252 as published", blocks, ops},
		{"UTF-8 with BOM", toUTF8(t, blocks), toUTF8(t, ops)},
		{"UTF-8 with LF line ends", bytes.ReplaceAll(toUTF8(t, blocks)[3:], []byte("\r\n"), []byte("\n")), bytes.ReplaceAll(toUTF8(t, ops)[3:], []byte("\r\n"), []byte("\n"))},
	}
	for _, e := range encodings {
		t.Run(e.name, func(t *testing.T) {
			p, err := phoneinfo.LoadARCEP(bytes.NewReader(e.blocks), bytes.NewReader(e.ops))
			if err != nil {
				t.Fatal(err)
			}
			if p.Len() != 25 {
				t.Errorf("Len = %d, want the sample's 25 blocks", p.Len())
			}
			if p.Source() != "ARCEP numbering plan" {
				t.Errorf("Source = %q", p.Source())
			}
			checks := []struct {
				number string
				want   phoneinfo.Assignment
			}{
				{"0148162345", phoneinfo.Assignment{Block: "014816", Mnemonic: "HUBT", Name: "Hub One", SIRET: "43794766600131",
					Address:         "MERCURE CONTINENTAL SQUARE 1 2 PLACE DE LONDRES 93290 TREMBLAY-EN-FRANCE",
					RegisteredSince: "2001-07-03", AssignedOn: "2001-07-27", Territory: "Métropole"}},
				{"0975212345", phoneinfo.Assignment{Block: "09752", Mnemonic: "FRTE", Name: "Orange", SIRET: "38012986648625",
					Address:         "111 QUAI DU PRESIDENT ROOSEVELT CS 70222 92449 ISSY-LES-MOULINEAUX CEDEX",
					RegisteredSince: "1998-03-12", AssignedOn: "2017-01-01", Territory: "Métropole"}},
				{"0775012345", phoneinfo.Assignment{Block: "07750", Mnemonic: "SFR0", Name: "Société française du radiotéléphone", SIRET: "34305956400959",
					Address:         "ALTICE CAMPUS 16 RUE GENERAL ALAIN DE BOISSIEU 75015 PARIS",
					RegisteredSince: "2011-10-28", AssignedOn: "2014-07-08", Territory: "Métropole"}},
				{"0761123456", phoneinfo.Assignment{Block: "0761", Mnemonic: "BOUY", Name: "Bouygues Telecom", SIRET: "39748093003464",
					Address:         "LE TECHNOPÔLE 13-15 AVENUE DU MARÉCHAL JUIN 92360 MEUDON CEDEX",
					RegisteredSince: "1994-12-08", AssignedOn: "2010-11-25", Territory: "Métropole"}},
				{"0976021234", phoneinfo.Assignment{Block: "097602", Mnemonic: "FRTE", Name: "Orange", SIRET: "38012986648625",
					Address:         "111 QUAI DU PRESIDENT ROOSEVELT CS 70222 92449 ISSY-LES-MOULINEAUX CEDEX",
					RegisteredSince: "1998-03-12", AssignedOn: "2017-01-01", Territory: "Guadeloupe, St Martin et St Barthélemy"}},
				// LYCA is not in the operators' sample: the mnemonic alone.
				{"0758123456", phoneinfo.Assignment{Block: "0758", Mnemonic: "LYCA", AssignedOn: "2012-07-24", Territory: "Métropole"}},
			}
			for _, c := range checks {
				got, ok := p.Lookup(c.number)
				if !ok {
					t.Errorf("Lookup(%s): no block", c.number)
					continue
				}
				if got != c.want {
					t.Errorf("Lookup(%s)\n got %+v\nwant %+v", c.number, got, c.want)
				}
			}
			if a, _ := p.Lookup("0758123456"); a.Operator() != "LYCA" {
				t.Errorf("Operator of an unnamed mnemonic = %q, want the mnemonic", a.Operator())
			}
		})
	}
}

func TestLoadARCEPColumnsByName(t *testing.T) {
	// Columns in another order, upper-case headers without the accent,
	// quoted cells and a junk row: read by name.
	blocks := "TERRITOIRE;MNEMO;DATE_ATTRIBUTION;EZABPQM;TRANCHE_FIN;TRANCHE_DEBUT;EXTRA\n" +
		"Métropole;HUBT;27/07/2001;\"014816\";0148169999;0148160000;x\n" +
		"\n" +
		"total;;;;;;\n"
	ops := "CODE_OPERATEUR;IDENTITE_OPERATEUR\nHUBT;\"Hub One\"\n"
	p, err := phoneinfo.LoadARCEP(strings.NewReader(blocks), strings.NewReader(ops))
	if err != nil {
		t.Fatal(err)
	}
	a, ok := p.Lookup("0148160001")
	if !ok || a.Name != "Hub One" || a.Mnemonic != "HUBT" || a.AssignedOn != "2001-07-27" || a.SIRET != "" {
		t.Errorf("Lookup = %+v, %v", a, ok)
	}
	if p.Len() != 1 {
		t.Errorf("Len = %d, want 1 (the junk row skipped)", p.Len())
	}
	// Without the operators' list: mnemonics only.
	p, err = phoneinfo.LoadARCEP(strings.NewReader(blocks), nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := p.Lookup("0148160001"); a.Operator() != "HUBT" || a.Name != "" {
		t.Errorf("without operators: %+v", a)
	}
}

func TestLoadARCEPErrors(t *testing.T) {
	okBlocks := "EZABPQM;Mnémo\n014816;HUBT\n"
	okOps := "CODE_OPERATEUR;IDENTITE_OPERATEUR\nHUBT;Hub One\n"
	tests := []struct {
		name, blocks, ops string
	}{
		{"empty blocks file", "", okOps},
		{"blocks without a mnemonic column", "EZABPQM;Tranche_Debut\n014816;0148160000\n", okOps},
		{"blocks without a usable row", "EZABPQM;Mnémo\nabc;HUBT\n014816;\n", okOps},
		{"operators without a name column", okBlocks, "CODE_OPERATEUR;SIRET_ACTEUR\nHUBT;1\n"},
		{"a comma-separated file", "EZABPQM,Mnémo\n014816,HUBT\n", okOps},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, err := phoneinfo.LoadARCEP(strings.NewReader(tt.blocks), strings.NewReader(tt.ops)); err == nil {
				t.Errorf("LoadARCEP = %d blocks, want an error", p.Len())
			}
		})
	}
	if _, err := phoneinfo.LoadARCEP(strings.NewReader(okBlocks), strings.NewReader(okOps)); err != nil {
		t.Errorf("the control case failed: %v", err)
	}
}

func TestLookupLongestPrefix(t *testing.T) {
	p := arcepSample(t)
	tests := []struct {
		number, block string // block "" for no assignment
	}{
		{"0148150000", "014815"},
		{"0148162345", "014816"}, // Hub One inside Orange's 0148x neighbours
		{"0148179999", "014817"},
		{"0148099999", "01480"},
		{"0148200000", ""}, // 01482 is not in the sample
		{"0142000000", "0142"},
		{"0142999999", "0142"},
		{"0695000000", "0695"},
		{"0696001234", "069600"},
		{"0696101234", ""},
		{"07000001234567", "0700000"}, // a 14-digit block
		{"0700000123", ""},            // a 10-digit number is not in it
		{"0800501234", "080050"},
		{"0892131234", "089213"},
		{"069", ""},
		{"", ""},
		{"01481623 45", ""},
		{"+33148162345", ""},
	}
	for _, tt := range tests {
		a, ok := p.Lookup(tt.number)
		if ok != (tt.block != "") || a.Block != tt.block {
			t.Errorf("Lookup(%q) = %q, %v; want block %q", tt.number, a.Block, ok, tt.block)
		}
	}
	// Nested blocks (not in ARCEP's file, where blocks are disjoint, but
	// the lookup must not depend on it): the longest prefix wins.
	nested := "EZABPQM;Mnémo\n0199;TST1\n019900;TST2\n"
	np, err := phoneinfo.LoadARCEP(strings.NewReader(nested), nil)
	if err != nil {
		t.Fatal(err)
	}
	for number, want := range map[string]string{"0199001234": "TST2", "0199011234": "TST1", "0198001234": ""} {
		a, _ := np.Lookup(number)
		if a.Mnemonic != want {
			t.Errorf("nested Lookup(%s) = %q, want %q", number, a.Mnemonic, want)
		}
	}
}

// run runs the module on one item.
func run(t *testing.T, m enrich.Module, in enrich.Input) enrich.Result {
	t.Helper()
	r, err := m.Run(context.Background(), nil, in)
	if err != nil {
		t.Fatalf("Run(%v): %v", in, err)
	}
	if len(r.Values) != len(m.Columns()) {
		t.Fatalf("Run(%v): %d values for %d columns", in, len(r.Values), len(m.Columns()))
	}
	return r
}

// row maps the result to its columns, leaving out empty cells.
func row(m enrich.Module, r enrich.Result) map[string]string {
	out := map[string]string{}
	for i, c := range m.Columns() {
		if r.Values[i] != "" {
			out[c] = r.Values[i]
		}
	}
	return out
}

func TestModule(t *testing.T) {
	yes, no := true, false
	cache := phoneinfo.NewMemCache()
	checked := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	if err := cache.Put(context.Background(), "+33695123456", phoneinfo.Status{CarrierCurrent: "Bouygues Telecom", Ported: &yes, Reachable: &yes, CheckedAt: checked}); err != nil {
		t.Fatal(err)
	}
	// A check that could not tell the operator.
	if err := cache.Put(context.Background(), "+33142123456", phoneinfo.Status{Ported: &no, CheckedAt: checked}); err != nil {
		t.Fatal(err)
	}
	m := enrich.PhoneInfoModule(phoneinfo.Deps{Plan: arcepSample(t), Cache: cache})
	if m.Slug() != "phone_info" || strings.Join(m.Reads(), ",") != "telephone,country" {
		t.Errorf("Slug %q, Reads %v", m.Slug(), m.Reads())
	}
	if got := enrich.SourceOf(m); got != "libphonenumber + ARCEP numbering plan" {
		t.Errorf("Source = %q", got)
	}
	want := []string{"phone_e164", "phone_national", "phone_country", "phone_line_type", "phone_carrier_original",
		"phone_carrier_current", "phone_is_ported", "phone_is_reachable", "phone_is_valid", "phone_operator_siret",
		"phone_operator_address", "phone_operator_registered_since"}
	if strings.Join(m.Columns(), ",") != strings.Join(want, ",") {
		t.Errorf("Columns = %v", m.Columns())
	}

	orange := map[string]string{"phone_carrier_original": "Orange", "phone_operator_siret": "38012986648625",
		"phone_operator_address":          "111 QUAI DU PRESIDENT ROOSEVELT CS 70222 92449 ISSY-LES-MOULINEAUX CEDEX",
		"phone_operator_registered_since": "1998-03-12"}
	free := map[string]string{"phone_carrier_original": "Free", "phone_operator_siret": "42193886100034",
		"phone_operator_address": "8, RUE DE LA VILLE L'EVÊQUE 75008 PARIS", "phone_operator_registered_since": "1999-11-09"}
	with := func(base map[string]string, more map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range more {
			out[k] = v
		}
		return out
	}
	tests := []struct {
		name  string
		in    enrich.Input
		want  map[string]string
		found bool
	}{
		{"mobile with a cached check", enrich.Input{"telephone": "06 95 12 34 56"}, map[string]string{
			"phone_e164": "+33695123456", "phone_national": "06 95 12 34 56", "phone_country": "FRA", "phone_line_type": "mobile",
			"phone_carrier_original": "Free mobile", "phone_carrier_current": "Bouygues Telecom", "phone_is_ported": "true",
			"phone_is_reachable": "true", "phone_is_valid": "true", "phone_operator_siret": "49924713800013",
			"phone_operator_address":          "16 RUE DE LA VILLE L'EVÊQUE 75008 PARIS",
			"phone_operator_registered_since": "2009-12-30"}, true},
		{"fixed line, check without operator", enrich.Input{"telephone": "+33 1 42 12 34 56"}, with(orange, map[string]string{
			"phone_e164": "+33142123456", "phone_national": "01 42 12 34 56", "phone_country": "FRA", "phone_line_type": "fixed_line",
			"phone_is_ported": "false", "phone_is_valid": "true"}), true},
		{"VoIP 09, not in the cache", enrich.Input{"telephone": "09 75 21 23 45"}, with(orange, map[string]string{
			"phone_e164": "+33975212345", "phone_national": "09 75 21 23 45", "phone_country": "FRA", "phone_line_type": "voip",
			"phone_is_valid": "true"}), true},
		{"toll-free 0800", enrich.Input{"telephone": "0800 76 12 34"}, with(free, map[string]string{
			"phone_e164": "+33800761234", "phone_national": "0 800 76 12 34", "phone_country": "FRA", "phone_line_type": "toll_free",
			"phone_is_valid": "true"}), true},
		{"premium 089", enrich.Input{"telephone": "08 92 35 12 34"}, with(orange, map[string]string{
			"phone_e164": "+33892351234", "phone_national": "0 892 35 12 34", "phone_country": "FRA", "phone_line_type": "premium",
			"phone_is_valid": "true"}), true},
		{"Martinique mobile, overseas operator", enrich.Input{"telephone": "0696 00 12 34"}, map[string]string{
			"phone_e164": "+596696001234", "phone_national": "0696 00 12 34", "phone_country": "MTQ", "phone_line_type": "mobile",
			"phone_carrier_original": "Outremer Telecom", "phone_is_valid": "true", "phone_operator_siret": "38367876000018",
			"phone_operator_address": "Z.I. JAMBETTE BP 280 97285 LAMENTIN CEDEX 2", "phone_operator_registered_since": "1998-04-29"}, true},
		{"mnemonic without an operator row", enrich.Input{"telephone": "07 58 12 34 56"}, map[string]string{
			"phone_e164": "+33758123456", "phone_national": "07 58 12 34 56", "phone_country": "FRA", "phone_line_type": "mobile",
			"phone_carrier_original": "LYCA", "phone_is_valid": "true"}, true},
		{"French mobile outside the sample: libphonenumber's carrier", enrich.Input{"telephone": "06 12 34 56 78"}, map[string]string{
			"phone_e164": "+33612345678", "phone_national": "06 12 34 56 78", "phone_country": "FRA", "phone_line_type": "mobile",
			"phone_carrier_original": "SFR", "phone_is_valid": "true"}, true},
		{"foreign number", enrich.Input{"telephone": "+41 22 345 67 89"}, map[string]string{
			"phone_e164": "+41223456789", "phone_national": "022 345 67 89", "phone_country": "CHE", "phone_line_type": "fixed_line",
			"phone_is_valid": "true"}, true},
		{"national number of the item's country", enrich.Input{"telephone": "02 512 34 56", "country": "BEL"}, map[string]string{
			"phone_e164": "+3225123456", "phone_national": "02 512 34 56", "phone_country": "BEL", "phone_line_type": "fixed_line",
			"phone_is_valid": "true"}, true},
		{"empty telephone", enrich.Input{"telephone": "  "}, map[string]string{}, false},
		{"no telephone key", enrich.Input{}, map[string]string{}, false},
		{"garbage", enrich.Input{"telephone": "n/a"}, map[string]string{"phone_is_valid": "false"}, false},
		{"too short", enrich.Input{"telephone": "3949"}, map[string]string{"phone_is_valid": "false"}, false},
		{"unassigned French range", enrich.Input{"telephone": "07 00 00 01 23"}, map[string]string{"phone_is_valid": "false"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, m, tt.in)
			if r.Unreachable {
				t.Error("Unreachable: a number is never unreachable in cache_only mode")
			}
			if r.Found != tt.found {
				t.Errorf("Found = %v, want %v", r.Found, tt.found)
			}
			got := row(m, r)
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			for k, v := range got {
				if _, ok := tt.want[k]; !ok {
					t.Errorf("%s = %q, want empty", k, v)
				}
			}
		})
	}
}

func TestModuleWithoutSources(t *testing.T) {
	m := enrich.PhoneInfoModule(phoneinfo.Deps{})
	if got := enrich.SourceOf(m); got != "libphonenumber" {
		t.Errorf("Source = %q", got)
	}
	got := row(m, run(t, m, enrich.Input{"telephone": "01 48 16 23 45"}))
	if got["phone_carrier_original"] != "" || got["phone_operator_siret"] != "" || got["phone_is_valid"] != "true" {
		t.Errorf("row without plan or cache = %v", got)
	}
	m = enrich.PhoneInfoModule(phoneinfo.Deps{Plan: arcepSample(t), Source: "custom"})
	if enrich.SourceOf(m) != "custom" {
		t.Errorf("Source override = %q", enrich.SourceOf(m))
	}
}

func TestModuleMaxAge(t *testing.T) {
	yes := true
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	cache := phoneinfo.NewMemCache()
	ctx := context.Background()
	_ = cache.Put(ctx, "+33695123456", phoneinfo.Status{Reachable: &yes, CheckedAt: now.Add(-10 * 24 * time.Hour)})
	_ = cache.Put(ctx, "+33761123456", phoneinfo.Status{Reachable: &yes, CheckedAt: now.Add(-100 * 24 * time.Hour)})
	_ = cache.Put(ctx, "+33768123456", phoneinfo.Status{Reachable: &yes}) // checked at an unknown time
	m := enrich.PhoneInfoModule(phoneinfo.Deps{Cache: cache, MaxAge: 30 * 24 * time.Hour, Now: func() time.Time { return now }})
	for tel, want := range map[string]string{"06 95 12 34 56": "true", "07 61 12 34 56": "", "07 68 12 34 56": ""} {
		if got := row(m, run(t, m, enrich.Input{"telephone": tel}))["phone_is_reachable"]; got != want {
			t.Errorf("%s: phone_is_reachable = %q, want %q", tel, got, want)
		}
	}
}

// failingCache fails every read, as a store that is down.
type failingCache struct{ *phoneinfo.MemCache }

func (failingCache) Get(context.Context, string) (phoneinfo.Status, bool, error) {
	return phoneinfo.Status{}, false, errors.New("store down")
}

func TestModuleCacheError(t *testing.T) {
	m := enrich.PhoneInfoModule(phoneinfo.Deps{Cache: failingCache{phoneinfo.NewMemCache()}})
	if _, err := m.Run(context.Background(), nil, enrich.Input{"telephone": "06 95 12 34 56"}); err == nil {
		t.Error("a failing cache must fail the run (a retry may mend it)")
	}
	// An invalid number reads no cache: no error.
	if _, err := m.Run(context.Background(), nil, enrich.Input{"telephone": "n/a"}); err != nil {
		t.Errorf("invalid number: %v", err)
	}
}

func TestCaches(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "t.db"), []store.Schema{{Name: "phones", PK: "pk", SK: "sk"}}, bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	caches := map[string]phoneinfo.Cache{
		"MemCache":   phoneinfo.NewMemCache(),
		"StoreCache": phoneinfo.StoreCache(db.Table("phones")),
	}
	yes, no := true, false
	checked := time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)
	for name, c := range caches {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			if _, ok, err := c.Get(ctx, "+33695123456"); ok || err != nil {
				t.Errorf("miss: ok %v, err %v", ok, err)
			}
			full := phoneinfo.Status{CarrierCurrent: "Bouygues Telecom", Ported: &yes, Reachable: &no, CheckedAt: checked}
			if err := c.Put(ctx, "+33695123456", full); err != nil {
				t.Fatal(err)
			}
			got, ok, err := c.Get(ctx, "+33695123456")
			if !ok || err != nil || got.CarrierCurrent != "Bouygues Telecom" || got.Ported == nil || !*got.Ported ||
				got.Reachable == nil || *got.Reachable || !got.CheckedAt.Equal(checked) {
				t.Errorf("hit: %+v, %v, %v", got, ok, err)
			}
			// Unknown fields stay unknown; a put replaces the whole status.
			if err := c.Put(ctx, "+33695123456", phoneinfo.Status{Reachable: &yes}); err != nil {
				t.Fatal(err)
			}
			got, ok, _ = c.Get(ctx, "+33695123456")
			if !ok || got.CarrierCurrent != "" || got.Ported != nil || got.Reachable == nil || !*got.Reachable || !got.CheckedAt.IsZero() {
				t.Errorf("partial status: %+v", got)
			}
			if _, ok, _ := c.Get(ctx, "+33695123457"); ok {
				t.Error("another number hit")
			}
		})
	}
	// The key design the lead's table relies on.
	it, err := db.Table("phones").Get(context.Background(), store.Key{PK: "phone#+33695123456", SK: "v"})
	if err != nil {
		t.Fatalf("item at phone#<e164>/v: %v", err)
	}
	if it.Bool("is_reachable") != true || it.Has("is_ported") || it.Has("carrier_current") {
		t.Errorf("item = %v", it)
	}
}
