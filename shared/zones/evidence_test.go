package zones

import "testing"

func TestSplitAddress(t *testing.T) {
	tests := []struct {
		in, pc, loc string
		ok          bool
	}{
		{"12 rue Émile Zola, 69100 Villeurbanne", "69100", "Villeurbanne", true},
		{"3 place Bellecour, 69002 Lyon, France", "69002", "Lyon", true},
		{"10 avenue Foch, 69006 Lyon Cedex 06", "69006", "Lyon", true},
		{"Gartenstraße 56, 63755 Alzenau", "63755", "Alzenau", true},
		{"ZA Les Prés 01100 Oyonnax", "", "", false},
		{"1600 Amphitheatre Pkwy, Mountain View, CA 94043", "", "", false},
		{"", "", "", false},
		{"12 rue des Lilas, 1234 Ville", "", "", false},
	}
	for _, tt := range tests {
		pc, loc, ok := SplitAddress(tt.in)
		if pc != tt.pc || loc != tt.loc || ok != tt.ok {
			t.Errorf("SplitAddress(%q) = %q, %q, %v; want %q, %q, %v", tt.in, pc, loc, ok, tt.pc, tt.loc, tt.ok)
		}
	}
}

func TestAdmits(t *testing.T) {
	r := realResolver(t)
	tests := []struct {
		zone, address string
		want          bool
	}{
		{"Villeurbanne", "12 rue Émile Zola, 69100 Villeurbanne", true},
		{"Villeurbanne", "3 place Bellecour, 69002 Lyon", false},
		{"Villeurbanne", "5 rue X, 69003 Lyon, France", false},
		{"Villeurbanne", "Route de Genas, Villeurbanne", true}, // no postal code: no evidence
		{"Villeurbanne", "1 rue Y, 99999 Nowhere", true},       // unknown code: no evidence
		{"Lyon", "3 place Bellecour, 69002 Lyon", true},        // an arrondissement of the city
		{"Lyon", "12 rue Émile Zola, 69100 Villeurbanne", false},
		{"Lyon 2e", "3 place Bellecour, 69002 Lyon", true},
		{"Lyon 2e", "5 rue X, 69003 Lyon", false},
		{"Paris 11e", "1 bd Voltaire, 75011 Paris", true},
		{"Paris 11e", "1 rue de Lyon, 75012 Paris", false},
		{"Paris", "1 rue de Lyon, 75012 Paris", true},
		{"Paris", "1 rue de Paris, 93100 Montreuil", false},
		{"Montreuil 93", "1 rue de Paris, 93100 Montreuil", true},
		{"Montreuil 93", "1 rue de Paris, 93100 Montreuil Cedex", true},
		{"Bègles", "1 cours Victor Hugo, 33000 Bordeaux", false},
		{"Bègles", "1 rue Z, 33130 Bègles", true},
		{"69100", "12 rue Émile Zola, 69100 Villeurbanne", true},
		{"69100", "3 place Bellecour, 69002 Lyon", false},
		// A postal code shared by several communes, the locality unknown:
		// the code's communes decide.
		{"Caluire-et-Cuire", "2 chemin W, 69300 Caluire", true},
		{"Rhône", "12 rue Émile Zola, 69100 Villeurbanne", true},
		{"Rhône", "1 place de la Mairie, 01000 Bourg-en-Bresse", false},
		{"Auvergne-Rhône-Alpes", "1 place de la Mairie, 01000 Bourg-en-Bresse", true},
		{"Auvergne-Rhône-Alpes", "1 rue de Paris, 93100 Montreuil", false},
		// Radius zones are geometry only.
		{"Villeurbanne 15km", "3 place Bellecour, 69002 Lyon", true},
		{"Lyon 15km", "1 rue de Paris, 93100 Montreuil", true},
	}
	for _, tt := range tests {
		z, err := r.Resolve("FRA", tt.zone)
		if err != nil {
			t.Fatalf("%s: %v", tt.zone, err)
		}
		if got := r.Admits(z, tt.address); got != tt.want {
			t.Errorf("Admits(%s, %q) = %v, want %v (places %v)", tt.zone, tt.address, got, tt.want, r.AddressPlaces("FRA", tt.address))
		}
	}
}

// BenchmarkAdmits is the engine's cost per place found: the address read,
// its postal code's places and their names matched.
func BenchmarkAdmits(b *testing.B) {
	r := realResolver(b)
	z, err := r.Resolve("FRA", "Villeurbanne")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if r.Admits(z, "3 place Bellecour, 69002 Lyon") {
			b.Fatal("admitted")
		}
	}
}

func TestInside(t *testing.T) {
	r := realResolver(t)
	tests := []struct {
		zone, outer string
		want        bool
	}{
		{"Lyon 1er", "Lyon", true},
		{"69001", "Lyon", true}, // Lyon 1er's postal code
		{"Villeurbanne", "Rhône", true},
		{"Villeurbanne", "Auvergne-Rhône-Alpes", true},
		{"Lyon", "Lyon", false}, // the same zone: the grid shares it already
		{"Lyon", "Lyon 1er", false},
		{"Villeurbanne", "Lyon", false},
		{"Lyon 1er", "Lyon 15km", false}, // radius zones are geometry
		{"Lyon 15km", "Rhône", false},
	}
	for _, tt := range tests {
		z, err := r.Resolve("FRA", tt.zone)
		if err != nil {
			t.Fatal(err)
		}
		o, err := r.Resolve("FRA", tt.outer)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Inside(z, o); got != tt.want {
			t.Errorf("Inside(%s, %s) = %v, want %v", tt.zone, tt.outer, got, tt.want)
		}
	}
}
