// Package registerssim is the twin of the company registers' APIs for
// offline runs (SVC_DATA_SOURCES=sim): the simulated world's companies
// (shared/provider/sim, read through its View) as the API Recherche
// d'entreprises (GET /search) and BODACC's Opendatasoft Explore API (GET
// /api/explore/v2.1/catalog/datasets/annonces-commerciales/records) would
// publish them, in their JSON formats, so that the registers client runs
// offline against it unchanged (its base URLs on the hosts the app
// routes to Handler). It lives beside its client, not in the world, so
// that a binary importing the client does not link the world.
//
// # Companies
//
// Every French place of the world is one company with one establishment,
// its siège at the place's address. Its identity is the one its fixture
// website's legal notice shows (sim.PlaceRef.Legal: name, form, SIREN,
// SIRET, director), drawn from the place's key whether or not the place
// has a website, so a place without a site has a deterministic identity
// too. Around it, drawn from the place's key:
//
//   - nature_juridique: the INSEE code of its form (EURL is 5499 and SASU
//     5710, as in the register); activite_principale: its category's NAF
//     code (regNAF);
//   - date_creation: the day the place opened (places of day 0 are 30 days
//     to 20 years old); etat_administratif C with date_fermeture once the
//     place has closed (the twin keeps showing ceased companies, as the
//     register does);
//   - tranche_effectif_salarie: a small business's band, mostly NN to 03;
//   - dirigeants: the director, as Gérant (SARL, EURL, SELARL, SCP...) or
//     Président (SAS, SASU, SELAS); none for an EI;
//   - finances for a third of the companies (two years, the last two
//     closed); complements: RGE for a third of building trades, Bio for
//     some food shops, Qualiopi for some driving schools and gyms, ESS
//     rarely;
//   - liste_enseignes: the listing's name in capitals, when the company's
//     name is another (three companies in ten, "MARTIN ET FILS").
//
// The share capital is not served: the real API has none.
//
// # Searches
//
//   - q of 9 or 14 digits (SIREN, SIRET): the company, found among those
//     the twin has shown in this process (up to regIndexMax), else among
//     the places of the code_postal the request also carries (the real
//     API ignores filters on such queries; the client sends the postcode
//     so that the twin needs no index of the world). matching_etablissements
//     is empty for a SIREN, the establishment for a SIRET.
//   - q text: the companies of the places in the request's code_postal,
//     code_commune, departement or region lists (a name search anywhere
//     in France is not served: it would scan the country) whose company
//     name or listing name shares a word of two letters or more with q,
//     the most shared words first.
//   - no q, activite_principale: the companies of the categories of those
//     NAF codes in the zone, in the order of the gazetteer's settlements.
//   - etat_administratif and tranche_effectif_salarie filter; pages of
//     per_page (at most 25), page × per_page at most 10,000, 400 with the
//     API's {"erreur": ...} otherwise. Only the table's 39 categories are
//     registered (a query's own category exists for the map only).
//
// # BODACC
//
// A SIREN's announcements are drawn from the SIREN alone, on the world's
// calendar up to its current day (a client of the twin runs on Clock, so
// that its "last 12 months" are the world's): a "Modifications diverses"
// announcement in about one month in twenty; for 4% of companies a
// collective proceeding (redressement judiciaire, liquidation judiciaire
// or sauvegarde) opened on a day drawn within two years either side of
// day 0, a redressement converted into a liquidation 90 days later one
// time in three; a filing of accounts each spring for companies with
// finances. The where clause's registre and dateparution bounds,
// order_by, limit, offset and select are honoured.
//
// Both routes sleep the world's latency and fail at its transient rate
// (503), as the map does.
package registerssim

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/provider/sim"
	"github.com/prospectdata/svc/shared/registers"
	"github.com/prospectdata/svc/shared/upstream"
)

// Handler returns the twin's handler of the world v, for both hosts (the
// search API's and BODACC's). It keeps an index of the companies it has
// shown: one per process.
func Handler(v sim.View) http.Handler {
	return &regAPI{v: v, cats: v.Categories(), index: map[string]string{}, entries: map[sim.PlaceID]*regEntry{}}
}

// Clock is the clock a registers client reading the twin should run on:
// the world's current date (its day, at the real time of day), so that
// "the last 12 months" of BODACC and "created less than a year ago" are
// the world's, not the calendar's. Sleeps are real.
func Clock(v sim.View) registers.Clock { return regClock{v} }

type regClock struct{ v sim.View }

func (c regClock) Now() time.Time {
	now := time.Now().UTC()
	day, err := c.v.Day(context.Background())
	if err != nil {
		day = 0
	}
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return c.v.Date(day).Add(now.Sub(midnight))
}

func (c regClock) Sleep(ctx context.Context, d time.Duration) error { return upstream.Sleep(ctx, d) }

// regIndexMax bounds the SIREN → place token index of companies shown;
// regEntriesMax the places whose identity, postcode and name words are
// kept (a name search looks at every place of its postcode: a job's rows,
// mostly in the same places, draw them once; about 300 bytes each). Each
// map is emptied when full.
const (
	regIndexMax   = 200_000
	regEntriesMax = 50_000
)

type regAPI struct {
	v sim.View
	// cats are the world's registered categories, in the table's order.
	cats    []sim.Category
	mu      sync.Mutex
	index   map[string]string // SIREN → place token
	entries map[sim.PlaceID]*regEntry
}

// regEntry is what searches compare of a place.
type regEntry struct {
	legal    sim.Legal
	postcode string
	words    []string // of the listing's name and the company's
}

// entry is a place's regEntry, from the cache or drawn.
func (h *regAPI) entry(x sim.PlaceRef) *regEntry {
	k := x.ID()
	h.mu.Lock()
	e, ok := h.entries[k]
	h.mu.Unlock()
	if ok {
		return e
	}
	l := regLegal(x)
	loc := x.Locate()
	_, pc, _ := regAddress(loc)
	e = &regEntry{legal: l, postcode: pc, words: regWords(loc.Name() + " " + l.Company)}
	h.mu.Lock()
	if len(h.entries) >= regEntriesMax {
		clear(h.entries)
	}
	h.entries[k] = e
	h.mu.Unlock()
	return e
}

const (
	regSearchPath = "/search"
	regBodaccPath = "/api/explore/v2.1/catalog/datasets/annonces-commerciales/records"
	regPerPageMax = 25
	regResultsMax = 10000
)

func (h *regAPI) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		rw.Header().Set("Allow", "GET, HEAD")
		regJSON(rw, http.StatusMethodNotAllowed, map[string]string{"erreur": "Méthode non autorisée."})
		return
	}
	if r.URL.Path != regSearchPath && r.URL.Path != regBodaccPath {
		regJSON(rw, http.StatusNotFound, map[string]string{"erreur": "Page introuvable."})
		return
	}
	if err := h.v.Call(r.Context(), "registers"); err != nil {
		if r.Context().Err() != nil {
			return
		}
		rw.Header().Set("Content-Type", "text/html")
		rw.WriteHeader(http.StatusServiceUnavailable)
		_, _ = rw.Write([]byte("<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>\n"))
		return
	}
	day, err := h.v.Day(r.Context())
	if err != nil {
		regJSON(rw, http.StatusInternalServerError, map[string]string{"erreur": "Erreur interne."})
		return
	}
	if r.URL.Path == regBodaccPath {
		h.bodacc(rw, r.URL.Query(), day)
		return
	}
	h.search(rw, r.URL.Query(), day)
}

func regJSON(rw http.ResponseWriter, status int, v any) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_ = json.NewEncoder(rw).Encode(v)
}

func regBad(rw http.ResponseWriter, msg string) {
	regJSON(rw, http.StatusBadRequest, map[string]string{"erreur": msg})
}

// regParams are the parameters of a search the twin reads.
type regParams struct {
	q                                          string
	postcodes, communes, departements, regions []string
	naf, tranches                              []string
	etat                                       string
	page, perPage                              int
	matching                                   int
}

func regList(v url.Values, k string) []string {
	var out []string
	for _, s := range strings.Split(v.Get(k), ",") {
		if s = strings.ToUpper(strings.TrimSpace(s)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (h *regAPI) search(rw http.ResponseWriter, v url.Values, day int) {
	p := regParams{q: strings.TrimSpace(v.Get("q")), postcodes: regList(v, "code_postal"), communes: regList(v, "code_commune"),
		departements: regList(v, "departement"), regions: regList(v, "region"), naf: regList(v, "activite_principale"),
		tranches: regList(v, "tranche_effectif_salarie"), etat: strings.ToUpper(v.Get("etat_administratif")), page: 1, perPage: 10, matching: 10}
	for _, f := range []struct {
		name     string
		dst      *int
		min, max int
	}{{"page", &p.page, 1, 1000}, {"per_page", &p.perPage, 1, regPerPageMax}, {"limite_matching_etablissements", &p.matching, 1, 100}} {
		s := v.Get(f.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil {
			regBad(rw, fmt.Sprintf("Veuillez indiquer un paramètre `%s` entier.", f.name))
			return
		}
		if n < f.min || n > f.max {
			regBad(rw, fmt.Sprintf("Veuillez indiquer un paramètre `%s` entre `%d` et `%d`.", f.name, f.min, f.max))
			return
		}
		*f.dst = n
	}
	if p.page*p.perPage > regResultsMax {
		regBad(rw, "Le nombre total de résultats est restreint à 10 000. Pour garantir cela, le produit du numéro de page "+
			"(par défaut, page = 1) et du nombre de résultats par page (par défaut, per_page = 10), c'est-à-dire `page * per_page`, "+
			"ne doit pas excéder 10 000.")
		return
	}
	if p.etat != "" && p.etat != "A" && p.etat != "C" {
		regBad(rw, "Le paramètre `etat_administratif` doit prendre une des valeurs suivantes ['A', 'C'].")
		return
	}
	zoned := len(p.postcodes)+len(p.communes)+len(p.departements)+len(p.regions) > 0
	if p.q == "" && len(p.naf) == 0 && !zoned {
		regBad(rw, "Veuillez indiquer au moins un paramètre de recherche.")
		return
	}
	if p.q != "" && len([]rune(p.q)) < 3 && !zoned && len(p.naf) == 0 {
		regBad(rw, "3 caractères minimum pour les termes de la requête (ou utilisez au moins un filtre)")
		return
	}
	digits := regDigits(p.q)
	var results []regResult
	switch {
	case digits && (len(p.q) == 9 || len(p.q) == 14):
		results = h.byID(p, day)
	default:
		results = h.filtered(p, day)
	}
	total := len(results)
	pages := (total + p.perPage - 1) / p.perPage
	lo := min((p.page-1)*p.perPage, total)
	page := results[lo:min(lo+p.perPage, total)]
	for i := range page {
		if len(page[i].MatchingEtablissements) > p.matching {
			page[i].MatchingEtablissements = page[i].MatchingEtablissements[:p.matching]
		}
	}
	regJSON(rw, http.StatusOK, regPayload{Results: page, TotalResults: total, Page: p.page, PerPage: p.perPage, TotalPages: pages})
}

func regDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// byID finds the company of a SIREN or SIRET.
func (h *regAPI) byID(p regParams, day int) []regResult {
	siren := p.q[:9]
	hit, ok := h.lookup(siren, day)
	if !ok {
		for _, s := range regZone(h.v, p.postcodes, nil, nil, nil) {
			for _, x := range h.regPlaces(s, nil, day) {
				if e := h.entry(x); e.legal.SIREN == siren && (len(p.postcodes) == 0 || slices.Contains(p.postcodes, e.postcode)) {
					hit, ok = x, true
					break
				}
			}
			if ok {
				break
			}
		}
	}
	if !ok {
		return []regResult{}
	}
	res := h.result(hit, day)
	switch {
	case len(p.q) == 9:
		res.MatchingEtablissements = []regEstablishment{}
	case res.Siege.SIRET == p.q:
		res.MatchingEtablissements = []regEstablishment{res.Siege.regEstablishment}
	default:
		return []regResult{}
	}
	return []regResult{res}
}

// lookup finds a SIREN among the companies shown.
func (h *regAPI) lookup(siren string, day int) (sim.PlaceRef, bool) {
	h.mu.Lock()
	tok, ok := h.index[siren]
	h.mu.Unlock()
	if !ok {
		return sim.PlaceRef{}, false
	}
	x, err := h.v.ParseToken(tok)
	if err != nil || x.Birth() > day {
		return sim.PlaceRef{}, false
	}
	return x, true
}

// filtered answers a name or activity search.
func (h *regAPI) filtered(p regParams, day int) []regResult {
	zoned := len(p.postcodes)+len(p.communes)+len(p.departements)+len(p.regions) > 0
	if !zoned {
		return []regResult{} // a search of all France is not served (see the doc)
	}
	var cats []sim.Category
	for _, c := range h.cats {
		if len(p.naf) == 0 || slices.Contains(p.naf, regNAF[c.Key()]) {
			cats = append(cats, c)
		}
	}
	words := regWords(p.q)
	type scored struct {
		hit   sim.PlaceRef
		score int
		order int
	}
	var hits []scored
	for _, s := range regZone(h.v, p.postcodes, p.communes, p.departements, p.regions) {
		for _, x := range h.regPlaces(s, cats, day) {
			e := h.entry(x)
			if len(p.postcodes) > 0 && !slices.Contains(p.postcodes, e.postcode) {
				continue
			}
			open := x.Open(day)
			if p.etat == "A" && !open || p.etat == "C" && open {
				continue
			}
			if len(p.tranches) > 0 && !slices.Contains(p.tranches, regTranche(x)) {
				continue
			}
			score := 0
			if len(words) > 0 {
				for _, wd := range words {
					if slices.Contains(e.words, wd) {
						score++
					}
				}
				if score == 0 {
					continue
				}
			}
			hits = append(hits, scored{x, score, len(hits)})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	out := make([]regResult, len(hits))
	for i, s := range hits {
		out[i] = h.result(s.hit, day)
	}
	return out
}

// regWords are the words of a text the twin's full-text search compares:
// normalised, two letters or more.
func regWords(s string) []string {
	var out []string
	for _, w := range strings.Fields(gazetteer.Normalize(s)) {
		if len(w) >= 2 && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// regZone lists the settlements of the zones, in gazetteer order, each
// once.
func regZone(v sim.View, postcodes, communes, departements, regions []string) []sim.Settlement {
	g := v.Gazetteer()
	var ids []gazetteer.ID
	add := func(id gazetteer.ID) { ids = append(ids, regLeaves(g, id)...) }
	for _, pc := range postcodes {
		for _, id := range g.ByPostcode("FRA", pc) {
			add(id)
		}
	}
	for _, code := range communes {
		if id, ok := g.ByCode("FRA", gazetteer.District, code); ok {
			add(id)
		} else if id, ok := g.ByCode("FRA", gazetteer.City, code); ok {
			add(id)
		}
	}
	for _, code := range departements {
		if id, ok := g.ByCode("FRA", gazetteer.Department, code); ok {
			add(id)
		}
	}
	for _, code := range regions {
		if id, ok := g.ByCode("FRA", gazetteer.Region, code); ok {
			add(id)
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var out []sim.Settlement
	for _, id := range ids {
		if s, ok := v.Settlement(id); ok {
			out = append(out, s)
		}
	}
	return out
}

// regLeaves are the cities and districts under a place (itself when it is
// one; a city's districts when it has some).
func regLeaves(g *gazetteer.Gazetteer, id gazetteer.ID) []gazetteer.ID {
	p := g.Place(id)
	switch p.Kind {
	case gazetteer.District:
		return []gazetteer.ID{id}
	case gazetteer.City:
		var ds []gazetteer.ID
		for _, k := range g.Children(id) {
			if g.Place(k).Kind == gazetteer.District {
				ds = append(ds, k)
			}
		}
		if len(ds) == 0 {
			return []gazetteer.ID{id}
		}
		return ds
	case gazetteer.Department, gazetteer.Region:
		var out []gazetteer.ID
		for _, k := range g.Children(id) {
			out = append(out, regLeaves(g, k)...)
		}
		return out
	}
	return nil
}

// regPlaces are the places of a settlement born by day (open or closed),
// of the categories (all when nil), in a deterministic order.
func (h *regAPI) regPlaces(s sim.Settlement, cats []sim.Category, day int) []sim.PlaceRef {
	if s.Country() != "FRA" {
		return nil
	}
	if cats == nil {
		cats = h.cats
	}
	var out []sim.PlaceRef
	for _, c := range cats {
		out = append(out, h.v.Born(s, c, day)...)
	}
	return out
}

// regLegal is the place's legal identity: the one its website's legal
// notice shows (drawn whether or not the place has a site; it does not
// depend on the day). Only French places are registered.
func regLegal(x sim.PlaceRef) sim.Legal {
	l, _ := x.Legal()
	return l
}

func regPtr[T any](v T) *T { return &v }

// round7 rounds a coordinate as the listing shows it.
func round7(x float64) float64 { return math.Round(x*1e7) / 1e7 }

// regAddress splits the place's address: street line, postcode, town.
func regAddress(loc sim.Located) (line, postcode, town string) {
	addr := loc.Address()
	line, rest, _ := strings.Cut(addr, ", ")
	if len(rest) >= 5 && regDigits(rest[:5]) {
		return line, rest[:5], strings.TrimSpace(rest[5:])
	}
	return line, "", rest
}

// The registers' JSON (the fields the real API serves that the twin
// fills; nulls where it has nothing).
type regPayload struct {
	Results      []regResult `json:"results"`
	TotalResults int         `json:"total_results"`
	Page         int         `json:"page"`
	PerPage      int         `json:"per_page"`
	TotalPages   int         `json:"total_pages"`
}

type regEstablishment struct {
	ActivitePrincipale     string   `json:"activite_principale"`
	AnneeTrancheEffectif   *string  `json:"annee_tranche_effectif_salarie"`
	Adresse                string   `json:"adresse"`
	CaractereEmployeur     string   `json:"caractere_employeur"`
	CodePostal             string   `json:"code_postal"`
	Commune                string   `json:"commune"`
	DateCreation           string   `json:"date_creation"`
	DateDebutActivite      string   `json:"date_debut_activite"`
	DateFermeture          *string  `json:"date_fermeture"`
	EstSiege               bool     `json:"est_siege"`
	EtatAdministratif      string   `json:"etat_administratif"`
	Latitude               string   `json:"latitude"`
	LibelleCommune         string   `json:"libelle_commune"`
	ListeEnseignes         []string `json:"liste_enseignes"`
	Longitude              string   `json:"longitude"`
	NomCommercial          *string  `json:"nom_commercial"`
	Region                 string   `json:"region"`
	SIRET                  string   `json:"siret"`
	StatutDiffusion        string   `json:"statut_diffusion_etablissement"`
	TrancheEffectifSalarie *string  `json:"tranche_effectif_salarie"`
}

type regSiege struct {
	regEstablishment
	Departement string `json:"departement"`
	NumeroVoie  string `json:"numero_voie"`
	TypeVoie    string `json:"type_voie"`
	LibelleVoie string `json:"libelle_voie"`
}

type regOfficer struct {
	Nom            string `json:"nom"`
	Prenoms        string `json:"prenoms"`
	AnneeNaissance string `json:"annee_de_naissance"`
	Qualite        string `json:"qualite"`
	Nationalite    string `json:"nationalite"`
	TypeDirigeant  string `json:"type_dirigeant"`
}

type regFinance struct {
	CA          int64 `json:"ca"`
	ResultatNet int64 `json:"resultat_net"`
}

type regResult struct {
	SIREN                       string                `json:"siren"`
	NomComplet                  string                `json:"nom_complet"`
	NomRaisonSociale            *string               `json:"nom_raison_sociale"`
	Sigle                       *string               `json:"sigle"`
	NombreEtablissements        int                   `json:"nombre_etablissements"`
	NombreEtablissementsOuverts int                   `json:"nombre_etablissements_ouverts"`
	Siege                       regSiege              `json:"siege"`
	ActivitePrincipale          string                `json:"activite_principale"`
	CategorieEntreprise         string                `json:"categorie_entreprise"`
	DateCreation                string                `json:"date_creation"`
	DateFermeture               *string               `json:"date_fermeture"`
	DateMiseAJour               string                `json:"date_mise_a_jour"`
	Dirigeants                  []regOfficer          `json:"dirigeants"`
	EtatAdministratif           string                `json:"etat_administratif"`
	NatureJuridique             string                `json:"nature_juridique"`
	SectionActivitePrincipale   string                `json:"section_activite_principale"`
	TrancheEffectifSalarie      *string               `json:"tranche_effectif_salarie"`
	AnneeTrancheEffectif        *string               `json:"annee_tranche_effectif_salarie"`
	StatutDiffusion             string                `json:"statut_diffusion"`
	MatchingEtablissements      []regEstablishment    `json:"matching_etablissements"`
	Finances                    map[string]regFinance `json:"finances"`
	Complements                 map[string]any        `json:"complements"`
}

// regNAF is the NAF rév. 2 sous-classe of each category's businesses.
var regNAF = map[string]string{
	"boulangerie": "10.71C", "restaurant": "56.10A", "plombier": "43.22A", "coiffeur": "96.02A", "pharmacie": "47.73Z",
	"notaire": "69.10Z", "avocat": "69.10Z", "dentiste": "86.23Z", "garage": "45.20A", "hotel": "55.10Z",
	"immobilier": "68.31Z", "fleuriste": "47.76Z", "boucherie": "47.22Z", "electricien": "43.21A", "medecin": "86.21Z",
	"kine": "86.90E", "comptable": "69.20Z", "architecte": "71.11Z", "opticien": "47.78A", "veterinaire": "75.00Z",
	"bar": "56.30Z", "pizzeria": "56.10C", "menuisier": "43.32A", "peintre": "43.34Z", "serrurier": "43.32B",
	"beaute": "96.02B", "banque": "64.19Z", "assurance": "66.22Z", "supermarche": "47.11D", "maconnerie": "43.99C",
	"couvreur": "43.91B", "osteopathe": "86.90F", "autoecole": "85.53Z", "sport": "93.13Z", "caviste": "47.25Z",
	"patisserie": "10.71D", "traiteur": "56.21Z", "librairie": "47.61Z", "pressing": "96.01B",
}

// regSection is the NAF section of a code's division.
func regSection(naf string) string {
	d, _ := strconv.Atoi(naf[:min(2, len(naf))])
	for _, s := range []struct {
		hi   int
		name string
	}{{3, "A"}, {9, "B"}, {33, "C"}, {35, "D"}, {39, "E"}, {43, "F"}, {47, "G"}, {53, "H"}, {56, "I"}, {63, "J"},
		{66, "K"}, {68, "L"}, {75, "M"}, {82, "N"}, {84, "O"}, {85, "P"}, {88, "Q"}, {93, "R"}, {96, "S"}, {98, "T"}, {99, "U"}} {
		if d <= s.hi {
			return s.name
		}
	}
	return ""
}

// regForm is the INSEE catégorie juridique of a form of legalOf, and the
// title of its director.
func regForm(form, cat string) (code, title string) {
	switch form {
	case "EI":
		return "1000", ""
	case "SARL", "EURL":
		return "5499", "Gérant"
	case "SAS", "SASU":
		return "5710", "Président"
	case "SA":
		return "5599", "Président du conseil d'administration"
	case "SCA":
		return "5308", "Gérant"
	case "SCOP":
		return "5458", "Gérant"
	case "SELARL":
		return "5485", "Gérant"
	case "SELAS":
		return "5785", "Président"
	case "SNC":
		return "5202", "Gérant"
	case "SCM":
		return "6589", "Gérant"
	case "AARPI":
		return "9224", "Associé"
	case "SCP":
		switch cat {
		case "notaire":
			return "6565", "Associé gérant"
		case "avocat":
			return "6561", "Associé gérant"
		case "veterinaire":
			return "6576", "Associé gérant"
		}
		return "6585", "Associé gérant"
	}
	return "5499", "Gérant"
}

// regTranche is the company's headcount band.
func regTranche(x sim.PlaceRef) string {
	r := x.Key().Str("registers tranche").Rand()
	cat := x.Category().Key()
	big := cat == "supermarche" || cat == "banque" || cat == "hotel"
	u := r.Float()
	bands := []struct {
		p    float64
		code string
	}{{0.30, "NN"}, {0.40, "00"}, {0.65, "01"}, {0.82, "02"}, {0.92, "03"}, {0.97, "11"}, {1, "12"}}
	if big {
		bands = []struct {
			p    float64
			code string
		}{{0.05, "00"}, {0.15, "02"}, {0.35, "03"}, {0.65, "11"}, {0.90, "12"}, {1, "21"}}
	}
	for _, b := range bands {
		if u < b.p {
			return b.code
		}
	}
	return "NN"
}

// result is the place's company as the search API shows it, with its
// establishment as the single matching one; the SIREN is indexed.
func (h *regAPI) result(x sim.PlaceRef, day int) regResult {
	v, g := h.v, h.v.Gazetteer()
	k := x.Key()
	l := h.entry(x).legal
	h.mu.Lock()
	if len(h.index) >= regIndexMax {
		clear(h.index)
	}
	h.index[l.SIREN] = x.Token()
	h.mu.Unlock()
	loc := x.Locate()
	name := loc.Name()
	line, pc, town := regAddress(loc)
	cat := x.Category().Key()
	code, title := regForm(l.Form, cat)
	naf := regNAF[cat]
	created := v.Date(x.Birth()).Format(time.DateOnly)
	tranche := regTranche(x)
	etat, estEtat := "A", "A"
	var closed *string
	if !x.Open(day) {
		etat, estEtat, closed = "C", "F", regPtr(v.Date(x.Close()).Format(time.DateOnly))
	}
	// The commune is where the place is, as its address says.
	commune := g.Place(loc.Commune())
	dept, region := regCodes(g, commune.ID)
	libelle := regLibelle(commune, town)
	street := strings.ToUpper(gazetteer.Normalize(line))
	num, rest, _ := strings.Cut(street, " ")
	typ, lib, _ := strings.Cut(rest, " ")
	var enseignes []string
	if up := strings.ToUpper(name); up != l.Company {
		enseignes = []string{up}
	}
	var trancheP, anneeP *string
	if tranche != "NN" {
		trancheP, anneeP = regPtr(tranche), regPtr(strconv.Itoa(v.Date(day).Year()-2))
	}
	employeur := "N"
	if tranche != "NN" && tranche != "00" {
		employeur = "O"
	}
	pt := x.Point()
	est := regEstablishment{
		ActivitePrincipale: naf, AnneeTrancheEffectif: anneeP, Adresse: street + " " + pc + " " + libelle,
		CaractereEmployeur: employeur, CodePostal: pc, Commune: commune.Code, DateCreation: created, DateDebutActivite: created,
		DateFermeture: closed, EstSiege: true, EtatAdministratif: estEtat,
		Latitude: strconv.FormatFloat(round7(pt[1]), 'f', -1, 64), Longitude: strconv.FormatFloat(round7(pt[0]), 'f', -1, 64),
		LibelleCommune: libelle, ListeEnseignes: enseignes, Region: region, SIRET: l.SIRET, StatutDiffusion: "O",
		TrancheEffectifSalarie: trancheP,
	}
	res := regResult{
		SIREN: l.SIREN, NomComplet: l.Company, NombreEtablissements: 1, Siege: regSiege{est, dept, num, typ, lib},
		ActivitePrincipale: naf, CategorieEntreprise: "PME", DateCreation: created, DateFermeture: closed,
		DateMiseAJour: v.Date(min(day, x.Close())).Format("2006-01-02T15:04:05"), Dirigeants: []regOfficer{},
		EtatAdministratif: etat, NatureJuridique: code, SectionActivitePrincipale: regSection(naf),
		TrancheEffectifSalarie: trancheP, AnneeTrancheEffectif: anneeP, StatutDiffusion: "O",
		MatchingEtablissements: []regEstablishment{est}, Finances: map[string]regFinance{},
	}
	if etat == "A" {
		res.NombreEtablissementsOuverts = 1
	}
	regDirector(&res, l, k, title)
	regExtras(v, &res, x, l, k, day)
	return res
}

// regDirector names a company's director, and its corporate name, unless
// it is an individual enterprise (EI).
func regDirector(res *regResult, l sim.Legal, k sim.Key, title string) {
	if l.Form != "EI" {
		res.NomRaisonSociale = regPtr(l.Company)
		first, last, _ := strings.Cut(l.Director, " ")
		born := k.Str("registers born").Rand()
		res.Dirigeants = append(res.Dirigeants, regOfficer{Nom: strings.ToUpper(last), Prenoms: first,
			AnneeNaissance: strconv.Itoa(1955 + born.Intn(45)), Qualite: title,
			Nationalite: "Française", TypeDirigeant: "personne physique"})
	}
}

// regExtras draws a company's finances (a third of the companies that are
// not an EI publish two years of them) and its complements (labels drawn
// by category), in that order from one stream.
func regExtras(v sim.View, res *regResult, x sim.PlaceRef, l sim.Legal, k sim.Key, day int) {
	r := k.Str("registers").Rand()
	cat := x.Category().Key()
	if l.Form != "EI" && r.Chance(1.0/3) {
		ca := int64(math.Round(150_000 * math.Exp(1.2*r.Normal()+math.Log(regScale(cat)))))
		y := v.Date(day).Year() - 1
		for j := range 2 {
			ca = int64(float64(ca) * (0.9 + 0.2*r.Float()))
			res.Finances[strconv.Itoa(y-j)] = regFinance{CA: ca, ResultatNet: int64(float64(ca) * (-0.05 + 0.17*r.Float()))}
		}
	}
	res.Complements = map[string]any{
		"est_entrepreneur_individuel": l.Form == "EI",
		"est_rge":                     slices.Contains([]string{"plombier", "electricien", "couvreur", "menuisier", "peintre", "maconnerie"}, cat) && r.Chance(1.0/3),
		"est_bio":                     slices.Contains([]string{"boulangerie", "patisserie", "caviste", "supermarche", "restaurant", "traiteur"}, cat) && r.Chance(0.08),
		"est_qualiopi":                (cat == "autoecole" || cat == "sport") && r.Chance(0.2),
		"est_ess":                     r.Chance(0.02),
		"est_association":             false,
		"est_siae":                    false,
		"est_societe_mission":         false,
		"collectivite_territoriale":   nil,
		"identifiant_association":     nil,
	}
}

// regScale is a category's turnover relative to a small shop's.
func regScale(cat string) float64 {
	switch cat {
	case "supermarche", "banque":
		return 20
	case "hotel", "pharmacie", "garage", "comptable", "notaire":
		return 4
	}
	return 1
}

// regLibelle is the commune's name as the register spells it: capitals
// without accents, an arrondissement numbered ("PARIS 15", "LYON 3EME",
// "MARSEILLE 8").
func regLibelle(p *gazetteer.Place, town string) string {
	name := strings.ToUpper(gazetteer.Normalize(town))
	if p.Kind != gazetteer.District {
		return name
	}
	n, _ := strconv.Atoi(p.Code)
	switch {
	case n > 75100 && n <= 75120:
		return fmt.Sprintf("PARIS %d", n-75100)
	case n == 69381:
		return "LYON 1ER"
	case n > 69381 && n <= 69389:
		return fmt.Sprintf("LYON %dEME", n-69380)
	case n > 13200 && n <= 13216:
		return fmt.Sprintf("MARSEILLE %d", n-13200)
	}
	return name
}

// regCodes are the department and region codes of a commune.
func regCodes(g *gazetteer.Gazetteer, id gazetteer.ID) (dept, region string) {
	for id != gazetteer.None {
		p := g.Place(id)
		switch p.Kind {
		case gazetteer.Department:
			dept = p.Code
		case gazetteer.Region:
			region = p.Code
			return dept, region
		}
		id = p.Parent
	}
	return dept, region
}

// BODACC.

var (
	regWhereSIREN = regexp.MustCompile(`registre\s*(?:=|:)\s*"(\d{9})"`)
	regWhereSince = regexp.MustCompile(`dateparution\s*>=?\s*(?:date)?'(\d{4}-\d{2}-\d{2})'`)
)

// regAnnouncement is one announcement, as the dataset's record.
type regAnnouncement map[string]any

func (h *regAPI) bodacc(rw http.ResponseWriter, v url.Values, day int) {
	limit, offset := 10, 0
	if s := v.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < -1 || n > 100 {
			regJSON(rw, http.StatusBadRequest, map[string]string{"error_code": "InvalidRESTParameterError",
				"message": "Invalid value for limit API parameter: " + s + " was found but -1 <= limit <= 100 is expected."})
			return
		}
		limit = n
	}
	if s := v.Get("offset"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n+max(limit, 0) > 10000 {
			regJSON(rw, http.StatusBadRequest, map[string]string{"error_code": "InvalidRESTParameterError",
				"message": "Invalid value for offset API parameter: offset + limit must be at most 10000."})
			return
		}
		offset = n
	}
	where := v.Get("where")
	m := regWhereSIREN.FindStringSubmatch(where)
	if m == nil {
		regJSON(rw, http.StatusOK, map[string]any{"total_count": 0, "results": []any{}})
		return
	}
	since := ""
	if s := regWhereSince.FindStringSubmatch(where); s != nil {
		since = s[1]
	}
	recs := regAnnouncements(h.v, m[1], day)
	var keep []regAnnouncement
	for _, a := range recs {
		if a["dateparution"].(string) >= since {
			keep = append(keep, a)
		}
	}
	if !strings.Contains(v.Get("order_by"), "desc") {
		slices.Reverse(keep)
	}
	total := len(keep)
	lo := min(offset, total)
	hi := total
	if limit >= 0 {
		hi = min(lo+limit, total)
	}
	page := keep[lo:hi]
	if sel := v.Get("select"); sel != "" {
		fields := strings.Split(sel, ",")
		for i, a := range page {
			b := regAnnouncement{}
			for _, f := range fields {
				if val, ok := a[strings.TrimSpace(f)]; ok {
					b[strings.TrimSpace(f)] = val
				}
			}
			page[i] = b
		}
	}
	if page == nil {
		page = []regAnnouncement{}
	}
	regJSON(rw, http.StatusOK, map[string]any{"total_count": total, "results": page})
}

// regAnnouncements are a SIREN's announcements up to day, newest first.
func regAnnouncements(v sim.View, siren string, day int) []regAnnouncement {
	k := v.Seed().Str("bodacc").Str(siren)
	spaced := siren[:3] + " " + siren[3:6] + " " + siren[6:]
	var out []regAnnouncement
	add := func(d int, pub, family, familyLib string, judgment map[string]string) {
		if d > day {
			return
		}
		date := v.Date(d)
		n := len(out) + 1
		a := regAnnouncement{
			"id":                      fmt.Sprintf("%s%d%08d", pub, date.Year(), k.Int(int64(d)).Uint64()%100_000_000),
			"publicationavis":         pub,
			"publicationavis_facette": "Bodacc " + pub,
			"parution":                fmt.Sprintf("%d%04d", date.Year(), date.YearDay()),
			"dateparution":            date.Format(time.DateOnly),
			"numeroannonce":           n,
			"typeavis":                "annonce",
			"typeavis_lib":            "Avis initial",
			"familleavis":             family,
			"familleavis_lib":         familyLib,
			"registre":                []string{spaced, siren},
			"jugement":                nil,
		}
		if judgment != nil {
			j, _ := json.Marshal(judgment)
			a["jugement"] = string(j)
		}
		out = append(out, a)
	}
	// Modifications: about one month in twenty, from two years before day 0.
	for m := -24; m*30 <= day; m++ {
		r := k.Str("modification").Int(int64(m)).Rand()
		if r.Chance(0.05) {
			add(m*30+r.Intn(30), "B", "modification", "Modifications diverses", nil)
		}
	}
	// Filings of accounts, each May, for a third of the companies.
	if k.Str("accounts").Float() < 1.0/3 {
		for y := v.Date(-730).Year(); y <= v.Date(day).Year(); y++ {
			d := int(time.Date(y, time.May, 20, 0, 0, 0, 0, time.UTC).Sub(v.Date(0)).Hours() / 24)
			add(d, "C", "dpc", "Dépôts des comptes", nil)
		}
	}
	// A collective proceeding for 4% of the companies.
	if r := k.Str("proceeding").Rand(); r.Chance(0.04) {
		start := r.Between(-730, 730)
		kind := r.Float()
		judg := func(nature string, d int) map[string]string {
			return map[string]string{"type": "initial", "famille": "Jugement d'ouverture", "nature": nature,
				"date": v.Date(d - 7).Format(time.DateOnly)}
		}
		switch {
		case kind < 0.15:
			add(start, "A", "collective", "Procédures collectives", judg("Jugement d'ouverture d'une procédure de sauvegarde", start))
		case kind < 0.50:
			add(start, "A", "collective", "Procédures collectives", judg("Jugement d'ouverture de liquidation judiciaire", start))
		default:
			add(start, "A", "collective", "Procédures collectives", judg("Jugement d'ouverture d'une procédure de redressement judiciaire", start))
			if r.Chance(1.0 / 3) {
				j := judg("Jugement de conversion en liquidation judiciaire", start+90)
				j["famille"] = "Jugement prononçant"
				add(start+90, "A", "collective", "Procédures collectives", j)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b regAnnouncement) int {
		return cmp.Compare(b["dateparution"].(string), a["dateparution"].(string))
	})
	return out
}
