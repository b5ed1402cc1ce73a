package registers

import (
	"context"
	"net/url"
	"strconv"
	"strings"
)

// Limits of the API Recherche d'entreprises (its OpenAPI description and
// parameter checks): a page holds at most 25 companies, page × per_page
// may not pass 10,000 (so a query reaches its first 10,000 results and no
// more), and each company lists at most 100 of its establishments that
// matched (limite_matching_etablissements).
const (
	MaxPerPage    = 25
	MaxResults    = 10000
	MaxMatching   = 100
	searchPath    = "/search"
	maxValuesList = 50 // codes per comma list, to keep URLs short
)

// searchParams are the parameters of GET /search this adapter sends.
type searchParams struct {
	q                                            string
	codePostal, codeCommune, departement, region []string
	activite, tranche                            []string
	etat                                         string // "A", "C" or "" (both)
	page, perPage, matching                      int
}

func (p searchParams) values() url.Values {
	v := url.Values{}
	set := func(k string, vs []string) {
		if len(vs) > 0 {
			v.Set(k, strings.Join(vs, ","))
		}
	}
	if p.q != "" {
		v.Set("q", p.q)
	}
	set("code_postal", p.codePostal)
	set("code_commune", p.codeCommune)
	set("departement", p.departement)
	set("region", p.region)
	set("activite_principale", p.activite)
	set("tranche_effectif_salarie", p.tranche)
	if p.etat != "" {
		v.Set("etat_administratif", p.etat)
	}
	if p.page > 1 {
		v.Set("page", strconv.Itoa(p.page))
	}
	if p.perPage > 0 {
		v.Set("per_page", strconv.Itoa(p.perPage))
	}
	if p.matching > 0 {
		v.Set("limite_matching_etablissements", strconv.Itoa(p.matching))
	}
	return v
}

// searchResponse is the API's payload.
type searchResponse struct {
	Results      []apiCompany `json:"results"`
	TotalResults int          `json:"total_results"`
	Page         int          `json:"page"`
	PerPage      int          `json:"per_page"`
	TotalPages   int          `json:"total_pages"`
}

// apiCompany is one result: a unité légale (the API's "result" schema,
// the fields this adapter reads).
type apiCompany struct {
	SIREN                       string                `json:"siren"`
	NomComplet                  string                `json:"nom_complet"`
	NomRaisonSociale            string                `json:"nom_raison_sociale"`
	Sigle                       string                `json:"sigle"`
	NombreEtablissements        int                   `json:"nombre_etablissements"`
	NombreEtablissementsOuverts int                   `json:"nombre_etablissements_ouverts"`
	Siege                       apiEstablishment      `json:"siege"`
	ActivitePrincipale          string                `json:"activite_principale"`
	CategorieEntreprise         string                `json:"categorie_entreprise"`
	DateCreation                string                `json:"date_creation"`
	DateFermeture               string                `json:"date_fermeture"`
	Dirigeants                  []apiOfficer          `json:"dirigeants"`
	EtatAdministratif           string                `json:"etat_administratif"`
	NatureJuridique             string                `json:"nature_juridique"`
	TrancheEffectifSalarie      string                `json:"tranche_effectif_salarie"`
	AnneeTrancheEffectif        string                `json:"annee_tranche_effectif_salarie"`
	MatchingEtablissements      []apiEstablishment    `json:"matching_etablissements"`
	Finances                    map[string]apiFinance `json:"finances"`
	Complements                 apiComplements        `json:"complements"`
	TVA                         []string              `json:"tva"`
}

// apiEstablishment is the siege or a matching establishment.
type apiEstablishment struct {
	SIRET                  string   `json:"siret"`
	Adresse                string   `json:"adresse"`
	CodePostal             string   `json:"code_postal"`
	Commune                string   `json:"commune"`
	LibelleCommune         string   `json:"libelle_commune"`
	Departement            string   `json:"departement"`
	Region                 string   `json:"region"`
	ActivitePrincipale     string   `json:"activite_principale"`
	TrancheEffectifSalarie string   `json:"tranche_effectif_salarie"`
	DateCreation           string   `json:"date_creation"`
	DateFermeture          string   `json:"date_fermeture"`
	EtatAdministratif      string   `json:"etat_administratif"`
	EstSiege               bool     `json:"est_siege"`
	NomCommercial          string   `json:"nom_commercial"`
	ListeEnseignes         []string `json:"liste_enseignes"`
}

// apiOfficer is a dirigeant: a person (nom, prenoms) or a company
// (denomination, siren).
type apiOfficer struct {
	Nom           string `json:"nom"`
	Prenoms       string `json:"prenoms"`
	Denomination  string `json:"denomination"`
	SIREN         string `json:"siren"`
	Qualite       string `json:"qualite"`
	TypeDirigeant string `json:"type_dirigeant"`
}

// apiFinance is one year's figures (either may be null).
type apiFinance struct {
	CA          *int64 `json:"ca"`
	ResultatNet *int64 `json:"resultat_net"`
}

// apiComplements are the labels and registrations the API joins in.
type apiComplements struct {
	EstAchatsResponsables    bool `json:"est_achats_responsables"`
	EstBio                   bool `json:"est_bio"`
	EstEntrepreneurSpectacle bool `json:"est_entrepreneur_spectacle"`
	EstESS                   bool `json:"est_ess"`
	EstPatrimoineVivant      bool `json:"est_patrimoine_vivant"`
	EstQualiopi              bool `json:"est_qualiopi"`
	EstRGE                   bool `json:"est_rge"`
	EstSIAE                  bool `json:"est_siae"`
	EstSocieteMission        bool `json:"est_societe_mission"`
}

// searchPage asks one page.
func (c *Client) searchPage(ctx context.Context, p searchParams) (searchResponse, error) {
	var r searchResponse
	err := c.get(ctx, c.search, searchPath, p.values(), &r)
	return r, err
}

// chunks cuts a list into lists of at most n.
func chunks(vs []string, n int) [][]string {
	var out [][]string
	for len(vs) > n {
		out = append(out, vs[:n])
		vs = vs[n:]
	}
	if len(vs) > 0 {
		out = append(out, vs)
	}
	return out
}
