package prices

import (
	"regexp"
	"strconv"
	"strings"
)

// amountPattern is a written amount: "1 290,00", "1.290", "1,290.00",
// "49,90", "29.99", "49".
const amountPattern = `\d{1,3}(?:[ \x{00A0}\x{202F}.,]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`

// currencyBefore and currencyAfter are the currency marks written before
// or after an amount.
const (
	currencyBefore = `€|EUR|US\$|\$|USD|£|GBP|CHF|Fr\.`
	currencyAfter  = `€|EUR\b|euros?\b|\$|USD\b|£|GBP\b|CHF\b|francs?\b|Fr\.`
)

var (
	// price is an amount with its currency, before or after.
	price = regexp.MustCompile(`(?i)(?:(` + currencyBefore + `)\s?(` + amountPattern + `))|(?:(` + amountPattern + `)\s?(` + currencyAfter + `))`)
	// priceRange is "de 50 à 80 €", "entre 50 et 80 €", "50-80 €",
	// "50 € - 80 €", "between $95 and $140".
	priceRange = regexp.MustCompile(`(?i)(?:(` + currencyBefore + `)\s?)?(` + amountPattern + `)\s?(?:` + currencyAfter + `)?\s*(?:à|a|et|-|–|to|and)\s*(?:(` + currencyBefore + `)\s?)?(` + amountPattern + `)\s?(` + currencyAfter + `)?`)
	amountOnly = regexp.MustCompile(amountPattern)
	// pricingPath names a page about prices.
	pricingPath = regexp.MustCompile(`(?i)prix|tarif|pricing|price|honoraires|forfait|abonnement|plans|rates`)
)

// currencyCode maps a written currency mark to ISO 4217. "$" is read as
// USD: the service scrapes France and English-speaking countries where a
// bare "$" is the US dollar more often than not.
func currencyCode(mark string) string {
	m := strings.ToLower(strings.TrimSpace(mark))
	switch {
	case m == "€" || m == "eur" || strings.HasPrefix(m, "euro"):
		return "EUR"
	case m == "$" || m == "us$" || m == "usd":
		return "USD"
	case m == "£" || m == "gbp":
		return "GBP"
	case m == "chf" || m == "fr." || strings.HasPrefix(m, "franc"):
		return "CHF"
	}
	return ""
}

// cents reads a written amount. A separator followed by exactly three
// digits groups thousands; one followed by one or two digits at the end is
// the decimal mark.
func cents(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	intPart, frac := s, ""
	if i := strings.LastIndexAny(s, ".,"); i >= 0 && len(s)-i-1 <= 2 && len(s)-i-1 > 0 {
		intPart, frac = s[:i], s[i+1:]
	}
	var digits strings.Builder
	for _, r := range intPart {
		if r >= '0' && r <= '9' {
			digits.WriteRune(r)
		}
	}
	if digits.Len() == 0 || digits.Len() > 9 {
		return 0, false
	}
	whole, err := strconv.ParseInt(digits.String(), 10, 64)
	if err != nil {
		return 0, false
	}
	var f int64
	switch len(frac) {
	case 1:
		f = int64(frac[0]-'0') * 10
	case 2:
		f = int64(frac[0]-'0')*10 + int64(frac[1]-'0')
	}
	return whole*100 + f, true
}

// machineCents reads a schema.org price ("49", "49.00", 49.5), falling back
// to the written forms.
func machineCents(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 {
			return 0, false
		}
		return int64(f*100 + 0.5), true
	}
	if m := amountOnly.FindString(s); m != "" {
		return cents(m)
	}
	return 0, false
}
