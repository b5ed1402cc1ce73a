package sim

import (
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// category is what a query searches for: how common its places are, how
// much they are reviewed and how they are named.
type category struct {
	// key names the category in place ids and random keys: ASCII letters
	// and digits only, since ids become host names of the fixture web.
	key string
	// display is the place's Category in French-speaking countries, en
	// elsewhere.
	display, en string
	// perHead is the number of places per inhabitant.
	perHead float64
	// reviewsPerYear is the median rate at which its places gather
	// reviews.
	reviewsPerYear float64
	// names are name templates specific to the category (see nameOf);
	// generic ones are added.
	names []string
	// legal are the legal forms its companies take.
	legal []string
	// synonyms are the queries that find it, normalised (key and the
	// normalised display names are added).
	synonyms []string
	// unknown marks the category of a query the table lacks.
	unknown bool
	// trades are its words and name templates in the other languages
	// (trades.go); nil for an unknown category.
	trades map[lang]trade
}

// categories are common prospecting queries, with densities from the
// order of magnitude of the French business registers (about one bakery
// per 1,200 inhabitants, one notary per 8,000).
var categories = []category{
	{key: "boulangerie", display: "Boulangerie", en: "Bakery", perHead: 1.0 / 1200, reviewsPerYear: 15,
		names:    []string{"Au Pain Doré", "Le Fournil de {F}", "Maison {S}", "Boulangerie {L}", "Aux Délices {L}", "La Huche à Pain", "Le Pétrin {A}", "Boulangerie Pâtisserie {S}"},
		legal:    []string{"SARL", "EURL", "SAS"},
		synonyms: []string{"boulanger", "bakery", "boulangerie patisserie", "baker"}},
	{key: "restaurant", display: "Restaurant", en: "Restaurant", perHead: 1.0 / 330, reviewsPerYear: 40,
		names:    []string{"Le Petit Bistrot", "Chez {F}", "La Table de {F}", "L'Auberge {L}", "Le Comptoir {L}", "Le Bouchon {A}", "La Brasserie {L}", "Les Saveurs {L}", "Le Jardin de {F}", "Restaurant {S}"},
		legal:    []string{"SARL", "SAS", "SASU"},
		synonyms: []string{"resto", "restaurants", "brasserie", "bistrot"}},
	{key: "plombier", display: "Plombier", en: "Plumber", perHead: 1.0 / 1500, reviewsPerYear: 4,
		names:    []string{"{S} Plomberie", "Plomberie {L}", "{S} Plomberie Chauffage", "SOS Plombier {t}", "Artisan Plombier {S}", "{F} {S} Plomberie"},
		legal:    []string{"EURL", "SARL", "SASU", "EI"},
		synonyms: []string{"plumber", "plomberie", "plombier chauffagiste", "chauffagiste"}},
	{key: "coiffeur", display: "Coiffeur", en: "Hairdresser", perHead: 1.0 / 800, reviewsPerYear: 10,
		names:    []string{"{F} Coiffure", "L'Atelier Coiffure", "Salon {F}", "Coiffure {L}", "Hair {A}", "Studio {F}", "Les Ciseaux d'Or", "Coupe & Style"},
		legal:    []string{"SARL", "EURL", "SASU", "EI"},
		synonyms: []string{"coiffeuse", "coiffure", "salon de coiffure", "hairdresser", "hair salon", "barbier", "barber"}},
	{key: "pharmacie", display: "Pharmacie", en: "Pharmacy", perHead: 1.0 / 3000, reviewsPerYear: 8,
		names:    []string{"Pharmacie {L}", "Pharmacie {S}", "Grande Pharmacie {T}", "Pharmacie Centrale", "Pharmacie {S}-{S2}"},
		legal:    []string{"SELARL", "SNC", "SELAS"},
		synonyms: []string{"pharmacy", "pharmacien", "chemist", "drugstore"}},
	{key: "notaire", display: "Notaire", en: "Notary", perHead: 1.0 / 8000, reviewsPerYear: 3,
		names:    []string{"Étude de Maître {S}", "{S} & {S2}, Notaires Associés", "Office Notarial {L}", "Maître {F} {S}, Notaire", "SCP {S} {S2}"},
		legal:    []string{"SCP", "SELARL", "SAS"},
		synonyms: []string{"notary", "notaires", "office notarial", "etude notariale"}},
	{key: "avocat", display: "Avocat", en: "Lawyer", perHead: 1.0 / 1500, reviewsPerYear: 3,
		names:    []string{"Maître {F} {S}", "Cabinet {S}", "{S} Avocats", "{S} & {S2} Avocats Associés", "Cabinet d'Avocats {S}"},
		legal:    []string{"SELARL", "SCP", "AARPI", "SELAS"},
		synonyms: []string{"lawyer", "attorney", "avocats", "cabinet d avocats", "cabinet avocat"}},
	{key: "dentiste", display: "Dentiste", en: "Dentist", perHead: 1.0 / 2000, reviewsPerYear: 6,
		names:    []string{"Dr {F} {S}", "Cabinet Dentaire {L}", "Centre Dentaire {T}", "Cabinet du Dr {S}", "Dr {S}, Chirurgien-Dentiste"},
		legal:    []string{"SELARL", "SCM", "EI"},
		synonyms: []string{"dentist", "chirurgien dentiste", "cabinet dentaire", "orthodontiste"}},
	{key: "garage", display: "Garage automobile", en: "Car repair", perHead: 1.0 / 1500, reviewsPerYear: 6,
		names:    []string{"Garage {S}", "Garage {L}", "{S} Automobiles", "Auto Services {t}", "Garage du Centre", "Mécanique {S}"},
		legal:    []string{"SARL", "SAS", "EURL"},
		synonyms: []string{"garagiste", "garage automobile", "mecanicien", "car repair", "auto repair", "mechanic"}},
	{key: "hotel", display: "Hôtel", en: "Hotel", perHead: 1.0 / 2500, reviewsPerYear: 60,
		names:    []string{"Hôtel {L}", "Hôtel {A}", "Hôtel de {F}", "Le Relais {L}", "Hôtel Le {A}", "Best Hôtel {t}"},
		legal:    []string{"SAS", "SARL"},
		synonyms: []string{"hotel", "hotels", "hostel", "hotellerie"}},
	{key: "immobilier", display: "Agence immobilière", en: "Real estate agency", perHead: 1.0 / 2000, reviewsPerYear: 8,
		names:    []string{"{S} Immobilier", "Agence {L}", "Immobilière {T}", "{F} Immo", "Cabinet {S} Immobilier", "L'Adresse {t}"},
		legal:    []string{"SARL", "SAS", "EURL"},
		synonyms: []string{"agence immobiliere", "immobilier", "agent immobilier", "real estate agency", "real estate", "estate agent", "realtor"}},
	{key: "fleuriste", display: "Fleuriste", en: "Florist", perHead: 1.0 / 5000, reviewsPerYear: 6,
		names:    []string{"Au Jardin de {F}", "{F} Fleurs", "Les Fleurs {L}", "L'Atelier Floral", "Le Bouquet {A}", "Fleurs {S}"},
		legal:    []string{"EURL", "SARL", "EI"},
		synonyms: []string{"florist", "fleurs", "flower shop"}},
	{key: "boucherie", display: "Boucherie", en: "Butcher", perHead: 1.0 / 3500, reviewsPerYear: 8,
		names:    []string{"Boucherie {S}", "Boucherie {L}", "Maison {S}", "Boucherie Charcuterie {S}", "Au Bon Boucher"},
		legal:    []string{"SARL", "EURL"},
		synonyms: []string{"boucher", "butcher", "boucherie charcuterie"}},
	{key: "electricien", display: "Électricien", en: "Electrician", perHead: 1.0 / 1200, reviewsPerYear: 3,
		names:    []string{"{S} Électricité", "Élec {S}", "{F} {S} Électricien", "Électricité {L}", "{S} Élec Services"},
		legal:    []string{"EURL", "SARL", "SASU", "EI"},
		synonyms: []string{"electrician", "electricite"}},
	{key: "medecin", display: "Médecin généraliste", en: "General practitioner", perHead: 1.0 / 1100, reviewsPerYear: 4,
		names:    []string{"Dr {F} {S}", "Cabinet Médical {L}", "Maison de Santé {T}", "Dr {S}, Médecin Généraliste"},
		legal:    []string{"SCM", "SELARL", "EI"},
		synonyms: []string{"medecin generaliste", "generaliste", "doctor", "general practitioner", "gp"}},
	{key: "kine", display: "Kinésithérapeute", en: "Physiotherapist", perHead: 1.0 / 1000, reviewsPerYear: 4,
		names:    []string{"{F} {S}, Kinésithérapeute", "Cabinet de Kinésithérapie {L}", "Kiné {t}", "Centre de Rééducation {L}"},
		legal:    []string{"SCM", "SELARL", "EI"},
		synonyms: []string{"kinesitherapeute", "kinesitherapie", "physiotherapist", "physio"}},
	{key: "comptable", display: "Expert-comptable", en: "Accountant", perHead: 1.0 / 3500, reviewsPerYear: 2,
		names:    []string{"Cabinet {S}", "{S} Expertise Comptable", "{S} & Associés", "Fiduciaire {T}", "Audit {S} Conseil"},
		legal:    []string{"SAS", "SARL", "SELARL"},
		synonyms: []string{"expert comptable", "experts comptables", "cabinet comptable", "accountant", "accounting"}},
	{key: "architecte", display: "Architecte", en: "Architect", perHead: 1.0 / 2500, reviewsPerYear: 2,
		names:    []string{"{S} Architecture", "Atelier {S}", "{F} {S} Architecte", "Agence {S} & {S2}", "Atelier d'Architecture {L}"},
		legal:    []string{"SARL", "SAS", "EURL"},
		synonyms: []string{"architect", "architecture", "cabinet d architecte"}},
	{key: "opticien", display: "Opticien", en: "Optician", perHead: 1.0 / 5000, reviewsPerYear: 6,
		names:    []string{"Optique {S}", "Optique {L}", "{S} Opticien", "Lunettes & Vous", "Atelier Optique {T}"},
		legal:    []string{"SARL", "SAS"},
		synonyms: []string{"optician", "optique", "lunetier"}},
	{key: "veterinaire", display: "Vétérinaire", en: "Veterinarian", perHead: 1.0 / 5000, reviewsPerYear: 8,
		names:    []string{"Clinique Vétérinaire {L}", "Cabinet Vétérinaire {S}", "Dr {S}, Vétérinaire", "Clinique Vétérinaire {T}"},
		legal:    []string{"SELARL", "SCP"},
		synonyms: []string{"vet", "veterinarian", "clinique veterinaire", "veterinary"}},
	{key: "bar", display: "Bar", en: "Bar", perHead: 1.0 / 900, reviewsPerYear: 20,
		names:    []string{"Le Café {L}", "Bar {L}", "Le Zinc", "Café {S}", "Le Bar {A}", "Chez {F}", "Café de la Paix"},
		legal:    []string{"SARL", "SAS", "EURL"},
		synonyms: []string{"cafe", "bars", "pub", "bistro", "cafe bar"}},
	{key: "pizzeria", display: "Pizzeria", en: "Pizzeria", perHead: 1.0 / 2500, reviewsPerYear: 25,
		names:    []string{"Pizzeria {L}", "Pizza {F}", "La Bella Italia", "Chez {F} Pizza", "Il Forno", "Pizzeria Napoli"},
		legal:    []string{"SARL", "SAS", "EURL"},
		synonyms: []string{"pizza", "pizzas", "pizzerias"}},
	{key: "menuisier", display: "Menuisier", en: "Carpenter", perHead: 1.0 / 2500, reviewsPerYear: 2,
		names:    []string{"Menuiserie {S}", "Menuiserie {L}", "{S} Bois", "L'Atelier du Bois", "{F} {S} Menuisier"},
		legal:    []string{"SARL", "EURL", "EI"},
		synonyms: []string{"menuiserie", "carpenter", "joiner", "ebeniste"}},
	{key: "peintre", display: "Peintre en bâtiment", en: "Painter", perHead: 1.0 / 2000, reviewsPerYear: 2,
		names:    []string{"{S} Peinture", "Peinture {L}", "{F} {S} Décoration", "Déco {S}"},
		legal:    []string{"EURL", "SARL", "EI"},
		synonyms: []string{"peintre en batiment", "peinture", "painter", "painter decorator"}},
	{key: "serrurier", display: "Serrurier", en: "Locksmith", perHead: 1.0 / 5000, reviewsPerYear: 4,
		names:    []string{"Serrurerie {S}", "SOS Serrurier {t}", "{S} Serrurerie", "Clés {L}"},
		legal:    []string{"SARL", "EURL", "EI"},
		synonyms: []string{"locksmith", "serrurerie"}},
	{key: "beaute", display: "Institut de beauté", en: "Beauty salon", perHead: 1.0 / 1500, reviewsPerYear: 10,
		names:    []string{"Institut {F}", "Beauté {L}", "L'Instant Beauté", "Belle & Zen", "Spa {F}", "Institut {A}"},
		legal:    []string{"EURL", "SARL", "SASU", "EI"},
		synonyms: []string{"institut de beaute", "estheticienne", "esthetique", "beauty salon", "spa"}},
	{key: "banque", display: "Banque", en: "Bank", perHead: 1.0 / 2000, reviewsPerYear: 5,
		names:    []string{"Banque {A} {T}", "Crédit {A} Agence {L}", "Banque {S}", "Caisse Régionale {T}"},
		legal:    []string{"SA", "SCA"},
		synonyms: []string{"bank", "banques", "agence bancaire"}},
	{key: "assurance", display: "Agence d'assurance", en: "Insurance agency", perHead: 1.0 / 2500, reviewsPerYear: 4,
		names:    []string{"{S} Assurances", "Cabinet {S}", "Assurances {L}", "Agence {S} & {S2}"},
		legal:    []string{"SARL", "SAS", "EURL"},
		synonyms: []string{"assurance", "assurances", "assureur", "agence d assurance", "insurance", "insurance agency"}},
	{key: "supermarche", display: "Supermarché", en: "Supermarket", perHead: 1.0 / 3000, reviewsPerYear: 30,
		names:    []string{"Marché {A}", "Super {t}", "Proxi {L}", "Épicerie {L}", "Le Panier {A}"},
		legal:    []string{"SAS", "SA"},
		synonyms: []string{"supermarket", "epicerie", "grocery", "grocery store", "superette"}},
	{key: "maconnerie", display: "Maçon", en: "Mason", perHead: 1.0 / 1500, reviewsPerYear: 2,
		names:    []string{"{S} Maçonnerie", "Maçonnerie {L}", "{S} Bâtiment", "{F} {S} Construction", "Bâti {S}"},
		legal:    []string{"SARL", "EURL", "SAS"},
		synonyms: []string{"macon", "maconnerie", "mason", "builder", "entreprise de maconnerie"}},
	{key: "couvreur", display: "Couvreur", en: "Roofer", perHead: 1.0 / 3000, reviewsPerYear: 2,
		names:    []string{"{S} Couverture", "Toitures {L}", "{S} Toiture Zinguerie", "Couverture {S}"},
		legal:    []string{"SARL", "EURL"},
		synonyms: []string{"roofer", "couverture", "toiture", "zingueur"}},
	{key: "osteopathe", display: "Ostéopathe", en: "Osteopath", perHead: 1.0 / 2500, reviewsPerYear: 6,
		names:    []string{"{F} {S}, Ostéopathe", "Cabinet d'Ostéopathie {L}", "Ostéo {t}"},
		legal:    []string{"EI", "SCM"},
		synonyms: []string{"osteopath", "osteopathie", "osteo"}},
	{key: "autoecole", display: "Auto-école", en: "Driving school", perHead: 1.0 / 6000, reviewsPerYear: 12,
		names:    []string{"Auto-École {L}", "Auto-École {S}", "École de Conduite {T}", "Permis {A}"},
		legal:    []string{"SARL", "SAS"},
		synonyms: []string{"auto ecole", "driving school", "ecole de conduite"}},
	{key: "sport", display: "Salle de sport", en: "Gym", perHead: 1.0 / 6000, reviewsPerYear: 25,
		names:    []string{"Fitness {t}", "{A} Gym", "Le Club {L}", "Studio Forme {F}", "Cross Training {t}"},
		legal:    []string{"SAS", "SARL"},
		synonyms: []string{"salle de sport", "gym", "fitness", "salle de musculation", "crossfit"}},
	{key: "caviste", display: "Caviste", en: "Wine shop", perHead: 1.0 / 6000, reviewsPerYear: 6,
		names:    []string{"La Cave {L}", "Cave {S}", "Le Cellier de {F}", "Vins & Terroirs"},
		legal:    []string{"SARL", "EURL"},
		synonyms: []string{"cave a vin", "cave a vins", "wine shop", "wine store"}},
	{key: "patisserie", display: "Pâtisserie", en: "Pastry shop", perHead: 1.0 / 6000, reviewsPerYear: 12,
		names:    []string{"Pâtisserie {S}", "Les Douceurs de {F}", "Maison {S}", "Au Palais Gourmand"},
		legal:    []string{"SARL", "EURL"},
		synonyms: []string{"patissier", "pastry shop", "patisseries"}},
	{key: "traiteur", display: "Traiteur", en: "Caterer", perHead: 1.0 / 5000, reviewsPerYear: 4,
		names:    []string{"{S} Traiteur", "Traiteur {L}", "Les Saveurs de {F}", "Réceptions {S}"},
		legal:    []string{"SARL", "SAS"},
		synonyms: []string{"caterer", "catering"}},
	{key: "librairie", display: "Librairie", en: "Bookshop", perHead: 1.0 / 9000, reviewsPerYear: 6,
		names:    []string{"Librairie {L}", "Librairie {S}", "Le Livre {A}", "La Page {A}"},
		legal:    []string{"SARL", "SAS", "SCOP"},
		synonyms: []string{"bookshop", "bookstore", "libraire"}},
	{key: "pressing", display: "Pressing", en: "Dry cleaner", perHead: 1.0 / 8000, reviewsPerYear: 4,
		names:    []string{"Pressing {L}", "Pressing {S}", "Net'Express", "Blanc {A}"},
		legal:    []string{"SARL", "EURL"},
		synonyms: []string{"dry cleaner", "dry cleaning", "blanchisserie", "laverie"}},
}

// genericNames are the name templates every category may use.
var genericNames = []string{"{D} {S}", "{D} {L}", "{D} {S}", "{D} {T}"}

// unknownNames are the templates of places of unknown categories: their
// names cannot include the query, which place ids do not carry (the
// fixture web must rebuild the name from an id alone).
var unknownNames = []string{"Maison {S}", "Établissements {S}", "{S} & Fils", "Atelier {F}", "L'Atelier {L}", "{S} & {S2}", "{F} {S}", "{S} Services", "Espace {A}"}

// categoryIndex maps each normalised synonym to its category.
type categoryIndex map[string]*category

// newCategoryIndex indexes the categories' synonyms, then the words of
// their trades in other languages ("Klempner", "fontanero"), so that a
// query in any of them finds the category; a trade word never displaces a
// synonym.
func newCategoryIndex(cs []category, tradeWords map[string][]string) categoryIndex {
	ix := categoryIndex{}
	for i := range cs {
		c := &cs[i]
		for _, s := range append([]string{c.key, c.display, c.en}, c.synonyms...) {
			ix[gazetteer.Normalize(s)] = c
		}
	}
	for i := range cs {
		c := &cs[i]
		for _, w := range tradeWords[c.key] {
			if _, taken := ix[w]; !taken {
				ix[w] = c
			}
		}
	}
	return ix
}

// resolve returns the known category a query names, or nil. A query
// names a category when it is one of its synonyms, possibly plural, or
// contains one as whole words ("boulangerie artisanale"; the longest
// wins).
func (ix categoryIndex) resolve(norm string) *category { return ix.match(norm) }

// category returns the category a query searches. Any query the table
// lacks is a category of its own (see unknownCategory), so that every
// query finds something, always the same things.
func (w *World) category(query string) (*category, error) {
	norm := gazetteer.Normalize(query)
	if norm == "" {
		return nil, fmt.Errorf("%w: empty query %q", ErrBadRequest, query)
	}
	if c := w.cats.resolve(norm); c != nil {
		return c, nil
	}
	c := w.unknownCategory(fmt.Sprintf("q%012x", uint64(key(0).str(norm))>>16))
	c.display = displayQuery(query)
	c.en = c.display
	return c, nil
}

// categoryByKey returns the category of a key in a place id, without a
// display name when the category is not in the table (ids do not carry
// the query).
func (w *World) categoryByKey(k string) *category {
	if c := w.byKey[k]; c != nil {
		return c
	}
	if len(k) != 13 || k[0] != 'q' {
		return nil
	}
	for _, r := range k[1:] {
		if !strings.ContainsRune("0123456789abcdef", r) {
			return nil
		}
	}
	return w.unknownCategory(k)
}

// unknownCategory is the category of a query the table lacks, from its
// key: its density is drawn between 1/2,000 and 1/30,000 per inhabitant
// (log-uniform).
func (w *World) unknownCategory(k string) *category {
	r := w.seed.str("unknown category").str(k).rng()
	return &category{
		key:            k,
		perHead:        1 / (2000 * math.Pow(15, r.float())),
		reviewsPerYear: 5,
		names:          unknownNames,
		legal:          []string{"SARL", "SAS", "EURL"},
		unknown:        true,
	}
}

// match finds the category of a normalised query, or nil.
func (ix categoryIndex) match(norm string) *category {
	if c := ix[norm]; c != nil {
		return c
	}
	words := strings.Fields(norm)
	for i, w := range words { // plurals: "plombiers", "notaires"
		if len(w) > 3 && (strings.HasSuffix(w, "s") || strings.HasSuffix(w, "x")) {
			words[i] = w[:len(w)-1]
		}
	}
	if c := ix[strings.Join(words, " ")]; c != nil {
		return c
	}
	var best *category
	bestLen := 0
	for n := len(words); n >= 1 && best == nil; n-- {
		for i := 0; i+n <= len(words); i++ {
			phrase := strings.Join(words[i:i+n], " ")
			if c := ix[phrase]; c != nil && len(phrase) > bestLen {
				best, bestLen = c, len(phrase)
			}
		}
	}
	return best
}

// displayQuery is an unknown query as a category name: trimmed, spaces
// collapsed, first letter upper case ("escape game" → "Escape game").
func displayQuery(q string) string {
	q = strings.Join(strings.Fields(q), " ")
	r, n := utf8.DecodeRuneInString(q)
	return string(unicode.ToUpper(r)) + q[n:]
}
