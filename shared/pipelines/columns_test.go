package pipelines_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/pipelines"
)

func TestReportColumns(t *testing.T) {
	h := []string{"nom", "telephone", "email", "site_web", "rating", "category", "notes"}
	var rows [][]string
	for i := range 40 {
		email := fmt.Sprintf("contact@boulangerie-%d.fr", i)
		if i%4 == 0 {
			email = ""
		}
		rows = append(rows, []string{fmt.Sprintf("Boulangerie %d", i), fmt.Sprintf("+33 4 78 %02d %02d %02d", i, i, i), email,
			fmt.Sprintf("https://www.b%d.fr/", i), fmt.Sprintf("4,%d", i%10), []string{"Boulangerie", "Pâtisserie"}[i%2],
			fmt.Sprintf("vu le %d, rappeler", i)})
	}
	rows[3][1] = "pas de numéro" // one in forty does not match: still a phone column
	rep, err := pipelines.ReportColumns(bytes.NewReader(storedCSV(t, h, rows)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"nom": "text", "telephone": "phone", "email": "email", "site_web": "url", "rating": "number",
		"category": "category", "notes": "text"}
	if rep.RowCount != 40 || len(rep.Columns) != len(h) {
		t.Fatalf("report: %+v", rep)
	}
	for _, c := range rep.Columns {
		if c.Type != want[c.Name] {
			t.Errorf("%s: %s, want %s", c.Name, c.Type, want[c.Name])
		}
		if (c.Type == "category") != (c.DistinctCount != nil) {
			t.Errorf("%s: distinct_count %v", c.Name, c.DistinctCount)
		}
	}
	cat := rep.Columns[5]
	if *cat.DistinctCount != 2 || strings.Join(cat.DistinctValues, ",") != "Boulangerie,Pâtisserie" {
		t.Errorf("category: %+v", cat)
	}
	if e := rep.Columns[2]; e.FillRate != 0.75 || len(e.SampleValues) != 5 {
		t.Errorf("email: fill %v, samples %v", e.FillRate, e.SampleValues)
	}
	b, _ := json.Marshal(rep.Columns[0])
	if !strings.Contains(string(b), `"distinct_count":null`) {
		t.Errorf("a text column's distinct_count is not null: %s", b)
	}
}

// TestReportColumnsPhoneCountry: a national number is read in the row's
// country (its country cell), else in the home market's.
func TestReportColumnsPhoneCountry(t *testing.T) {
	for _, tt := range []struct {
		name    string
		country string // "": no country column
		tel     string // with the row's index as last digit
		phone   bool
	}{
		{"French number, no country column", "", "04 78 12 34 5%d", true},
		{"American number, no country column", "", "(415) 555-267%d", false},
		{"American number in a US row", "USA", "(415) 555-267%d", true},
		{"American number, alpha-2 country", "us", "(415) 555-267%d", true},
		{"British number in a GB row", "GBR", "020 7946 095%d", true},
		{"British number in a French row", "FRA", "020 7946 095%d", false},
		{"unknown country: the home market's", "Royaume-Uni", "020 7946 095%d", false},
		{"unknown country, French number", "Royaume-Uni", "04 78 12 34 5%d", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := []string{"nom", "telephone"}
			if tt.country != "" {
				h = append(h, "country")
			}
			var rows [][]string
			for i := range 10 {
				r := []string{fmt.Sprint("n", i), fmt.Sprintf(tt.tel, i)}
				if tt.country != "" {
					r = append(r, tt.country)
				}
				rows = append(rows, r)
			}
			rep, err := pipelines.ReportColumns(bytes.NewReader(storedCSV(t, h, rows)))
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Columns[1].Type; (got == pipelines.ColPhone) != tt.phone {
				t.Errorf("telephone %q in %q: %s, phone %v", tt.tel, tt.country, got, tt.phone)
			}
		})
	}
}

func TestPreviewAndFilter(t *testing.T) {
	h := []string{"nom", "rating", "telephone", "email"}
	var rows [][]string
	for i := range 6000 {
		email := ""
		if i%2 == 0 {
			email = fmt.Sprintf("a%d@x.fr", i)
		}
		rows = append(rows, []string{fmt.Sprint("n", i), fmt.Sprint(i % 5), "+33 4 78 00 00 00", email})
	}
	in := storedCSV(t, h, rows)
	rules, _ := pipelines.ParseRules(json.RawMessage(`{"logic":"AND","conditions":[{"column":"rating","op":">=","value":3},
		{"column":"telephone","op":"starts_with","value":"+33"}]}`))
	p, err := pipelines.PreviewFilter(bytes.NewReader(in), rules)
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 5000 || !p.Capped || p.Matched != 2000 || len(p.Samples) != 5 || len(p.Fieldnames) != 4 {
		t.Fatalf("preview: total %d capped %v matched %d samples %d", p.Total, p.Capped, p.Matched, len(p.Samples))
	}
	without := 0
	for _, s := range p.Samples {
		for k, v := range s {
			if v == "" {
				t.Errorf("sample %v keeps an empty %s", s, k)
			}
		}
		if _, ok := s["email"]; !ok {
			without++
		}
	}
	if without == 0 {
		t.Error("every sample has an email: the empty ones were not left out")
	}
	var out bytes.Buffer
	kept, err := pipelines.FilterCSV(bytes.NewReader(in), &out, rules)
	if err != nil {
		t.Fatal(err)
	}
	if kept != 2400 || !bytes.Contains(out.Bytes(), []byte("'+33 4 78")) {
		t.Errorf("kept %d; the stored guard kept: %v", kept, bytes.Contains(out.Bytes(), []byte("'+33")))
	}
	bad, _ := pipelines.ParseRules(json.RawMessage(`{"conditions":[{"column":"ville","op":"=","value":"x"}]}`))
	if _, err := pipelines.PreviewFilter(bytes.NewReader(in), bad); !containsFR(err, "Colonne inconnue") {
		t.Errorf("unknown column: %v", err)
	}
}
