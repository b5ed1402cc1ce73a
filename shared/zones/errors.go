package zones

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/gazetteer"
)

// The reasons a zone is refused. Resolve returns an *apperr.Error with code
// apperr.Invalid (HTTP 400) whose cause is a *ZoneError wrapping one of
// these, so callers can test errors.Is(err, zones.ErrUnknown) or read the
// suggestion with errors.As.
var (
	ErrCountry      = errors.New("zones: unknown country")
	ErrEmpty        = errors.New("zones: empty zone")
	ErrTooLong      = errors.New("zones: zone too long")
	ErrNoName       = errors.New("zones: zone without letters or digits")
	ErrUnknown      = errors.New("zones: unknown zone")
	ErrOtherCountry = errors.New("zones: zone names another country")
	ErrRadius       = errors.New("zones: radius out of bounds")
	ErrRadiusTarget = errors.New("zones: radius on a zone that is not a city")
	ErrINSEE        = errors.New("zones: INSEE code outside France")
)

// ZoneError is the cause of a refused zone: the zone as written, the
// request's country (alpha-3, empty when the country itself is unknown),
// the suggestion when there is one, and the reason.
type ZoneError struct {
	Zone       string
	Country    string
	Suggestion string
	Reason     error
}

func (e *ZoneError) Error() string {
	msg := fmt.Sprintf("%v: %q in %s", e.Reason, e.Zone, e.Country)
	if e.Suggestion != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", e.Suggestion)
	}
	return msg
}

func (e *ZoneError) Unwrap() error { return e.Reason }

// refuse builds the error Resolve returns.
func refuse(reason error, zone, country, suggestion, fr, en string) error {
	return apperr.New(apperr.Invalid, fr, en).Wrap(&ZoneError{
		Zone: zone, Country: country, Suggestion: suggestion, Reason: reason,
	})
}

// echo is a zone as quoted back in a message: valid UTF-8, no control
// characters, cut to maxRunes, so a hostile input cannot garble the reply.
func echo(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxRunes {
			b.WriteString("…")
			break
		}
		if unicode.IsControl(r) {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimSpace(b.String())
}

func errCountry(country string) error {
	c := echo(country)
	return refuse(ErrCountry, country, "", "",
		fmt.Sprintf("Pays inconnu « %s » : donnez son code ISO 3166 alpha-3, par exemple FRA.", c),
		fmt.Sprintf("Unknown country %q: give its ISO 3166 alpha-3 code, for example FRA.", c))
}

func errEmpty(country string) error {
	return refuse(ErrEmpty, "", country, "", "Zone vide.", "Empty zone.")
}

func errTooLong(zone, country string, runes int) error {
	return refuse(ErrTooLong, zone, country, "",
		fmt.Sprintf("Zone trop longue (%d caractères, %d au plus).", runes, maxRunes),
		fmt.Sprintf("Zone too long (%d characters, at most %d).", runes, maxRunes))
}

func errNoName(zone, country string) error {
	z := echo(zone)
	return refuse(ErrNoName, zone, country, "",
		fmt.Sprintf("Zone « %s » sans lettre ni chiffre.", z),
		fmt.Sprintf("Zone %q has no letter or digit.", z))
}

func errRadius(zone, country string, km float64) error {
	z, r := echo(zone), formatKm(km)
	return refuse(ErrRadius, zone, country, "",
		fmt.Sprintf("Zone « %s » : rayon de %s km hors limites (de %s à %s km).", z, strings.ReplaceAll(r, ".", ","), formatKm(MinRadiusKm), formatKm(MaxRadiusKm)),
		fmt.Sprintf("Zone %q: radius %s km out of bounds (%s to %s km).", z, r, formatKm(MinRadiusKm), formatKm(MaxRadiusKm)))
}

func errRadiusTarget(zone, country string, kind gazetteer.Kind, name string) error {
	z := echo(zone)
	if name == "" {
		return refuse(ErrRadiusTarget, zone, country, "",
			fmt.Sprintf("Zone « %s » : un rayon s'applique à une ville, écrivez « <ville> <n>km ».", z),
			fmt.Sprintf("Zone %q: a radius applies to a city, write \"<city> <n>km\".", z))
	}
	return refuse(ErrRadiusTarget, zone, country, "",
		fmt.Sprintf("Zone « %s » : un rayon ne s'applique qu'à une ville, et %s est %s.", z, name, kindFR(kind, true)),
		fmt.Sprintf("Zone %q: a radius applies only to a city, and %s is %s.", z, name, kindEN(kind, true)))
}

func errINSEE(zone, country string) error {
	z := echo(zone)
	return refuse(ErrINSEE, zone, country, "",
		fmt.Sprintf("Zone « %s » : les codes INSEE n'existent qu'en France (FRA).", z),
		fmt.Sprintf("Zone %q: INSEE codes exist only in France (FRA).", z))
}

func errOtherCountry(zone string, req, other *gazetteer.Place) error {
	z := echo(zone)
	return refuse(ErrOtherCountry, zone, req.Code, "",
		fmt.Sprintf("La zone « %s » est un autre pays (%s, %s) que celui de la demande (%s, %s) : choisissez le pays %s pour le cibler.",
			z, countryFR(other), other.Code, countryFR(req), req.Code, other.Code),
		fmt.Sprintf("Zone %q is another country (%s, %s) than the request's (%s, %s): set country to %s to scrape it.",
			z, countryEN(other), other.Code, countryEN(req), req.Code, other.Code))
}

// unknown gathers what the message of an unrecognised zone says beyond
// its name: the suggestion, a place of that name in another country, the
// arrondissements a city has.
type unknown struct {
	suggestion string
	elsewhere  *gazetteer.Place // the country where the name exists
	districts  *districtHint
}

type districtHint struct {
	city     string
	min, max int
}

func errUnknown(zone string, country *gazetteer.Place, u unknown) error {
	z := echo(zone)
	fr := fmt.Sprintf("Zone inconnue « %s » (%s).", z, countryFR(country))
	en := fmt.Sprintf("Unknown zone %q in %s.", z, countryEN(country))
	if h := u.districts; h != nil {
		fr += fmt.Sprintf(" %s a les arrondissements %d à %d.", h.city, h.min, h.max)
		en += fmt.Sprintf(" %s has arrondissements %d to %d.", h.city, h.min, h.max)
	}
	if s := echo(u.suggestion); s != "" {
		fr += fmt.Sprintf(" Vouliez-vous dire « %s » ?", s)
		en += fmt.Sprintf(" Did you mean %q?", s)
	}
	if c := u.elsewhere; c != nil {
		fr += fmt.Sprintf(" « %s » existe dans un autre pays : %s (%s).", z, countryFR(c), c.Code)
		en += fmt.Sprintf(" %q exists in another country: %s (%s).", z, countryEN(c), c.Code)
	}
	return refuse(ErrUnknown, zone, country.Code, u.suggestion, fr, en)
}

// formatKm writes a radius the shortest way: "15", "2.5".
func formatKm(km float64) string { return strconv.FormatFloat(km, 'f', -1, 64) }

// Kind names in messages, with the article when a sentence needs one.
var (
	kindNamesFR = [...]string{gazetteer.Country: "pays", gazetteer.Region: "région", gazetteer.Department: "département", gazetteer.City: "ville", gazetteer.District: "arrondissement"}
	kindNamesEN = [...]string{gazetteer.Country: "country", gazetteer.Region: "region", gazetteer.Department: "department", gazetteer.City: "city", gazetteer.District: "arrondissement"}
	articlesFR  = [...]string{gazetteer.Country: "un ", gazetteer.Region: "une ", gazetteer.Department: "un ", gazetteer.City: "une ", gazetteer.District: "un "}
)

func kindFR(k gazetteer.Kind, article bool) string {
	if int(k) >= len(kindNamesFR) || kindNamesFR[k] == "" {
		return k.String()
	}
	if article {
		return articlesFR[k] + kindNamesFR[k]
	}
	return kindNamesFR[k]
}

func kindEN(k gazetteer.Kind, article bool) string {
	if int(k) >= len(kindNamesEN) || kindNamesEN[k] == "" {
		return k.String()
	}
	if !article {
		return kindNamesEN[k]
	}
	if strings.ContainsRune("aeiou", rune(kindNamesEN[k][0])) {
		return "an " + kindNamesEN[k]
	}
	return "a " + kindNamesEN[k]
}

// countryFR and countryEN name a country in messages. The gazetteer names
// a country in French and lists other names as unordered aliases, so the
// English name comes from CLDR's display names (golang.org/x/text), the
// source GET /api/countries uses too; the gazetteer's name is the fallback.
func countryFR(c *gazetteer.Place) string { return countryName(c, display.French.Regions()) }

func countryEN(c *gazetteer.Place) string { return countryName(c, display.English.Regions()) }

func countryName(c *gazetteer.Place, names display.Namer) string {
	if r, err := language.ParseRegion(c.Code); err == nil {
		if n := names.Name(r); n != "" {
			return n
		}
	}
	return c.Name
}
