package registers

import (
	_ "embed"
	"strings"
	"sync"
)

// LegalForm is a catégorie juridique of the INSEE nomenclature (the API's
// nature_juridique, level III, four digits): the short form a prospect
// list shows and INSEE's label.
type LegalForm struct {
	Short, Label string
}

// legalForms are the catégories juridiques met in prospecting lists, from
// INSEE's nomenclature (labels as INSEE and the Annuaire des entreprises
// spell them). There is no code of its own for an EURL (a one-member SARL
// is 5499) nor, since 2020, for a SASU (5720 was folded into 5710): the
// register does not tell them from SARL and SAS. Codes missing here are
// shown by LegalFormOf as "catégorie juridique NNNN".
var legalForms = map[string]LegalForm{
	"1000": {"EI", "Entrepreneur individuel"},
	"2110": {"Indivision", "Indivision entre personnes physiques"},
	"2310": {"SEP", "Société en participation entre personnes physiques"},
	"2900": {"Groupement", "Autre groupement de droit privé non doté de la personnalité morale"},
	"3120": {"Société étrangère", "Société commerciale étrangère immatriculée au RCS"},
	"4110": {"EPIC", "Établissement public national à caractère industriel ou commercial doté d'un comptable public"},
	"5202": {"SNC", "Société en nom collectif"},
	"5306": {"SCS", "Société en commandite simple"},
	"5308": {"SCA", "Société en commandite par actions"},
	"5385": {"SELCA", "Société d'exercice libéral en commandite par actions"},
	"5410": {"SARL", "SARL nationale"},
	"5458": {"SCOP SARL", "SARL coopérative de production (SCOP)"},
	"5460": {"SARL coopérative", "Autre SARL coopérative"},
	"5470": {"SPFPL SARL", "Société de participations financières de profession libérale société à responsabilité limitée"},
	"5485": {"SELARL", "Société d'exercice libéral à responsabilité limitée"},
	"5499": {"SARL", "Société à responsabilité limitée (sans autre indication)"},
	"5505": {"SA", "SA à participation ouvrière à conseil d'administration"},
	"5515": {"SAEM", "SA d'économie mixte à conseil d'administration"},
	"5558": {"SCOP SA", "SA coopérative de production (SCOP) à conseil d'administration"},
	"5560": {"SA coopérative", "Autre SA coopérative à conseil d'administration"},
	"5585": {"SELAFA", "Société d'exercice libéral à forme anonyme à conseil d'administration"},
	"5599": {"SA", "SA à conseil d'administration (s.a.i.)"},
	"5699": {"SA", "SA à directoire (s.a.i.)"},
	"5710": {"SAS", "SAS, société par actions simplifiée"},
	"5720": {"SASU", "Société par actions simplifiée à associé unique (code supprimé en 2020)"},
	"5770": {"SPFPL SAS", "Société de participations financières de profession libérale société par actions simplifiée"},
	"5785": {"SELAS", "Société d'exercice libéral par action simplifiée"},
	"5800": {"SE", "Société européenne"},
	"6220": {"GIE", "Groupement d'intérêt économique (GIE)"},
	"6316": {"CUMA", "Coopérative d'utilisation de matériel agricole en commun (CUMA)"},
	"6317": {"Coopérative agricole", "Société coopérative agricole"},
	"6533": {"GAEC", "Groupement agricole d'exploitation en commun (GAEC)"},
	"6534": {"GFA", "Groupement foncier agricole"},
	"6539": {"SCF", "Société civile foncière"},
	"6540": {"SCI", "Société civile immobilière"},
	"6541": {"SCCV", "Société civile immobilière de construction-vente"},
	"6561": {"SCP", "SCP d'avocats"},
	"6565": {"SCP", "SCP de notaires"},
	"6571": {"SCP", "SCP de médecins"},
	"6572": {"SCP", "SCP de dentistes"},
	"6573": {"SCP", "SCP d'infirmiers"},
	"6574": {"SCP", "SCP de masseurs-kinésithérapeutes"},
	"6576": {"SCP", "SCP de vétérinaires"},
	"6577": {"SCP", "SCP de géomètres experts"},
	"6578": {"SCP", "SCP d'architectes"},
	"6585": {"SCP", "Autre société civile professionnelle"},
	"6589": {"SCM", "Société civile de moyens"},
	"6597": {"SCEA", "Société civile d'exploitation agricole"},
	"6598": {"EARL", "Exploitation agricole à responsabilité limitée"},
	"6599": {"Société civile", "Autre société civile"},
	"6901": {"Personne de droit privé", "Autre personne de droit privé inscrite au registre du commerce et des sociétés"},
	"7210": {"Commune", "Commune et commune nouvelle"},
	"7220": {"Département", "Département"},
	"7230": {"Région", "Région"},
	"7346": {"Communauté de communes", "Communauté de communes"},
	"7348": {"Communauté d'agglomération", "Communauté d'agglomération"},
	"7389": {"EPA", "Établissement public national à caractère administratif"},
	"8210": {"Mutuelle", "Mutuelle"},
	"8410": {"Syndicat", "Syndicat de salariés"},
	"8450": {"Ordre professionnel", "Ordre professionnel ou assimilé"},
	"9110": {"Syndicat de copropriété", "Syndicat de copropriété"},
	"9210": {"Association", "Association non déclarée"},
	"9220": {"Association", "Association déclarée"},
	"9221": {"Association", "Association déclarée d'insertion par l'économique"},
	"9223": {"Groupement d'employeurs", "Groupement d'employeurs"},
	"9224": {"AARPI", "Association d'avocats à responsabilité professionnelle individuelle"},
	"9230": {"Association RUP", "Association déclarée, reconnue d'utilité publique"},
	"9260": {"Association", "Association de droit local (Bas-Rhin, Haut-Rhin et Moselle)"},
	"9300": {"Fondation", "Fondation"},
}

// LegalFormOf is the legal form of a nature_juridique code; a code the
// table lacks keeps its number ("catégorie juridique 7383"), "" none.
func LegalFormOf(code string) LegalForm {
	code = strings.TrimSpace(code)
	if code == "" {
		return LegalForm{}
	}
	if f, ok := legalForms[code]; ok {
		return f
	}
	return LegalForm{Short: "catégorie juridique " + code, Label: "catégorie juridique " + code}
}

// Tranche is a tranche d'effectif salarié of the INSEE registers.
type Tranche struct{ Code, Label string }

// Tranches are INSEE's headcount bands, smallest first (their order is
// EffectifMin's). "NN" is a unit without employees (non-employeuse), "00"
// one that had employees but none at 31 December.
var Tranches = []Tranche{
	{"NN", "Unité non employeuse"},
	{"00", "0 salarié"},
	{"01", "1 ou 2 salariés"},
	{"02", "3 à 5 salariés"},
	{"03", "6 à 9 salariés"},
	{"11", "10 à 19 salariés"},
	{"12", "20 à 49 salariés"},
	{"21", "50 à 99 salariés"},
	{"22", "100 à 199 salariés"},
	{"31", "200 à 249 salariés"},
	{"32", "250 à 499 salariés"},
	{"41", "500 à 999 salariés"},
	{"42", "1 000 à 1 999 salariés"},
	{"51", "2 000 à 4 999 salariés"},
	{"52", "5 000 à 9 999 salariés"},
	{"53", "10 000 salariés et plus"},
}

// TrancheLabel decodes a tranche code ("02" → "3 à 5 salariés"); an empty
// or null code is "" (the register does not say), an unknown one is kept.
func TrancheLabel(code string) string {
	if i := trancheRank(code); i >= 0 {
		return Tranches[i].Label
	}
	return strings.TrimSpace(code)
}

// trancheRank is the code's index in Tranches, -1 when it is none.
func trancheRank(code string) int {
	code = strings.ToUpper(strings.TrimSpace(code))
	for i, t := range Tranches {
		if t.Code == code {
			return i
		}
	}
	return -1
}

// ValidTranche tells whether code is one of INSEE's tranche codes.
func ValidTranche(code string) bool { return trancheRank(code) >= 0 }

// tranchesFrom are the codes of min and above, for the API's
// tranche_effectif_salarie filter.
func tranchesFrom(min string) []string {
	i := trancheRank(min)
	if i < 0 {
		return nil
	}
	out := make([]string, 0, len(Tranches)-i)
	for _, t := range Tranches[i:] {
		out = append(out, t.Code)
	}
	return out
}

// nafTSV is INSEE's NAF rév. 2 nomenclature at its finest level (the
// 732 sous-classes, "10.71C" and its label), from the @socialgouv/codes-naf
// npm package (INSEE data, Licence Ouverte; docs/registers.md says how the
// file was made).
//
//go:embed data/naf.tsv
var nafTSV string

var nafLabels = sync.OnceValue(func() map[string]string {
	m := make(map[string]string, 800)
	for line := range strings.Lines(nafTSV) {
		code, label, ok := strings.Cut(strings.TrimRight(line, "\r\n"), "\t")
		if ok {
			m[code] = label
		}
	}
	return m
})

// NAFLabel is the label of a NAF sous-classe ("56.10A" → "Restauration
// traditionnelle"), "" for an unknown code.
func NAFLabel(code string) string { return nafLabels()[normalizeNAF(code)] }

// normalizeNAF spells a NAF code as the registers do: "5610a", "56.10.A"
// and " 56.10A " are "56.10A"; anything else is returned as given.
func normalizeNAF(code string) string {
	s := strings.ToUpper(strings.NewReplacer(".", "", " ", "", "-", "").Replace(code))
	if len(s) != 5 || !isDigits(s[:4]) || s[4] < 'A' || s[4] > 'Z' {
		return strings.TrimSpace(code)
	}
	return s[:2] + "." + s[2:]
}

// isNAF tells whether s spells a NAF sous-classe known to the nomenclature.
func isNAF(s string) bool { _, ok := nafLabels()[normalizeNAF(s)]; return ok }

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
