package prices

import (
	"regexp"
	"strings"
)

// periodAfter reads the period written after an amount, past tax words:
// "€/mois", "€ HT par mois", "de l'heure", "per month", "/nuit".
var periodAfter = regexp.MustCompile(`(?i)^\s*(?:(?:HT|TTC|H\.T\.|T\.T\.C\.|net|hors taxes?|toutes taxes comprises|incl\. VAT|\+ ?VAT)\s*)?(?:/|par|per|a|an|la|le|de\s+l['’]|l['’]|the|chaque|each)?\s*(heures?|h|hr|hour|jours?|journée|day|jr|nuits?|nuitée|night|semaines?|sem|week|wk|mois|month|mo|mensuel|ans?|année|year|yr|annuel)\b`)

// periodBefore reads a qualifier before the amount: "taux horaire",
// "abonnement mensuel", "forfait journée".
var periodBefore = regexp.MustCompile(`(?i)(horaire|hourly|journ[ée]e|daily|nuit[ée]e|nightly|hebdomadaire|weekly|mensuel(?:le)?|mensualit[ée]|monthly|annuel(?:le)?|yearly|annual)`)

// unitWord is a period word inside a free unitText ("par mois", "hour").
var unitWord = regexp.MustCompile(`(?i)\b(heures?|hour|jours?|journ[ée]e|day|nuits?|nuit[ée]e|night|semaines?|week|mois|month|ans?|année|year|mensuel|annuel|horaire)(?:$|[^\p{L}])`)

// periodOf maps a period word to the column's vocabulary.
func periodOf(word string) string {
	w := strings.ToLower(word)
	switch {
	case strings.HasPrefix(w, "h") || w == "hourly" || w == "horaire":
		return "hour"
	case strings.HasPrefix(w, "jour") || strings.HasPrefix(w, "journ") || w == "day" || w == "jr" || w == "daily":
		return "day"
	case strings.HasPrefix(w, "nuit") || strings.HasPrefix(w, "night"):
		return "night"
	case strings.HasPrefix(w, "sem") || strings.HasPrefix(w, "week") || w == "wk" || w == "hebdomadaire":
		return "week"
	case w == "mois" || strings.HasPrefix(w, "month") || w == "mo" || strings.HasPrefix(w, "mensu"):
		return "month"
	case strings.HasPrefix(w, "an") || w == "année" || strings.HasPrefix(w, "year") || w == "yr" || strings.HasPrefix(w, "annu"):
		return "year"
	}
	return ""
}

// unitPeriod maps schema.org unitText and UN/CEFACT unitCode values.
func unitPeriod(unit string) string {
	u := strings.TrimSpace(unit)
	switch strings.ToUpper(u) {
	case "HUR":
		return "hour"
	case "DAY":
		return "day"
	case "WEE":
		return "week"
	case "MON":
		return "month"
	case "ANN":
		return "year"
	case "":
		return ""
	}
	// ISO 8601 billingDuration: P1M, P1Y, P1D, P1W, PT1H.
	switch strings.ToUpper(u) {
	case "P1M":
		return "month"
	case "P1Y":
		return "year"
	case "P1D":
		return "day"
	case "P1W":
		return "week"
	case "PT1H":
		return "hour"
	}
	if m := unitWord.FindStringSubmatch(u); m != nil {
		return periodOf(m[1])
	}
	return ""
}
