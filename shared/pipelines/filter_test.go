package pipelines_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/prospectdata/svc/shared/pipelines"
)

var header = []string{"nom", "rating", "reviews_count", "category", "email", "status", "commune"}

var rows = [][]string{
	{"Boulangerie Dupont", "4,6", "120", "Boulangerie", "contact@dupont.fr", "valid", "Lyon"},
	{"Le Fournil", "3.9", "12", "boulangerie", "", "", "Villeurbanne"},
	{"Pâtisserie Élise", "4.8", "1 204", "Pâtisserie", "elise@gmail.com", "risky", "Écully"},
	{"Chez Marc", "", "0", "Restaurant", "marc@chez.fr", "invalid", "Lyon"},
}

// matches runs the rules over rows and returns the names kept.
func matches(t *testing.T, rules string) []string {
	t.Helper()
	g, err := pipelines.ParseRules(json.RawMessage(rules))
	if err != nil {
		t.Fatal(err)
	}
	m, err := pipelines.Compile(g, header)
	if err != nil {
		t.Fatalf("compile %s: %v", rules, err)
	}
	var out []string
	for _, r := range rows {
		if m.Match(r) {
			out = append(out, r[0])
		}
	}
	return out
}

func TestFilterRules(t *testing.T) {
	for _, tt := range []struct {
		name, rules string
		want        []string
	}{
		{"no rule keeps every row", `{"logic":"AND","conditions":[]}`, []string{"Boulangerie Dupont", "Le Fournil", "Pâtisserie Élise", "Chez Marc"}},
		{"= on text ignores case and accents", `{"conditions":[{"column":"category","op":"=","value":"BOULANGERIE"}]}`, []string{"Boulangerie Dupont", "Le Fournil"}},
		{"!=", `{"conditions":[{"column":"commune","op":"!=","value":"lyon"}]}`, []string{"Le Fournil", "Pâtisserie Élise"}},
		{"> compares numbers, a French comma included", `{"conditions":[{"column":"rating","op":">","value":4.5}]}`, []string{"Boulangerie Dupont", "Pâtisserie Élise"}},
		{">= with the value as text", `{"conditions":[{"column":"rating","op":">=","value":"3,9"}]}`, []string{"Boulangerie Dupont", "Le Fournil", "Pâtisserie Élise"}},
		{"< on numbers is not text order (12 < 120 < 1204)", `{"conditions":[{"column":"reviews_count","op":"<","value":100}]}`, []string{"Le Fournil", "Chez Marc"}},
		{"<= ", `{"conditions":[{"column":"reviews_count","op":"<=","value":120}]}`, []string{"Boulangerie Dupont", "Le Fournil", "Chez Marc"}},
		{"an empty cell is neither above nor below", `{"conditions":[{"column":"rating","op":"<","value":10}]}`, []string{"Boulangerie Dupont", "Le Fournil", "Pâtisserie Élise"}},
		{"in a list", `{"conditions":[{"column":"status","op":"in","value":["valid","risky"]}]}`, []string{"Boulangerie Dupont", "Pâtisserie Élise"}},
		{"in a comma-separated string", `{"conditions":[{"column":"commune","op":"in","value":"ecully, villeurbanne"}]}`, []string{"Le Fournil", "Pâtisserie Élise"}},
		{"not_in", `{"conditions":[{"column":"status","op":"not_in","value":["invalid"]}]}`, []string{"Boulangerie Dupont", "Le Fournil", "Pâtisserie Élise"}},
		{"in numbers", `{"conditions":[{"column":"reviews_count","op":"in","value":[12,"120"]}]}`, []string{"Boulangerie Dupont", "Le Fournil"}},
		{"contains", `{"conditions":[{"column":"email","op":"contains","value":"GMAIL"}]}`, []string{"Pâtisserie Élise"}},
		{"not_contains", `{"conditions":[{"column":"nom","op":"not_contains","value":"boulangerie"}]}`, []string{"Le Fournil", "Pâtisserie Élise", "Chez Marc"}},
		{"starts_with without accents", `{"conditions":[{"column":"nom","op":"starts_with","value":"patisserie"}]}`, []string{"Pâtisserie Élise"}},
		{"is_empty", `{"conditions":[{"column":"email","op":"is_empty"}]}`, []string{"Le Fournil"}},
		{"is_not_empty", `{"conditions":[{"column":"rating","op":"is_not_empty"}]}`, []string{"Boulangerie Dupont", "Le Fournil", "Pâtisserie Élise"}},
		{"AND", `{"logic":"AND","conditions":[{"column":"commune","op":"=","value":"Lyon"},{"column":"email","op":"is_not_empty"},{"column":"rating","op":">=","value":4}]}`,
			[]string{"Boulangerie Dupont"}},
		{"OR", `{"logic":"OR","conditions":[{"column":"status","op":"=","value":"valid"},{"column":"commune","op":"=","value":"Écully"}]}`,
			[]string{"Boulangerie Dupont", "Pâtisserie Élise"}},
		{"nested groups", `{"logic":"AND","conditions":[{"column":"email","op":"is_not_empty"},
			{"logic":"OR","conditions":[{"column":"rating","op":">","value":4.7},{"column":"commune","op":"=","value":"lyon"}]}]}`,
			[]string{"Boulangerie Dupont", "Pâtisserie Élise", "Chez Marc"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := matches(t, tt.rules); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("kept %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFilterRuleErrors(t *testing.T) {
	deep := `{"column":"nom","op":"is_empty"}`
	for range 6 {
		deep = `{"logic":"AND","conditions":[` + deep + `]}`
	}
	for _, tt := range []struct{ name, rules, fr string }{
		{"unknown column", `{"conditions":[{"column":"ville","op":"=","value":"Lyon"}]}`, `Colonne inconnue : "ville"`},
		{"unknown op", `{"conditions":[{"column":"nom","op":"~","value":"a"}]}`, `Opérateur inconnu : "~"`},
		{"bad logic", `{"logic":"XOR","conditions":[]}`, `logic vaut AND ou OR, pas "XOR"`},
		{"in without a list", `{"conditions":[{"column":"rating","op":"in","value":4}]}`, `in attend une liste de valeurs (colonne "rating")`},
		{"a list for =", `{"conditions":[{"column":"rating","op":"=","value":[4]}]}`, `= attend une valeur (colonne "rating")`},
		{"too deep", deep, "Règles imbriquées sur plus de 5 niveaux"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := pipelines.ParseRules(json.RawMessage(tt.rules))
			if err == nil {
				_, err = pipelines.Compile(g, header)
			}
			if err == nil || !containsFR(err, tt.fr) {
				t.Errorf("err %v, want %q", err, tt.fr)
			}
		})
	}
}

// FuzzRules: any rules over any row compile or refuse, and match without
// a panic.
func FuzzRules(f *testing.F) {
	f.Add(`{"logic":"OR","conditions":[{"column":"rating","op":">","value":"4,5"},{"logic":"AND","conditions":[]}]}`, "4,6")
	f.Add(`{"conditions":[{"column":"nom","op":"in","value":["a",1,null,{"x":1}]}]}`, "a")
	f.Fuzz(func(t *testing.T, rules, cell string) {
		g, err := pipelines.ParseRules(json.RawMessage(rules))
		if err != nil {
			return
		}
		m, err := pipelines.Compile(g, header)
		if err != nil {
			return
		}
		m.Match([]string{cell, cell, cell})
	})
}

// BenchmarkFilter1M: one rule set of the usual shape over 1,000,000 rows
// (rows per second; the rows are held by the benchmark, the filter keeps
// no state per row).
func BenchmarkFilter1M(b *testing.B) {
	g, _ := pipelines.ParseRules(json.RawMessage(`{"logic":"AND","conditions":[{"column":"email","op":"is_not_empty"},
		{"column":"rating","op":">=","value":4},{"logic":"OR","conditions":[{"column":"commune","op":"in","value":["Lyon","Écully"]},
		{"column":"category","op":"contains","value":"pâtisserie"}]}]}`))
	m, err := pipelines.Compile(g, header)
	if err != nil {
		b.Fatal(err)
	}
	const n = 1_000_000
	data := make([][]string, n)
	for i := range data {
		data[i] = rows[i%len(rows)]
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	kept := 0
	for b.Loop() {
		kept = 0
		for _, r := range data {
			if m.Match(r) {
				kept++
			}
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
	if kept != n/2 {
		b.Fatalf("kept %d", kept)
	}
}
