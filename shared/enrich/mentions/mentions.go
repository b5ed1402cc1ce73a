// Package mentions reads a site's legal notice ("mentions légales") into
// the `legal_mentions` columns (spec "Node types": raison_sociale,
// forme_juridique, capital_social, rcs, adresse_postale, dirigeant,
// tva_intracom).
//
// Output formats:
//
//	raison_sociale   the name as written, without its legal form
//	                 ("SARL Boulangerie Martin" gives "Boulangerie Martin")
//	forme_juridique  a short form: SARL, SAS, SASU, EURL, SA, SCI, SNC, SCOP,
//	                 SCP, SELARL, SELAS, SELAFA, EIRL, EI (entreprise
//	                 individuelle, auto- and micro-entrepreneur), Association
//	capital_social   the amount in digits and the currency code, "5000 EUR";
//	                 cents only when not zero, "1500.50 EUR"
//	rcs              "RCS <city> <SIREN>", "RCS Lyon 812345678"; the city or
//	                 the number alone when the other is not given
//	adresse_postale  the publisher's address on one line, its lines joined
//	                 with ", ", ending with the postcode and city
//	dirigeant        the manager's name without civility; the publication
//	                 director when no manager is named
//	tva_intracom     "FR" and 11 characters, no spaces
//
// The host's and the web agency's details, which every French legal notice
// must also give, are never taken for the publisher's (sections.go).
package mentions

import (
	"github.com/prospectdata/svc/shared/crawl"
)

// Columns are the columns the module produces, in output order.
var Columns = []string{
	"raison_sociale",
	"forme_juridique",
	"capital_social",
	"rcs",
	"adresse_postale",
	"dirigeant",
	"tva_intracom",
}

// Result is what a legal notice says of its publisher; "" when not said.
type Result struct {
	RaisonSociale  string
	FormeJuridique string
	CapitalSocial  string
	RCS            string
	AdressePostale string
	Dirigeant      string
	TVAIntracom    string
}

// Values returns the result in Columns order.
func (r Result) Values() []string {
	return []string{r.RaisonSociale, r.FormeJuridique, r.CapitalSocial, r.RCS, r.AdressePostale, r.Dirigeant, r.TVAIntracom}
}

// Parse reads the legal-notice page p. Any page may be given; one that says
// nothing of its publisher gives an empty Result.
func Parse(p *crawl.Page) Result {
	if p == nil || len(p.Body) == 0 {
		return Result{}
	}
	var lines []line
	for _, n := range p.Doc().Nodes {
		lines = append(lines, docLines(n)...)
	}
	return extract(publisherLines(lines))
}
