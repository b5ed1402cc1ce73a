package registers

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// trades maps the trade names a user types to the NAF rév. 2 sous-classes
// the registers file such businesses under (docs/registers.md shows the
// table). A trade often spans several codes: a bakery is a craft baker
// (10.71C) or a bread shop (47.24Z). Keys are normalised as
// gazetteer.Normalize does; plurals are folded when looking up.
var trades = map[string][]string{
	// Food trades and shops.
	"boulangerie":  {"10.71C", "47.24Z"},
	"boulanger":    {"10.71C", "47.24Z"},
	"patisserie":   {"10.71D", "47.24Z"},
	"patissier":    {"10.71D", "47.24Z"},
	"chocolatier":  {"10.82Z", "47.24Z"},
	"boucherie":    {"47.22Z"},
	"boucher":      {"47.22Z"},
	"charcuterie":  {"10.13B", "47.22Z"},
	"poissonnerie": {"47.23Z"},
	"primeur":      {"47.21Z"},
	"fromagerie":   {"47.29Z"},
	"epicerie":     {"47.11B", "47.11C"},
	"superette":    {"47.11C"},
	"supermarche":  {"47.11D"},
	"hypermarche":  {"47.11F"},
	"caviste":      {"47.25Z"},
	"cave a vin":   {"47.25Z"},
	// Hospitality.
	"restaurant":          {"56.10A"},
	"restauration":        {"56.10A", "56.10C"},
	"brasserie":           {"56.10A"},
	"pizzeria":            {"56.10A", "56.10C"},
	"restauration rapide": {"56.10C"},
	"fast food":           {"56.10C"},
	"snack":               {"56.10C"},
	"kebab":               {"56.10C"},
	"food truck":          {"56.10C"},
	"traiteur":            {"56.21Z"},
	"bar":                 {"56.30Z"},
	"cafe":                {"56.30Z"},
	"debit de boissons":   {"56.30Z"},
	"hotel":               {"55.10Z"},
	"camping":             {"55.30Z"},
	// Building trades.
	"plombier":            {"43.22A"},
	"plomberie":           {"43.22A"},
	"chauffagiste":        {"43.22B"},
	"climatisation":       {"43.22B"},
	"electricien":         {"43.21A"},
	"electricite":         {"43.21A"},
	"macon":               {"43.99C"},
	"maconnerie":          {"43.99C"},
	"menuisier":           {"43.32A"},
	"menuiserie":          {"43.32A"},
	"charpentier":         {"43.91A"},
	"couvreur":            {"43.91B"},
	"peintre":             {"43.34Z"},
	"peintre en batiment": {"43.34Z"},
	"vitrier":             {"43.34Z"},
	"platrier":            {"43.31Z"},
	"plaquiste":           {"43.31Z"},
	"carreleur":           {"43.33Z"},
	"serrurier":           {"43.32B"},
	"terrassement":        {"43.12A"},
	"paysagiste":          {"81.30Z"},
	"jardinier":           {"81.30Z"},
	"nettoyage":           {"81.21Z"},
	// Personal services.
	"coiffeur":           {"96.02A"},
	"coiffure":           {"96.02A"},
	"salon de coiffure":  {"96.02A"},
	"barbier":            {"96.02A"},
	"institut de beaute": {"96.02B"},
	"estheticienne":      {"96.02B"},
	"beaute":             {"96.02B"},
	"pressing":           {"96.01B"},
	"pompes funebres":    {"96.03Z"},
	"toiletteur":         {"96.09Z"},
	"cordonnier":         {"95.23Z"},
	"cordonnerie":        {"95.23Z"},
	"salle de sport":     {"93.13Z"},
	"fitness":            {"93.13Z"},
	"creche":             {"88.91A"},
	"aide a domicile":    {"88.10A"},
	// Motor trades and transport.
	"garage":              {"45.20A"},
	"garagiste":           {"45.20A"},
	"mecanicien":          {"45.20A"},
	"carrosserie":         {"45.20A"},
	"concessionnaire":     {"45.11Z"},
	"controle technique":  {"71.20A"},
	"auto ecole":          {"85.53Z"},
	"taxi":                {"49.32Z"},
	"vtc":                 {"49.39B"},
	"demenagement":        {"49.42Z"},
	"location de voiture": {"77.11A"},
	// Health.
	"pharmacie":              {"47.73Z"},
	"medecin":                {"86.21Z"},
	"medecin generaliste":    {"86.21Z"},
	"medecin specialiste":    {"86.22C"},
	"dentiste":               {"86.23Z"},
	"chirurgien dentiste":    {"86.23Z"},
	"kinesitherapeute":       {"86.90E"},
	"kine":                   {"86.90E"},
	"infirmier":              {"86.90D"},
	"osteopathe":             {"86.90F"},
	"psychologue":            {"86.90F"},
	"ambulance":              {"86.90A"},
	"laboratoire d analyses": {"86.90B"},
	"opticien":               {"47.78A"},
	"veterinaire":            {"75.00Z"},
	"ehpad":                  {"87.10A"},
	// Professional services.
	"notaire":                 {"69.10Z"},
	"avocat":                  {"69.10Z"},
	"huissier":                {"69.10Z"},
	"expert comptable":        {"69.20Z"},
	"comptable":               {"69.20Z"},
	"architecte":              {"71.11Z"},
	"geometre":                {"71.12A"},
	"bureau d etudes":         {"71.12B"},
	"agence immobiliere":      {"68.31Z"},
	"immobilier":              {"68.31Z"},
	"syndic":                  {"68.32A"},
	"banque":                  {"64.19Z"},
	"assurance":               {"66.22Z"},
	"courtier en assurance":   {"66.22Z"},
	"agence de voyage":        {"79.11Z"},
	"agence de communication": {"73.11Z"},
	"agence web":              {"62.01Z", "73.11Z"},
	"developpeur":             {"62.01Z"},
	"informatique":            {"62.01Z", "62.02A"},
	"photographe":             {"74.20Z"},
	"imprimerie":              {"18.12Z"},
	"formation":               {"85.59A"},
	"organisme de formation":  {"85.59A"},
	// Other shops.
	"fleuriste":            {"47.76Z"},
	"librairie":            {"47.61Z"},
	"tabac":                {"47.26Z"},
	"presse":               {"47.62Z"},
	"bijouterie":           {"47.77Z"},
	"vetements":            {"47.71Z"},
	"chaussures":           {"47.72A"},
	"quincaillerie":        {"47.52A"},
	"bricolage":            {"47.52B"},
	"electromenager":       {"47.54Z"},
	"meubles":              {"47.59A"},
	"magasin informatique": {"47.41Z"},
	"reparation telephone": {"95.12Z"},
}

// ResolveActivity reads one entry of the sirene node's activites: a NAF
// code ("56.10A", "5610a") or a trade name ("boulangerie", "Plombiers").
// It returns the NAF codes, or an error wrapping ErrBadQuery that names
// the closest known trades.
func ResolveActivity(s string) ([]string, error) {
	if isNAF(s) {
		return []string{normalizeNAF(s)}, nil
	}
	norm := gazetteer.Normalize(s)
	if codes, ok := trades[norm]; ok {
		return slices.Clone(codes), nil
	}
	words := strings.Fields(norm)
	for i, w := range words { // plurals: "plombiers", "bureaux"
		if len(w) > 3 && (strings.HasSuffix(w, "s") || strings.HasSuffix(w, "x")) {
			words[i] = w[:len(w)-1]
		}
	}
	if codes, ok := trades[strings.Join(words, " ")]; ok {
		return slices.Clone(codes), nil
	}
	if norm == "" {
		return nil, fmt.Errorf("%w: an empty activity", ErrBadQuery)
	}
	if len(norm) > 100 {
		return nil, fmt.Errorf("%w: unknown activity (%d characters)", ErrBadQuery, len(s))
	}
	return nil, fmt.Errorf("%w: unknown activity %q (a NAF code such as 56.10A, or a trade such as %s)",
		ErrBadQuery, strings.TrimSpace(s), strings.Join(closestTrades(norm, 3), ", "))
}

// closestTrades are the n trade names most like norm.
func closestTrades(norm string, n int) []string {
	type scored struct {
		name string
		s    float64
	}
	var ss []scored
	for t := range trades {
		ss = append(ss, scored{t, jaroWinkler([]rune(norm), []rune(t))})
	}
	sort.Slice(ss, func(i, j int) bool {
		if ss[i].s != ss[j].s {
			return ss[i].s > ss[j].s
		}
		return ss[i].name < ss[j].name
	})
	out := make([]string, 0, n)
	for _, s := range ss[:min(n, len(ss))] {
		out = append(out, s.name)
	}
	return out
}
