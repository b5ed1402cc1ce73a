package rowdiff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// TestSamplesShape pins the JSON of the spec's run samples: new and
// removed arrays of {key, nom}; modified of {key, nom, before, after,
// changed_fields}; arrays, never null.
func TestSamplesShape(t *testing.T) {
	empty, err := json.Marshal(NewSamples(0).Result())
	if err != nil || string(empty) != `{"new":[],"removed":[],"modified":[]}` {
		t.Fatalf("empty samples %s (%v)", empty, err)
	}
	prev := csvOf(t, scrapeHeader, scrapeRow("A", "Gone", "4", "1"), scrapeRow("B", "=Same", "4.5", "10"))
	cur := csvOf(t, scrapeHeader, scrapeRow("B", "=Same", "4.3", "10"), scrapeRow("C", "Nouveau", "5", "1"))
	s := NewSamples(0)
	if _, err := Diff(context.Background(), bytes.NewReader(prev), bytes.NewReader(cur), Options{EmitUnchanged: true}, s.Add); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(s.Result())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string][]map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string][]map[string]any{
		"new":     {{"key": "id:C", "nom": "Nouveau"}},
		"removed": {{"key": "id:A", "nom": "Gone"}},
		"modified": {{
			"key": "id:B", "nom": "=Same",
			"before": map[string]any{"nom": "=Same", "adresse": "12 rue de la République, 69002 Lyon", "telephone": "+33 4 78 12 34 56",
				"site_web": "https://example.fr/", "rating": "4.5", "reviews_count": "10", "category": "Boulangerie"},
			"after": map[string]any{"nom": "=Same", "adresse": "12 rue de la République, 69002 Lyon", "telephone": "+33 4 78 12 34 56",
				"site_web": "https://example.fr/", "rating": "4.3", "reviews_count": "10", "category": "Boulangerie"},
			"changed_fields": []any{"rating"},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("samples\n%s\nwant\n%v", data, want)
	}
}

// TestSamplesCap: at most cap entries a bucket, the smallest keys, in key
// order, whatever the order changes come in.
func TestSamplesCap(t *testing.T) {
	var changes []Change
	row := func(nom string) Row { return NewRow(scrapeHeader, scrapeRow("x", nom, "4", "1")) }
	for i := range 100 {
		k := fmt.Sprintf("id:%03d", i)
		changes = append(changes,
			Change{Kind: KindNew, Key: k, After: row("n" + k)},
			Change{Kind: KindRemoved, Key: k, Before: row("r" + k)},
			Change{Kind: KindModified, Key: k, Before: row("a"), After: row("m" + k), ChangedFields: []string{"nom"}},
			Change{Kind: KindUnchanged, Key: k, Before: row("u"), After: row("u")})
	}
	tests := []struct {
		cap, want int
	}{{0, DefaultSampleCap}, {-1, DefaultSampleCap}, {1, 1}, {5, 5}, {100, 100}, {500, 100}}
	for _, tt := range tests {
		t.Run(fmt.Sprint("cap ", tt.cap), func(t *testing.T) {
			var first SampleSet
			for round := range 3 {
				r := rand.New(rand.NewPCG(uint64(round), 1))
				shuffled := slices.Clone(changes)
				r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
				s := NewSamples(tt.cap)
				for _, c := range shuffled {
					if err := s.Add(c); err != nil {
						t.Fatal(err)
					}
				}
				got := s.Result()
				if len(got.New) != tt.want || len(got.Removed) != tt.want || len(got.Modified) != tt.want {
					t.Fatalf("%d new, %d removed, %d modified; want %d each", len(got.New), len(got.Removed), len(got.Modified), tt.want)
				}
				for i := range tt.want {
					k := fmt.Sprintf("id:%03d", i)
					if got.New[i].Key != k || got.New[i].Nom != "n"+k || got.Removed[i].Nom != "r"+k || got.Modified[i].Nom != "m"+k {
						t.Fatalf("entry %d: %+v %+v %+v", i, got.New[i], got.Removed[i], got.Modified[i])
					}
				}
				if round == 0 {
					first = got
				} else if !reflect.DeepEqual(got, first) {
					t.Fatal("samples depend on the order of the changes")
				}
			}
		})
	}
}
