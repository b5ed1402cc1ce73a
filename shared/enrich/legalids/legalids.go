// Package legalids finds a business's SIRET and SIREN on its website (the
// `legal_ids` enrichment, spec "Node types": siret, siren,
// siret_source_url).
//
// A number counts only when it passes the registry's check (luhn.go) and
// reads like an identifier: written after a label (SIRET, SIREN, RCS, TVA),
// declared in JSON-LD, or grouped the way identifiers are written (9 or 14
// digits, 3-3-3 or 3-3-3-5). Numbers next to an order, invoice, IBAN, phone
// or capital label, or followed by a currency, are not identifiers; numbers
// given for the site's host or web agency (a "Hébergeur" or "Réalisation"
// section) are not the business's.
package legalids

import (
	"github.com/prospectdata/svc/shared/crawl"
)

// Columns are the columns the module produces, in output order.
var Columns = []string{"siret", "siren", "siret_source_url"}

// Result is what Find found: SIRET (14 digits) and SIREN (9 digits) as bare
// digits, SourceURL the page they came from; "" when not found.
type Result struct {
	SIRET     string
	SIREN     string
	SourceURL string
}

// Values returns the result in Columns order.
func (r Result) Values() []string {
	return []string{r.SIRET, r.SIREN, r.SourceURL}
}

// Find returns the business's identifiers found over its fetched pages. A
// SIRET gives the SIREN (its first nine digits); a SIREN alone (an RCS
// number, a VAT number) leaves the SIRET empty. When several numbers appear,
// the best scored wins (score.go), ties to the first page given.
func Find(pages []*crawl.Page) Result {
	var all []candidate
	for _, p := range pages {
		if p == nil || len(p.Body) == 0 {
			continue
		}
		cs := pageCandidates(p)
		all = append(all, cs...)
	}
	return choose(all)
}
