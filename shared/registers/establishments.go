package registers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// The sirene source: the establishments of given activities in French
// zones, read from the search API's activity search (no q, activite_principale
// and zone filters, etat_administratif=A), 25 companies a page, each with
// up to 100 of its establishments that lie in the zone
// (matching_etablissements).

// EstablishmentColumns are the sirene node's Produces columns, in order.
var EstablishmentColumns = []string{"nom", "adresse", "code_postal", "commune", "siret", "siren", "naf", "naf_libelle",
	"tranche_effectif", "date_creation", "is_siege"}

// Stop limits of the sirene node (the spec's stop_at: default 5000,
// ceiling 50000).
const (
	DefaultStopAt = 5000
	MaxStopAt     = 50000
)

// Establishment is one establishment the sirene source yields.
type Establishment struct {
	// Nom is the establishment's enseigne, else its nom commercial, else
	// its company's name.
	Nom        string `json:"nom"`
	Adresse    string `json:"adresse"`
	CodePostal string `json:"code_postal"`
	Commune    string `json:"commune"`
	SIRET      string `json:"siret"`
	SIREN      string `json:"siren"`
	NAF        string `json:"naf"`
	NAFLibelle string `json:"naf_libelle"`
	// TrancheEffectif is the establishment's headcount band, decoded
	// ("3 à 5 salariés").
	TrancheEffectif string `json:"tranche_effectif"`
	DateCreation    string `json:"date_creation"`
	IsSiege         bool   `json:"is_siege"`
}

// Values are the cells of EstablishmentColumns.
func (e Establishment) Values() []string {
	return []string{e.Nom, e.Adresse, e.CodePostal, e.Commune, e.SIRET, e.SIREN, e.NAF, e.NAFLibelle,
		e.TrancheEffectif, e.DateCreation, strconv.FormatBool(e.IsSiege)}
}

// establishmentOf builds the row of one establishment of a company.
func establishmentOf(a *apiCompany, e *apiEstablishment) Establishment {
	nom := ""
	for _, n := range append(slices.Clone(e.ListeEnseignes), e.NomCommercial, a.NomComplet, a.NomRaisonSociale) {
		if n = strings.TrimSpace(n); n != "" {
			nom = n
			break
		}
	}
	naf := e.ActivitePrincipale
	if naf == "" {
		naf = a.ActivitePrincipale
	}
	return Establishment{
		Nom: nom, Adresse: strings.TrimSpace(e.Adresse), CodePostal: e.CodePostal, Commune: e.LibelleCommune,
		SIRET: e.SIRET, SIREN: a.SIREN, NAF: naf, NAFLibelle: NAFLabel(naf),
		TrancheEffectif: TrancheLabel(e.TrancheEffectifSalarie), DateCreation: e.DateCreation, IsSiege: e.EstSiege,
	}
}

// Zones are the places a search covers, as INSEE codes: regions ("84"),
// departments ("69", "2A", "974"), communes ("69383": an arrondissement's
// code in Paris, Lyon and Marseille; a city's code is split into them) and
// postcodes ("69003"). An establishment in any of them counts.
type Zones struct {
	Regions, Departements, Communes, Postcodes []string
}

// Filter is a sirene search.
type Filter struct {
	// Activites are NAF codes or trade names (ResolveActivity).
	Activites []string
	Zones     Zones
	// SiegesOnly keeps head offices only (etablissements = sieges).
	SiegesOnly bool
	// CreeApres keeps the establishments created on that day or later
	// (zero: no filter).
	CreeApres time.Time
	// EffectifMin keeps the establishments whose headcount band is that
	// INSEE code or a larger one ("" no filter; "NN" is the smallest).
	EffectifMin string
	// StopAt is the most establishments yielded: DefaultStopAt when 0,
	// at most MaxStopAt.
	StopAt int
	// Warn, optional, hears what the search could not cover (a zone whose
	// answer passes MaxResults and cannot be split further).
	Warn func(msg string)
}

// errStop ends a search that yielded StopAt establishments.
var errStop = errors.New("registers: stop_at reached")

// unit is one query of a search: one kind of zone, some codes of it.
type unit struct {
	kind  string // region, departement, commune, postcode
	codes []string
	naf   []string
}

func (u unit) params(f *Filter, page int) searchParams {
	p := searchParams{activite: u.naf, etat: "A", page: page, perPage: MaxPerPage, matching: MaxMatching}
	switch u.kind {
	case "region":
		p.region = u.codes
	case "departement":
		p.departement = u.codes
	case "commune":
		p.codeCommune = u.codes
	case "postcode":
		p.codePostal = u.codes
	}
	if f.EffectifMin != "" && trancheRank(f.EffectifMin) > 0 {
		p.tranche = tranchesFrom(f.EffectifMin)
	}
	return p
}

// Establishments yields, one by one, the open establishments of the
// filter's activities in its zones, each once, until StopAt or the end.
// fn's error ends the search and is returned. A zone whose answer passes
// the API's MaxResults is split: several activities into one query each,
// a region into its departments, a department into its communes (with the
// gazetteer), a list of communes or postcodes into halves; a single
// commune or postcode still too large is read to its first MaxResults
// companies and Warn is told.
func (c *Client) Establishments(ctx context.Context, f Filter, fn func(Establishment) error) error {
	var naf []string
	for _, a := range f.Activites {
		codes, err := ResolveActivity(a)
		if err != nil {
			return err
		}
		for _, code := range codes {
			if !slices.Contains(naf, code) {
				naf = append(naf, code)
			}
		}
	}
	if len(naf) == 0 {
		return fmt.Errorf("%w: no activity", ErrBadQuery)
	}
	if f.EffectifMin != "" && !ValidTranche(f.EffectifMin) {
		return fmt.Errorf("%w: effectif_min %q is not an INSEE tranche code", ErrBadQuery, f.EffectifMin)
	}
	if f.StopAt <= 0 {
		f.StopAt = DefaultStopAt
	}
	f.StopAt = min(f.StopAt, MaxStopAt)
	var units []unit
	for _, z := range []struct {
		kind  string
		codes []string
	}{{"region", f.Zones.Regions}, {"departement", f.Zones.Departements}, {"commune", f.Zones.Communes}, {"postcode", f.Zones.Postcodes}} {
		codes := cleanCodes(z.codes)
		if z.kind == "commune" {
			var err error
			if codes, err = c.expandCities(codes); err != nil {
				return err
			}
		}
		for _, ch := range chunks(codes, maxValuesList) {
			units = append(units, unit{kind: z.kind, codes: ch, naf: naf})
		}
	}
	if len(units) == 0 {
		return fmt.Errorf("%w: no zone", ErrBadQuery)
	}
	s := &run{c: c, f: &f, fn: fn, seen: map[string]bool{}}
	for _, u := range units {
		if err := s.unit(ctx, u); err != nil {
			if errors.Is(err, errStop) {
				return nil
			}
			return err
		}
	}
	return nil
}

func cleanCodes(vs []string) []string {
	var out []string
	for _, v := range vs {
		if v = strings.ToUpper(strings.TrimSpace(v)); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// run is one Establishments call's state.
type run struct {
	c    *Client
	f    *Filter
	fn   func(Establishment) error
	seen map[string]bool
	n    int
}

// unit reads one query, or splits it when its answer is too large.
func (s *run) unit(ctx context.Context, u unit) error {
	r, err := s.c.searchPage(ctx, u.params(s.f, 1))
	if err != nil {
		return err
	}
	if r.TotalResults > MaxResults {
		subs, err := s.c.split(u)
		if err != nil {
			return err
		}
		if len(subs) > 0 {
			for _, sub := range subs {
				if err := s.unit(ctx, sub); err != nil {
					return err
				}
			}
			return nil
		}
		if s.f.Warn != nil {
			s.f.Warn(fmt.Sprintf("%d companies of %s in %s %s: only the first %d can be read",
				r.TotalResults, strings.Join(u.naf, ","), u.kind, strings.Join(u.codes, ","), MaxResults))
		}
	}
	pages := min(r.TotalPages, MaxResults/MaxPerPage)
	for page := 1; ; page++ {
		if err := s.emit(u, &r); err != nil {
			return err
		}
		if page >= pages || len(r.Results) == 0 {
			return nil
		}
		if r, err = s.c.searchPage(ctx, u.params(s.f, page+1)); err != nil {
			return err
		}
	}
}

// emit yields the page's establishments that pass the filter.
func (s *run) emit(u unit, r *searchResponse) error {
	for i := range r.Results {
		a := &r.Results[i]
		ests := a.MatchingEtablissements
		if len(ests) == 0 {
			ests = []apiEstablishment{a.Siege}
		}
		for j := range ests {
			e := &ests[j]
			if e.SIRET == "" || s.seen[e.SIRET] || !s.keep(u, e) {
				continue
			}
			s.seen[e.SIRET] = true
			if err := s.fn(establishmentOf(a, e)); err != nil {
				return err
			}
			if s.n++; s.n >= s.f.StopAt {
				return errStop
			}
		}
	}
	return nil
}

// keep tells whether an establishment passes the filter: open, in the
// unit's zone (the API filters, this checks), a head office when asked,
// created on CreeApres or later, in EffectifMin's band or above.
func (s *run) keep(u unit, e *apiEstablishment) bool {
	if e.EtatAdministratif != "" && e.EtatAdministratif != "A" {
		return false
	}
	if s.f.SiegesOnly && !e.EstSiege {
		return false
	}
	if !s.f.CreeApres.IsZero() && (e.DateCreation == "" || e.DateCreation < s.f.CreeApres.Format(time.DateOnly)) {
		return false
	}
	if m := trancheRank(s.f.EffectifMin); m > 0 && trancheRank(e.TrancheEffectifSalarie) < m {
		return false
	}
	var v string
	switch u.kind {
	case "region":
		v = e.Region
	case "departement":
		v = departementOf(e.Commune)
	case "commune":
		v = e.Commune
	case "postcode":
		v = e.CodePostal
	}
	return v == "" || slices.Contains(u.codes, strings.ToUpper(v))
}

// departementOf is the department of a commune's INSEE code: its first
// two characters, three overseas (971...).
func departementOf(commune string) string {
	switch {
	case len(commune) < 5:
		return ""
	case strings.HasPrefix(commune, "97"), strings.HasPrefix(commune, "98"):
		return commune[:3]
	}
	return commune[:2]
}

// split cuts a unit whose answer is too large; nil when it cannot be.
func (c *Client) split(u unit) ([]unit, error) {
	if len(u.naf) > 1 {
		out := make([]unit, 0, len(u.naf))
		for _, code := range u.naf {
			out = append(out, unit{kind: u.kind, codes: u.codes, naf: []string{code}})
		}
		return out, nil
	}
	if len(u.codes) > 1 {
		if u.kind == "region" || u.kind == "departement" {
			out := make([]unit, 0, len(u.codes))
			for _, code := range u.codes {
				out = append(out, unit{kind: u.kind, codes: []string{code}, naf: u.naf})
			}
			return out, nil
		}
		h := len(u.codes) / 2
		return []unit{{u.kind, u.codes[:h], u.naf}, {u.kind, u.codes[h:], u.naf}}, nil
	}
	if c.gaz == nil || (u.kind != "region" && u.kind != "departement") {
		return nil, nil
	}
	g, err := c.gaz()
	if err != nil {
		return nil, err
	}
	var sub []string
	kind := "departement"
	if u.kind == "region" {
		if id, ok := g.ByCode("FRA", gazetteer.Region, u.codes[0]); ok {
			for _, k := range g.Children(id) {
				if p := g.Place(k); p.Kind == gazetteer.Department {
					sub = append(sub, p.Code)
				}
			}
		}
	} else {
		kind = "commune"
		if id, ok := g.ByCode("FRA", gazetteer.Department, u.codes[0]); ok {
			sub = communesOf(g, id)
		}
	}
	if len(sub) == 0 {
		return nil, nil
	}
	slices.Sort(sub)
	var out []unit
	if kind == "departement" {
		for _, code := range sub {
			out = append(out, unit{kind: kind, codes: []string{code}, naf: u.naf})
		}
		return out, nil
	}
	for _, ch := range chunks(sub, maxValuesList) {
		out = append(out, unit{kind: kind, codes: ch, naf: u.naf})
	}
	return out, nil
}

// expandCities replaces the code of a city with arrondissements (Paris
// 75056, Lyon 69123, Marseille 13055) by theirs, under which the
// registers file its establishments. Without a gazetteer codes are kept.
func (c *Client) expandCities(codes []string) ([]string, error) {
	if c.gaz == nil {
		return codes, nil
	}
	g, err := c.gaz()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, code := range codes {
		id, ok := g.ByCode("FRA", gazetteer.City, code)
		if !ok {
			out = append(out, code)
			continue
		}
		n := len(out)
		for _, d := range g.Children(id) {
			if dp := g.Place(d); dp.Kind == gazetteer.District {
				out = append(out, dp.Code)
			}
		}
		if len(out) == n {
			out = append(out, code)
		}
	}
	return out, nil
}

// communesOf are the commune codes of a department as the registers file
// establishments: a city with arrondissements by its arrondissements.
func communesOf(g *gazetteer.Gazetteer, dept gazetteer.ID) []string {
	var out []string
	for _, k := range g.Children(dept) {
		p := g.Place(k)
		if p.Kind != gazetteer.City {
			continue
		}
		districts := false
		for _, d := range g.Children(k) {
			if dp := g.Place(d); dp.Kind == gazetteer.District {
				out, districts = append(out, dp.Code), true
			}
		}
		if !districts {
			out = append(out, p.Code)
		}
	}
	return out
}
