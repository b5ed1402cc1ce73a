package registers

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Company is what the registers say of a company: the body of
// /api/company/... and the source of legal_data's columns. Strings are ""
// where the registers say nothing.
type Company struct {
	SIREN      string `json:"siren"`
	SIRETSiege string `json:"siret_siege"`
	// Nom is the company's name as the register spells it (nom_complet:
	// the denomination, or a sole trader's first and last names).
	Nom       string   `json:"nom"`
	Enseignes []string `json:"enseignes,omitempty"`
	// NatureJuridique is INSEE's catégorie juridique (four digits),
	// FormeJuridique its short form ("SARL"), FormeJuridiqueLibelle its
	// label.
	NatureJuridique       string `json:"nature_juridique"`
	FormeJuridique        string `json:"forme_juridique"`
	FormeJuridiqueLibelle string `json:"forme_juridique_libelle"`
	// CapitalSocial is always "": neither source publishes the share
	// capital (docs/registers.md).
	CapitalSocial string `json:"capital_social"`
	NAF           string `json:"naf"`
	NAFLibelle    string `json:"naf_libelle"`
	// TrancheEffectif is INSEE's headcount band code ("02"), Effectif its
	// label ("3 à 5 salariés"), AnneeEffectif the year it holds for.
	TrancheEffectif     string `json:"tranche_effectif"`
	Effectif            string `json:"effectif"`
	AnneeEffectif       string `json:"annee_effectif,omitempty"`
	CategorieEntreprise string `json:"categorie_entreprise,omitempty"`
	DateCreation        string `json:"date_creation"`
	DateFermeture       string `json:"date_fermeture,omitempty"`
	// Etat is "actif" or "cessé" (etat_administratif A or C).
	Etat  string  `json:"etat"`
	Siege Address `json:"siege"`
	// Etablissement is the establishment the query named or matched
	// (its SIRET, or the one in the query's postcode), when not the siège.
	Etablissement  *Establishment `json:"etablissement,omitempty"`
	Etablissements int            `json:"nombre_etablissements"`
	// EtablissementsOuverts counts the open ones.
	EtablissementsOuverts int       `json:"nombre_etablissements_ouverts"`
	Dirigeants            []Officer `json:"dirigeants"`
	// Finances are the published accounts, the latest year first.
	Finances []Finance `json:"finances"`
	// Labels are the quality labels and registrations: RGE, Qualiopi,
	// Bio, ESS, Société à mission...
	Labels []string `json:"labels"`
	// TVA is the VAT number the register lists (DGFiP), "" when it lists
	// none.
	TVA string `json:"tva,omitempty"`
	// Bodacc summarises the last 12 months of BODACC announcements; nil
	// when BODACC could not be read (Incomplete then says "bodacc").
	Bodacc *BodaccSummary `json:"bodacc"`
	// LeadStatus is actif, récent, procédure collective or cessé
	// (LeadStatus).
	LeadStatus string   `json:"lead_status"`
	Match      Match    `json:"match"`
	Incomplete []string `json:"incomplete,omitempty"`
}

// Address is a postal address of the register.
type Address struct {
	Adresse    string `json:"adresse"`
	CodePostal string `json:"code_postal"`
	Commune    string `json:"commune"`
	// CodeCommune is the INSEE code of the commune (an arrondissement's
	// in Paris, Lyon and Marseille).
	CodeCommune string `json:"code_commune"`
}

// Officer is a dirigeant: a person or a company, and its role.
type Officer struct {
	Nom  string `json:"nom"`
	Role string `json:"role"`
}

// Finance is one year's published accounts; a nil figure is one the
// filing did not make public.
type Finance struct {
	Annee       int    `json:"annee"`
	CA          *int64 `json:"ca"`
	ResultatNet *int64 `json:"resultat_net"`
}

// Match says how a Lookup found the company.
type Match struct {
	// By is siret, siren, vat, name_postcode, name_commune or
	// name_address.
	By string `json:"by"`
	// Score is the name similarity of a name match (1 for identifiers).
	Score float64 `json:"score"`
}

// The kinds of Match.By.
const (
	MatchSIRET        = "siret"
	MatchSIREN        = "siren"
	MatchVAT          = "vat"
	MatchNamePostcode = "name_postcode"
	MatchNameCommune  = "name_commune"
	// MatchNameAddress: namesakes in the place, told apart by the street
	// address.
	MatchNameAddress = "name_address"
)

// companyOf builds a Company from an API result (without BODACC, lead
// status or match).
func companyOf(a *apiCompany) Company {
	f := LegalFormOf(a.NatureJuridique)
	c := Company{
		SIREN:                 a.SIREN,
		SIRETSiege:            a.Siege.SIRET,
		Nom:                   strings.TrimSpace(a.NomComplet),
		NatureJuridique:       a.NatureJuridique,
		FormeJuridique:        f.Short,
		FormeJuridiqueLibelle: f.Label,
		NAF:                   a.ActivitePrincipale,
		NAFLibelle:            NAFLabel(a.ActivitePrincipale),
		TrancheEffectif:       a.TrancheEffectifSalarie,
		Effectif:              TrancheLabel(a.TrancheEffectifSalarie),
		AnneeEffectif:         a.AnneeTrancheEffectif,
		CategorieEntreprise:   a.CategorieEntreprise,
		DateCreation:          a.DateCreation,
		DateFermeture:         a.DateFermeture,
		Etat:                  etatOf(a.EtatAdministratif),
		Siege:                 addressOf(&a.Siege),
		Etablissements:        a.NombreEtablissements,
		EtablissementsOuverts: a.NombreEtablissementsOuverts,
		Dirigeants:            officersOf(a.Dirigeants),
		Finances:              financesOf(a.Finances),
		Labels:                labelsOf(a.Complements),
	}
	if c.Nom == "" {
		c.Nom = a.NomRaisonSociale
	}
	for _, e := range append(slices.Clone(a.Siege.ListeEnseignes), a.Siege.NomCommercial) {
		if e = strings.TrimSpace(e); e != "" && !slices.Contains(c.Enseignes, e) {
			c.Enseignes = append(c.Enseignes, e)
		}
	}
	for _, v := range a.TVA {
		if _, ok := SIRENFromVAT(v); ok {
			c.TVA = compactID(v)
			break
		}
	}
	return c
}

func etatOf(code string) string {
	switch strings.ToUpper(strings.TrimSpace(code)) {
	case "A":
		return "actif"
	case "C", "F":
		return "cessé"
	}
	return ""
}

func addressOf(e *apiEstablishment) Address {
	return Address{Adresse: strings.TrimSpace(e.Adresse), CodePostal: e.CodePostal, Commune: e.LibelleCommune, CodeCommune: e.Commune}
}

// officersOf lists the dirigeants: "Prénoms NOM" for a person, the
// denomination for a company.
func officersOf(ds []apiOfficer) []Officer {
	out := make([]Officer, 0, len(ds))
	for _, d := range ds {
		name := strings.TrimSpace(d.Denomination)
		if d.Nom != "" || d.Prenoms != "" {
			name = strings.TrimSpace(strings.Join(strings.Fields(d.Prenoms+" "+d.Nom), " "))
		}
		if name == "" {
			continue
		}
		out = append(out, Officer{Nom: name, Role: strings.TrimSpace(d.Qualite)})
	}
	return out
}

// financesOf lists the accounts by year, the latest first; keys that are
// not years are skipped.
func financesOf(m map[string]apiFinance) []Finance {
	out := make([]Finance, 0, len(m))
	for y, f := range m {
		year, err := strconv.Atoi(strings.TrimSpace(y))
		if err != nil || year < 1900 || year > 3000 {
			continue
		}
		out = append(out, Finance{Annee: year, CA: f.CA, ResultatNet: f.ResultatNet})
	}
	slices.SortFunc(out, func(a, b Finance) int { return b.Annee - a.Annee })
	return out
}

// labelsOf names the quality labels and registrations the API joins in.
func labelsOf(c apiComplements) []string {
	out := []string{}
	for _, l := range []struct {
		on   bool
		name string
	}{
		{c.EstRGE, "RGE"},
		{c.EstQualiopi, "Qualiopi"},
		{c.EstBio, "Bio"},
		{c.EstESS, "ESS"},
		{c.EstSocieteMission, "Société à mission"},
		{c.EstPatrimoineVivant, "Entreprise du patrimoine vivant"},
		{c.EstSIAE, "SIAE"},
		{c.EstAchatsResponsables, "Relations fournisseurs et achats responsables"},
		{c.EstEntrepreneurSpectacle, "Entrepreneur de spectacles"},
	} {
		if l.on {
			out = append(out, l.name)
		}
	}
	return out
}

// The values of LeadStatus.
const (
	StatusActif      = "actif"
	StatusRecent     = "récent"
	StatusProcedure  = "procédure collective"
	StatusCesse      = "cessé"
	recentWithinDays = 365
)

// LeadStatus derives a prospect's status from the company and its BODACC
// summary, the first that holds: cessé (the register says the company
// ceased), procédure collective (BODACC announced one in the last 12
// months), récent (created less than a year before now), actif. It is
// "" when the register gives no state.
func LeadStatus(c *Company, now time.Time) string {
	switch {
	case c.Etat == "cessé":
		return StatusCesse
	case c.Bodacc != nil && c.Bodacc.ProcedureCollective != "":
		return StatusProcedure
	case c.Etat == "":
		return ""
	}
	if d, err := time.Parse(time.DateOnly, c.DateCreation); err == nil && now.Sub(d) < recentWithinDays*24*time.Hour {
		return StatusRecent
	}
	return StatusActif
}
