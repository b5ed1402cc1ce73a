package opendata_test

import (
	"testing"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/opendata"
)

func TestNameKind(t *testing.T) {
	tests := []struct{ row, osm, want string }{
		{"Boulangerie du Marché", "Boulangerie du Marché", opendata.MatchExact},
		{"Boulangerie du Marché", "BOULANGERIE DU MARCHE", opendata.MatchExact},
		{"Boulangerie du Marché", "Boulangerie du Marché SARL", opendata.MatchExact},
		{"SAS Garage Dupont", "Garage Dupont", opendata.MatchExact},
		{"Saint-Honoré Pâtisserie", "St Honoré - Pâtisserie", opendata.MatchExact},
		{"L'Atelier Coiffure", "L’Atelier-Coiffure", opendata.MatchExact},
		{"Le Cœur Gourmand", "Le Coeur Gourmand", opendata.MatchExact},
		{"Boulangerie Pâtisserie Martin", "Boulangerie Martin", opendata.MatchNear},
		{"Au Pain Doré", "Pain Doré", opendata.MatchNear},
		{"Maison Martin", "Maison Martin Boulangerie", opendata.MatchNear},
		{"Boulengerie Martin", "Boulangerie Martin", opendata.MatchNear},
		{"Fleurs de Lyon", "Fleur de Lyon", opendata.MatchNear},
		{"Garage Dupont & Fils", "Dupont et Fils Garage", opendata.MatchNear},
		{"Boulangerie Martin", "Boulangerie", opendata.MatchNone},
		{"Boulangerie Martin", "Boulangerie Dupont", opendata.MatchNone},
		{"Boulangerie du Marché", "Marché U", opendata.MatchNone},
		{"Bar", "Bat", opendata.MatchNone}, // short words must be equal
		{"", "Boulangerie", opendata.MatchNone},
		{"SARL", "SARL", opendata.MatchExact}, // a name of legal words keeps them
	}
	for _, tt := range tests {
		if got := opendata.NameKind(tt.row, tt.osm); got != tt.want {
			t.Errorf("NameKind(%q, %q) = %s, want %s", tt.row, tt.osm, got, tt.want)
		}
	}
}

func TestParseAddress(t *testing.T) {
	tests := []struct{ in, house, street, pc, commune string }{
		{"16 rue Émile Zola, 69300 Caluire-et-Cuire", "16", "rue Émile Zola", "69300", "Caluire-et-Cuire"},
		{"12 bis avenue Jean Jaurès, 69007 Lyon, France", "12 bis", "avenue Jean Jaurès", "69007", "Lyon"},
		{"3B, place Bellecour, 69002 Lyon", "3B", "place Bellecour", "69002", "Lyon"},
		{"Place Bellecour, 69002 Lyon", "", "Place Bellecour", "69002", "Lyon"},
		{"69002 Lyon", "", "", "69002", "Lyon"},
		{"Marienplatz 8, München, Germany", "", "Marienplatz 8", "", ""},
		{"", "", "", "", ""},
	}
	for _, tt := range tests {
		h, s, pc, c := opendata.ParseAddress(tt.in)
		if h != tt.house || s != tt.street || pc != tt.pc || c != tt.commune {
			t.Errorf("ParseAddress(%q) = %q, %q, %q, %q", tt.in, h, s, pc, c)
		}
	}
}

func TestRowOf(t *testing.T) {
	tests := []struct {
		name  string
		in    enrich.Input
		ok    bool
		point bool
		pc    string
	}{
		{"scrape row with gps", enrich.Input{"nom": "X", "latitude": "45.79", "longitude": "4.85"}, true, true, ""},
		{"import row with lat and lon", enrich.Input{"nom": "X", "lat": "45,79", "lon": "4,85"}, true, true, ""},
		{"scrape row without gps", enrich.Input{"nom": "X", "adresse": "1 rue A, 69300 Caluire-et-Cuire"}, true, false, "69300"},
		{"code_postal overrides the address", enrich.Input{"nom": "X", "adresse": "1 rue A, 69300 Caluire", "code_postal": "69100"}, true, false, "69100"},
		{"commune only", enrich.Input{"nom": "X", "commune": "Lyon"}, true, false, ""},
		{"(0, 0) is a missing position", enrich.Input{"nom": "X", "latitude": "0", "longitude": "0"}, false, false, ""},
		{"position off the map", enrich.Input{"nom": "X", "latitude": "145", "longitude": "4"}, false, false, ""},
		{"unreadable position", enrich.Input{"nom": "X", "latitude": "N45", "longitude": "E4"}, false, false, ""},
		{"no name", enrich.Input{"nom": " ", "latitude": "45.79", "longitude": "4.85"}, false, false, ""},
		{"a postcode that is not one", enrich.Input{"nom": "X", "code_postal": "69;300"}, false, false, ""},
	}
	for _, tt := range tests {
		r, ok := opendata.RowOf(tt.in)
		if ok != tt.ok || (r.Point != nil) != tt.point || r.Postcode != tt.pc {
			t.Errorf("%s: ok %v point %v postcode %q", tt.name, ok, r.Point != nil, r.Postcode)
		}
	}
}

// el is a test element: a node at (lat, lon) with tags, or a way with
// its center when way is true.
func el(id int64, lat, lon float64, way bool, tags ...string) opendata.Element {
	e := opendata.Element{Type: "node", ID: id, Tags: map[string]string{}}
	if way {
		e.Type = "way"
		e.Center = &opendata.LatLon{Lat: lat, Lon: lon}
	} else if lat != 0 || lon != 0 {
		e.Lat, e.Lon = &lat, &lon
	}
	for i := 0; i+1 < len(tags); i += 2 {
		e.Tags[tags[i]] = tags[i+1]
	}
	return e
}

// Metres to degrees of latitude, about.
const m = 1.0 / 111_195

func TestMatch(t *testing.T) {
	here := &opendata.LatLon{Lat: 45.76, Lon: 4.85}
	at := func(r opendata.Row, p *opendata.LatLon) opendata.Row { r.Point = p; return r }
	row := opendata.Row{Name: "Pharmacie Centrale"}
	withPhone := opendata.Row{Name: "Pharmacie Centrale", Phone: "04 72 11 22 33"}
	withSite := opendata.Row{Name: "Pharmacie Centrale", Website: "www.pharmacie-centrale.fr"}
	onFacebook := opendata.Row{Name: "Pharmacie Centrale", Website: "https://fr-fr.facebook.com/pharmaciecentrale"}
	area := opendata.Row{Name: "Pharmacie Centrale", Postcode: "69003", Commune: "Lyon", HouseNumber: "12", Street: "rue Paul Bert"}
	tests := []struct {
		name      string
		row       opendata.Row
		elems     []opendata.Element
		wantID    int64
		kind      string
		truncated bool
	}{
		{"the nearest of two", at(row, here), []opendata.Element{
			el(1, 45.76+150*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "+33 4 78 00 00 01"),
			el(2, 45.76+40*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "+33 4 78 00 00 02"),
		}, 2, opendata.MatchExact, false},
		{"an exact name beats a nearer near name", at(row, here), []opendata.Element{
			el(1, 45.76+5*m, 4.85, false, "amenity", "pharmacy", "name", "Grande Pharmacie Centrale"),
			el(2, 45.76+200*m, 4.85, false, "amenity", "pharmacy", "name", "PHARMACIE CENTRALE"),
		}, 2, opendata.MatchExact, false},
		{"a near name alone", at(row, here), []opendata.Element{
			el(1, 45.76+5*m, 4.85, false, "amenity", "pharmacy", "name", "Grande Pharmacie Centrale"),
		}, 1, opendata.MatchNear, false},
		{"beyond the radius", at(row, here), []opendata.Element{
			el(1, 45.76+320*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale"),
		}, 0, opendata.MatchNone, false},
		{"a way's center counts", at(row, here), []opendata.Element{
			el(7, 45.76+10*m, 4.85, true, "amenity", "pharmacy", "name", "Pharmacie Centrale"),
		}, 7, opendata.MatchExact, false},
		{"an ambiguous tie is refused", at(row, here), []opendata.Element{
			el(1, 45.76+30*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "+33 4 78 00 00 01"),
			el(2, 45.76-40*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "+33 4 78 00 00 02"),
		}, 0, opendata.MatchNone, false},
		{"a tie of one business mapped twice is one business", at(row, here), []opendata.Element{
			el(1, 45.76+30*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "04 78 00 00 01"),
			el(2, 45.76-35*m, 4.85, true, "building", "yes", "amenity", "pharmacy", "name", "Pharmacie Centrale",
				"phone", "+33 4 78 00 00 01", "website", "https://pharmacie.fr"),
		}, 1, opendata.MatchExact, false},
		{"no business key: a street of the same name", at(row, here), []opendata.Element{
			el(1, 45.76, 4.85, true, "highway", "residential", "name", "Pharmacie Centrale"),
			el(2, 45.76, 4.85, false, "amenity", "no", "name", "Pharmacie Centrale"),
		}, 0, opendata.MatchNone, false},
		{"no position: not a candidate with coordinates", at(row, here), []opendata.Element{
			el(1, 0, 0, false, "amenity", "pharmacy", "name", "Pharmacie Centrale"),
		}, 0, opendata.MatchNone, false},
		{"area: another postcode is dropped", area, []opendata.Element{
			el(1, 45.75, 4.84, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "addr:postcode", "69007"),
		}, 0, opendata.MatchNone, false},
		{"area: the same street address wins", area, []opendata.Element{
			el(1, 45.75, 4.84, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "addr:postcode", "69003"),
			el(2, 45.76, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "addr:housenumber", "12",
				"addr:street", "Rue Paul Bert"),
		}, 2, opendata.MatchExact, false},
		{"area: abbreviations expanded", opendata.Row{Name: "Garage Dupont", Postcode: "69300", HouseNumber: "4", Street: "av. Général de Gaulle"},
			[]opendata.Element{
				el(1, 45.75, 4.84, false, "shop", "car_repair", "name", "Garage Dupont", "addr:housenumber", "4 bis",
					"addr:street", "Avenue Général de Gaulle"),
			}, 1, opendata.MatchExact, false},
		{"area: a confirmed postcode beats no address", area, []opendata.Element{
			el(1, 45.75, 4.84, false, "amenity", "pharmacy", "name", "Pharmacie Centrale"),
			el(2, 45.76, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "addr:postcode", "69003"),
		}, 2, opendata.MatchExact, false},
		{"area: one unconfirmed candidate", area, []opendata.Element{
			el(1, 45.75, 4.84, false, "amenity", "pharmacy", "name", "Pharmacie Centrale"),
		}, 1, opendata.MatchExact, false},
		{"area: a homonym proven elsewhere refuses an unconfirmed one", area, []opendata.Element{
			el(1, 45.75, 4.84, false, "amenity", "pharmacy", "name", "Pharmacie Centrale"),
			el(2, 45.76, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "addr:postcode", "69008"),
		}, 0, opendata.MatchNone, false},
		{"area: another town is dropped", area, []opendata.Element{
			el(1, 45.75, 4.84, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "addr:city", "Villeurbanne"),
		}, 0, opendata.MatchNone, false},
		{"area: an arrondissement's name is its city's", area, []opendata.Element{
			el(1, 45.75, 4.84, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "addr:city", "Lyon 3e Arrondissement"),
		}, 1, opendata.MatchExact, false},
		{"area: two unconfirmed homonyms that disagree", area, []opendata.Element{
			el(1, 45.75, 4.84, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "0478000001"),
			el(2, 45.76, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "0478000002"),
		}, 0, opendata.MatchNone, false},
		{"the row's phone tells the business from a nearer homonym", at(withPhone, here), []opendata.Element{
			el(1, 45.76+20*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "+33 4 78 00 00 01"),
			el(2, 45.76+200*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "+33 4 72 11 22 33"),
		}, 2, opendata.MatchExact, false},
		{"a homonym with another phone refuses an unconfirmed one", at(withPhone, here), []opendata.Element{
			el(1, 45.76+20*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "+33 4 78 00 00 01"),
			el(2, 45.76+200*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale"),
		}, 0, opendata.MatchNone, false},
		{"another website is another business", at(withSite, here), []opendata.Element{
			el(1, 45.76+20*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "website", "https://autre-pharmacie.fr"),
		}, 0, opendata.MatchNone, false},
		{"the same website through www and a path", at(withSite, here), []opendata.Element{
			el(1, 45.76+250*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "contact:website", "http://pharmacie-centrale.fr/accueil"),
			el(2, 45.76+10*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale"),
		}, 1, opendata.MatchExact, false},
		{"a platform page says nothing of identity", at(onFacebook, here), []opendata.Element{
			el(1, 45.76+20*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "website", "https://www.facebook.com/autre"),
		}, 1, opendata.MatchExact, false},
		{"a cut answer refuses an unconfirmed candidate", at(row, here), []opendata.Element{
			el(1, 45.76+20*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale"),
		}, 0, opendata.MatchNone, true},
		{"a cut answer keeps a candidate confirmed by its phone", at(withPhone, here), []opendata.Element{
			el(1, 45.76+20*m, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "04 72 11 22 33"),
		}, 1, opendata.MatchExact, true},
		{"area: two that agree stand for the one with most contacts", area, []opendata.Element{
			el(1, 45.75, 4.84, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "0478000001"),
			el(2, 45.76, 4.85, false, "amenity", "pharmacy", "name", "Pharmacie Centrale", "phone", "+33478000001",
				"email", "contact@pharmacie.fr"),
		}, 2, opendata.MatchExact, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The answer's order never changes the outcome.
			for _, rev := range []bool{false, true} {
				elems := append([]opendata.Element{}, tt.elems...)
				if rev {
					for i, j := 0, len(elems)-1; i < j; i, j = i+1, j-1 {
						elems[i], elems[j] = elems[j], elems[i]
					}
				}
				e, kind := opendata.Match(tt.row, elems, opendata.MatchOptions{Radius: 300, Truncated: tt.truncated})
				var id int64
				if e != nil {
					id = e.ID
				}
				if id != tt.wantID || kind != tt.kind {
					t.Errorf("reversed %v: got %d %s, want %d %s", rev, id, kind, tt.wantID, tt.kind)
				}
			}
		})
	}
}

func TestElementCells(t *testing.T) {
	e := el(1, 45, 4, false, "shop", "bakery", "name", "X",
		"website", "www.x.fr;https://other.fr", "phone", "+41 22 123 45 67", "email", "not an address",
		"diet:vegan", "only", "payment:cash", "no", "contact:mobile", "+33 6 00 00 00 00", "wikidata", "Q1")
	if got := e.Website(); got != "https://www.x.fr/" {
		t.Errorf("website %q", got)
	}
	if got := e.Phone(); got != "+41 22 123 45 67" {
		t.Errorf("phone %q", got)
	}
	if got := e.Email(); got != "" {
		t.Errorf("email %q", got)
	}
	if got := e.Champs(); got != "diet:*; mobile; wikidata" {
		t.Errorf("champs %q", got)
	}
	e = el(2, 45, 4, false, "url", "javascript:alert(1)", "contact:email", "mailto:a@b.fr", "contact:phone", "12")
	if e.Website() != "" || e.Email() != "a@b.fr" || e.Phone() != "12" {
		t.Errorf("cells %q %q %q", e.Website(), e.Email(), e.Phone())
	}
	if e.Ref() != "node/2" {
		t.Errorf("ref %q", e.Ref())
	}
}
