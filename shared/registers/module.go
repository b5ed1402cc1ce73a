package registers

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/enrich"
)

// LegalDataColumns are legal_data's Produces columns, in order. siren
// comes first: it names the company the other cells describe, and it is
// what /api/company/{siren} takes. It shares legal_ids' column (same
// data: the register's value fills that cell in place).
var LegalDataColumns = []string{"siren", "forme_juridique", "capital_social", "effectif_tranche", "code_naf", "date_creation",
	"dirigeants", "ca", "resultat_net", "labels_qualite", "lead_status", "bodacc_procedure_collective", "bodacc_modifs_12m"}

// maxOfficers bounds the dirigeants cell.
const maxOfficers = 10

// LegalDataModule is the legal_data enrichment module over c. source is
// what jobs record as the module's source (enrich.Sourced): the registers'
// names, or "sim" when c reads the simulated twin.
func LegalDataModule(c *Client, source string) enrich.Module {
	return &legalData{c: c, source: source}
}

type legalData struct {
	c      *Client
	source string
}

var _ enrich.Sourced = (*legalData)(nil)

func (m *legalData) Slug() string      { return "legal_data" }
func (m *legalData) Columns() []string { return LegalDataColumns }
func (m *legalData) Source() string    { return m.source }

// Reads is nom (the spec's Needs), then the identifiers and places that
// make a lookup surer: a SIRET or SIREN (legal_ids' columns), a VAT number
// (legal_mentions' tva_intracom), the address, postcode and commune.
func (m *legalData) Reads() []string {
	return []string{"nom", "siret", "siren", "adresse", "code_postal", "commune", "tva_intracom"}
}

// Run looks the row's company up. No match is empty cells (not an
// error); a register that fails after its retries makes the row
// Unreachable (with the company's cells filled when only BODACC failed).
func (m *legalData) Run(ctx context.Context, _ *enrich.Env, in enrich.Input) (enrich.Result, error) {
	co, err := m.c.Lookup(ctx, Query{
		Name: in["nom"], SIRET: in["siret"], SIREN: in["siren"], VAT: in["tva_intracom"],
		Address: in["adresse"], Postcode: in["code_postal"], Commune: in["commune"],
	})
	switch {
	case err == nil:
		return enrich.Result{Values: LegalDataValues(&co), Found: true, Unreachable: len(co.Incomplete) > 0}, nil
	case ctx.Err() != nil:
		return enrich.Result{}, ctx.Err()
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrBadQuery):
		return enrich.Result{Values: make([]string, len(LegalDataColumns))}, nil
	}
	var ae *APIError
	if errors.As(err, &ae) && ae.StatusCode == 400 {
		return enrich.Result{Values: make([]string, len(LegalDataColumns))}, nil
	}
	return enrich.Result{Values: make([]string, len(LegalDataColumns)), Unreachable: true}, nil
}

// LegalDataValues are a company's legal_data cells.
func LegalDataValues(co *Company) []string {
	var officers []string
	for _, o := range co.Dirigeants[:min(len(co.Dirigeants), maxOfficers)] {
		s := o.Nom
		if o.Role != "" {
			s += " (" + o.Role + ")"
		}
		officers = append(officers, s)
	}
	ca, rn := "", ""
	for _, f := range co.Finances { // latest first
		if f.CA == nil && f.ResultatNet == nil {
			continue
		}
		if f.CA != nil {
			ca = strconv.FormatInt(*f.CA, 10)
		}
		if f.ResultatNet != nil {
			rn = strconv.FormatInt(*f.ResultatNet, 10)
		}
		break
	}
	modifs := ""
	if co.Bodacc != nil {
		modifs = strconv.Itoa(co.Bodacc.Modifications)
	}
	return []string{
		co.SIREN,
		co.FormeJuridique,
		co.CapitalSocial,
		co.Effectif,
		co.NAF,
		co.DateCreation,
		strings.Join(officers, "; "),
		ca,
		rn,
		strings.Join(co.Labels, ", "),
		co.LeadStatus,
		co.Bodacc.ProcedureCell(),
		modifs,
	}
}
