package registers

import (
	"strconv"
	"strings"
)

// LegalDataColumns are the cells a company found in the registers fills
// (LegalDataValues), in order: the legal_data enrichment module's Produces
// columns (enrich.LegalDataModule). siren comes first: it names the
// company the other cells describe, and it is what /api/company/{siren}
// takes. It shares legal_ids' column (same data: the register's value
// fills that cell in place).
var LegalDataColumns = []string{"siren", "forme_juridique", "capital_social", "effectif_tranche", "code_naf", "date_creation",
	"dirigeants", "ca", "resultat_net", "labels_qualite", "lead_status", "bodacc_procedure_collective", "bodacc_modifs_12m"}

// maxOfficers bounds the dirigeants cell.
const maxOfficers = 10

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
