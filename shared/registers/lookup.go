package registers

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// Query names a company: by identifier (SIRET, SIREN or French VAT
// number), or by name in a place (postcode, or commune). Lookup tries the
// identifiers first: a valid one that the register knows wins outright.
type Query struct {
	SIRET, SIREN, VAT string
	Name              string
	// Postcode restricts a name search; when empty it is read from
	// Address ("16 rue X, 69300 Caluire-et-Cuire").
	Postcode string
	Address  string
	// Commune is a commune's name (read from Address after the postcode
	// when empty), CommuneCode its INSEE code; either places a name
	// search that has no postcode.
	Commune, CommuneCode string
}

var postcodeRe = regexp.MustCompile(`\b(\d{5}|2[AB]\d{3})\b`)

// place fills Postcode and Commune from Address when they are missing.
func (q Query) place() Query {
	q.Postcode = strings.TrimSpace(q.Postcode)
	q.Commune = strings.TrimSpace(q.Commune)
	if q.Postcode == "" {
		if locs := postcodeRe.FindAllStringIndex(q.Address, -1); len(locs) > 0 {
			loc := locs[len(locs)-1]
			q.Postcode = q.Address[loc[0]:loc[1]]
			if q.Commune == "" {
				q.Commune = strings.TrimSpace(strings.Split(q.Address[loc[1]:], ",")[0])
			}
		}
	}
	if !postcodeRe.MatchString(q.Postcode) || len(q.Postcode) != 5 {
		q.Postcode = ""
	}
	return q
}

// Lookup finds the company a query names, then reads its BODACC summary.
// It returns ErrNotFound when no company matches, ErrBadQuery when the
// query gives neither a valid identifier nor a name with a place, an
// error wrapping ErrUnavailable when the search API failed after its
// retries. A BODACC failure does not fail the lookup: the company comes
// back with Bodacc nil and Incomplete ["bodacc"].
func (c *Client) Lookup(ctx context.Context, q Query) (Company, error) {
	q = q.place()
	a, est, m, err := c.find(ctx, q)
	if err != nil {
		return Company{}, err
	}
	co := companyOf(a)
	co.Match = m
	if est != nil && est.SIRET != a.Siege.SIRET {
		e := establishmentOf(a, est)
		co.Etablissement = &e
	}
	bod, err := c.Bodacc(ctx, co.SIREN)
	switch {
	case err == nil:
		co.Bodacc = bod
	case ctx.Err() != nil:
		return Company{}, ctx.Err()
	default:
		co.Incomplete = append(co.Incomplete, "bodacc")
	}
	co.LeadStatus = LeadStatus(&co, c.clock.Now())
	return co, nil
}

// find runs the query's searches in order: SIRET, SIREN (given, or read
// from the VAT number or the SIRET), name in the place.
func (c *Client) find(ctx context.Context, q Query) (*apiCompany, *apiEstablishment, Match, error) {
	siret := compactID(q.SIRET)
	if !ValidSIRET(siret) {
		siret = ""
	}
	siren, by := compactID(q.SIREN), MatchSIREN
	if !ValidSIREN(siren) {
		siren = ""
		if s, ok := SIRENFromVAT(q.VAT); ok {
			siren, by = s, MatchVAT
		} else if siret != "" {
			siren = siret[:9]
		}
	}
	name := strings.TrimSpace(q.Name)
	if siret == "" && siren == "" && (name == "" || q.Postcode == "" && q.Commune == "" && q.CommuneCode == "") {
		return nil, nil, Match{}, fmt.Errorf("%w: a valid SIRET, SIREN or VAT number, or a name with a postcode or commune, is needed", ErrBadQuery)
	}
	if siret != "" {
		a, est, err := c.byID(ctx, siret, q.Postcode)
		if err != nil || a != nil {
			return a, est, Match{By: MatchSIRET, Score: 1}, err
		}
	}
	if siren != "" {
		a, est, err := c.byID(ctx, siren, q.Postcode)
		if err != nil || a != nil {
			return a, est, Match{By: by, Score: 1}, err
		}
	}
	if name == "" {
		return nil, nil, Match{}, ErrNotFound
	}
	return c.byName(ctx, name, q)
}

// byID asks the search API for a SIREN or SIRET. The API searches an
// identifier directly and ignores every filter; the postcode is sent all
// the same, for the sim twin, which has no index of identifiers and finds
// a company by looking through the postcode's places.
func (c *Client) byID(ctx context.Context, id, postcode string) (*apiCompany, *apiEstablishment, error) {
	p := searchParams{q: id, perPage: 5}
	if postcode != "" {
		p.codePostal = []string{postcode}
	}
	r, err := c.searchPage(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	for i := range r.Results {
		a := &r.Results[i]
		if a.SIREN != id[:9] {
			continue
		}
		if len(id) == 9 {
			return a, &a.Siege, nil
		}
		if a.Siege.SIRET == id {
			return a, &a.Siege, nil
		}
		for j := range a.MatchingEtablissements {
			if e := &a.MatchingEtablissements[j]; e.SIRET == id {
				return a, e, nil
			}
		}
	}
	return nil, nil, nil
}

// byName searches the name in the query's place and keeps the company
// whose name matches, if one stands out (see match.go): the best active
// company when one scores at least MatchThreshold with MatchMargin over
// the next active one, else the best of all companies by the same rule
// (a listing may outlive its company: "cessé" is worth knowing). When
// namesakes tie within the margin, the one whose establishment is at the
// row's street address (same number, same street) wins, if only one is.
func (c *Client) byName(ctx context.Context, name string, q Query) (*apiCompany, *apiEstablishment, Match, error) {
	p, by, codes, err := c.nameParams(name, q)
	if err != nil {
		return nil, nil, Match{}, err
	}
	r, err := c.searchPage(ctx, p)
	if err != nil {
		var ae *APIError
		if errors.As(err, &ae) && ae.StatusCode == 400 {
			return nil, nil, Match{}, ErrNotFound // a name the API refuses matches nothing
		}
		return nil, nil, Match{}, err
	}
	all := nameCands(r, name, q, codes)
	pk := &namePicker{by: by, street: streetOf(q.Address)}
	var active []nameCand
	for _, x := range all {
		if x.active {
			active = append(active, x)
		}
	}
	if best, how, ok := pk.pick(active); ok {
		return best.a, best.est, Match{By: how, Score: round3(best.score)}, nil
	}
	if best, how, ok := pk.pick(all); ok {
		return best.a, best.est, Match{By: how, Score: round3(best.score)}, nil
	}
	if pk.ambiguous {
		return nil, nil, Match{}, ErrAmbiguous
	}
	return nil, nil, Match{}, ErrNotFound
}

// nameParams are the search of a name in the query's place: its postcode,
// else the codes of its commune (none is ErrNotFound). It also returns
// how a match of it is made and those commune codes.
func (c *Client) nameParams(name string, q Query) (searchParams, string, []string, error) {
	p := searchParams{q: truncate(name, 200), perPage: MaxPerPage}
	by := MatchNamePostcode
	var codes []string
	switch {
	case q.Postcode != "":
		p.codePostal = []string{q.Postcode}
	default:
		by = MatchNameCommune
		var err error
		if codes, err = c.communeCodes(q); err != nil {
			return p, by, nil, err
		}
		if len(codes) == 0 {
			return p, by, nil, ErrNotFound
		}
		p.codeCommune = codes
	}
	return p, by, codes, nil
}

// nameCand is a company a name search found, with its establishment in
// the query's place and its name's score.
type nameCand struct {
	a      *apiCompany
	est    *apiEstablishment
	score  float64
	active bool
}

// nameCands are the search's companies that have an establishment in the
// query's place (its postcode, else one of codes), scored against name.
func nameCands(r searchResponse, name string, q Query, codes []string) []nameCand {
	in := func(e *apiEstablishment) bool {
		if q.Postcode != "" {
			return e.CodePostal == q.Postcode
		}
		return slices.Contains(codes, e.Commune)
	}
	words := nameWords(name)
	var all []nameCand
	for i := range r.Results {
		a := &r.Results[i]
		est := placeEstablishment(a, in)
		if est == nil {
			continue // no establishment in the place: a homonym elsewhere
		}
		all = append(all, nameCand{a, est, companyScore(words, a), a.EtatAdministratif == "A"})
	}
	return all
}

// namePicker picks the company that stands out of a name search's
// candidates; ambiguous records that namesakes tied in a pick.
type namePicker struct {
	by        string  // how a match stood out by its score alone is made
	street    *street // the row's street address, nil when unknown
	ambiguous bool
}

// pick sorts cs by score and returns the best when it scores at least
// MatchThreshold with MatchMargin over the next, or, of the namesakes
// within the margin, the only one at the row's street address.
func (pk *namePicker) pick(cs []nameCand) (nameCand, string, bool) {
	slices.SortStableFunc(cs, func(x, y nameCand) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return 0
	})
	if len(cs) == 0 || cs[0].score < MatchThreshold {
		return nameCand{}, "", false
	}
	// The companies within the margin of the best: one alone wins; of
	// several namesakes, the one at the row's street address.
	var rivals []nameCand
	for _, o := range cs {
		if cs[0].score-o.score < MatchMargin && !slices.ContainsFunc(rivals, func(r nameCand) bool { return r.a.SIREN == o.a.SIREN }) {
			rivals = append(rivals, o)
		}
	}
	if len(rivals) == 1 {
		return cs[0], pk.by, true
	}
	var at []nameCand
	for _, r := range rivals {
		if pk.street != nil && sameStreet(pk.street, r.est.Adresse) {
			at = append(at, r)
		}
	}
	if len(at) == 1 {
		return at[0], MatchNameAddress, true
	}
	pk.ambiguous = true
	return nameCand{}, "", false
}

// placeEstablishment is the company's establishment in the place: the
// siège when it is there, else an open matching establishment there, else
// any there; nil when none is.
func placeEstablishment(a *apiCompany, in func(*apiEstablishment) bool) *apiEstablishment {
	if in(&a.Siege) {
		return &a.Siege
	}
	var closed *apiEstablishment
	for i := range a.MatchingEtablissements {
		e := &a.MatchingEtablissements[i]
		if !in(e) {
			continue
		}
		if e.EtatAdministratif != "F" {
			return e
		}
		if closed == nil {
			closed = e
		}
	}
	return closed
}

// communeCodes are the INSEE codes of the query's commune: its
// CommuneCode, or the communes the gazetteer finds by that name (the
// arrondissements of Paris, Lyon and Marseille, which the registers
// file establishments under). Without a gazetteer a name places nothing.
func (c *Client) communeCodes(q Query) ([]string, error) {
	if code := strings.TrimSpace(q.CommuneCode); code != "" {
		return []string{strings.ToUpper(code)}, nil
	}
	if c.gaz == nil || q.Commune == "" {
		return nil, nil
	}
	g, err := c.gaz()
	if err != nil {
		return nil, err
	}
	var codes []string
	for _, id := range g.Lookup("FRA", q.Commune) {
		p := g.Place(id)
		switch p.Kind {
		case gazetteer.City:
			districts := false
			for _, k := range g.Children(id) {
				if g.Place(k).Kind == gazetteer.District {
					codes, districts = append(codes, g.Place(k).Code), true
				}
			}
			if !districts {
				codes = append(codes, p.Code)
			}
		case gazetteer.District:
			codes = append(codes, p.Code)
		}
		if len(codes) >= maxValuesList {
			break
		}
	}
	return codes[:min(len(codes), maxValuesList)], nil
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func round3(x float64) float64 { return float64(int(x*1000+0.5)) / 1000 }
