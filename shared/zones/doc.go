// Package zones reads the zones of a scrape request ("Lyon 15km",
// "Bretagne", "75011", "Saint-Denis (93)") against the gazetteer, for the
// request's country, and suggests the closest known name for a zone it
// does not recognise.
//
// A Resolver wraps one *gazetteer.Gazetteer; Resolve(country, zone)
// returns a Zone (its places, label, shape, the polygons that clip a disc
// to land, department and region) or an *apperr.Error of code
// apperr.Invalid (HTTP 400) with a French and an English message, whose
// cause is a *ZoneError (errors.Is against ErrUnknown, ErrOtherCountry...;
// errors.As for the suggestion).
//
// # Input
//
// The country is an ISO 3166-1 alpha-3 or alpha-2 code in any case;
// empty means DefaultCountry (FRA). An unknown country is ErrCountry.
//
// A zone is at most 200 characters (ErrTooLong), not blank (ErrEmpty) and
// has a letter or digit (ErrNoName). It is folded with NFKC ("11ᵉ" is
// "11e", "㎞" is "km"), stripped of surrounding spaces, quotes and
// punctuation, and names are compared in gazetteer.Normalize form: case,
// accents, hyphens, apostrophes and "St"/"Ste" for "Saint"/"Sainte" do
// not matter. No input panics (FuzzResolve).
//
// # Forms
//
// The readings below are tried in this order; the first that names a
// place wins.
//
//  1. An explicit INSEE code (France only, else ErrINSEE).
//  2. A lone code: in France a postal code, then an INSEE code, then a
//     department number (see Codes); elsewhere an ISO 3166-2 code
//     ("DE-BY", "US-NY", "ES-B").
//  3. A name or alias of any place of the country, in any language the
//     gazetteer has: the country itself ("France"; "Allemagne" with
//     country DEU: the whole country), a region or state ("Bretagne",
//     "Bavière", "Bavaria", "Bayern"), a department, county or province
//     ("Rhône", "Finistère"), a city ("Lyon", "München", "Munich"), an
//     arrondissement by its full name. In France, also an arrondissement
//     by number: "Paris 11e", "Paris 11", "Paris 11ème", "Paris XIe",
//     "Lyon 1er", "Marseille 8e arrondissement", "11e arrondissement de
//     Paris". A bare number after a city with arrondissements is an
//     arrondissement: "Marseille 13" is the 13th, "Marseille (13)" the
//     city in department 13. Also in France, a region merged away in 2016
//     ("Alsace", "Bourgogne", "Midi-Pyrénées", "Rhône-Alpes"...): the zone
//     is its departments (Kind Department, Label the region's name), unless
//     a current region, department or country has that name.
//  4. A name with a qualifier choosing among the places of that name:
//     "<name> (<qualifier>)", "<name>, <qualifier>", and in France
//     "<name> <code>" and "<code> <name>" with a department number or
//     postal code. The qualifier is a department number, a postal code,
//     an ISO 3166-2 code or any place's name: "Saint-Denis 93",
//     "Saint-Denis (974)", "Saint-Denis, Seine-Saint-Denis",
//     "Vienne (Isère)", "93200 Saint-Denis". The places kept are those
//     inside a qualifier place; failing any, the qualifier place itself
//     ("Vienne (86)" is the department, "Mayenne (53)" the city). A
//     postal code qualifier keeps its places inside the named city:
//     "Paris 75011" and "75011 Paris" are the 11th arrondissement.
//     Parentheses always hold a qualifier: "Paris (11)" is Paris in the
//     Aude, which does not exist (the suggestion offers "Paris 11e").
//
// # Codes (France)
//
//   - Five digits are a postal code; when no place has it, an INSEE code.
//     So "69001" is Lyon 1er (its postal code), not Affoux (INSEE code
//     69001): "INSEE 69001", "insee:69001" or "code INSEE 69001" reach
//     Affoux, and an explicit INSEE code is read as nothing else.
//   - A postal code shared by several communes is all of them
//     (Zone.Places, most populous first); one given both to a city and to
//     its arrondissement means the arrondissement.
//   - Four digits get back the leading zero a spreadsheet drops: "1000"
//     is "01000".
//   - "2A004", "2B033": Corsican INSEE codes.
//   - Department numbers: "69", "01", "2A", "2b", "971" to "976"; a single
//     digit is its two-digit code ("1" is Ain, "01"); also after "dép",
//     "dept", "département". Region numbers are not read: they collide
//     with department numbers. "20", Corsica's number until 1976, is
//     refused with the region Corse suggested.
//
// # Radius
//
// "<zone> <n>km" puts a disc of n km around the centre of a city or
// arrondissement, replacing the place's own disc: "Lyon 15km",
// "Lyon 15 km", "Lyon, 15km", "Lyon 2.5km", "Lyon 2,5 km", also "kms",
// "kilomètres" and any case. The radius is from MinRadiusKm to
// MaxRadiusKm (1 to 100 km) inclusive, else ErrRadius. The number is
// taken as long as it can be, a comma between digits being a decimal
// comma: "Paris 11,5km" is 11.5 km around Paris; write "Paris 11e 5km"
// for the arrondissement. With a radius only cities and arrondissements
// are candidates ("Vienne 10km" is around the city of Isère, not the
// department); a postal code's disc is around its most populous commune;
// a region, department or country with a radius is ErrRadiusTarget.
//
// # Ambiguity
//
// When several places of the country share the name (after qualifiers):
//
//  1. A country name means the whole country.
//  2. Otherwise the most populous place wins (ties: the gazetteer's
//     order): "Vienne" is the department (86) rather than the commune of
//     Isère; "Saint-Denis" the one of La Réunion, larger than the one of
//     Seine-Saint-Denis. A region or department whose population the
//     gazetteer does not have (outside France) is ranked as if it had 100
//     people per km²: "Delaware" is the state, not the town in Ohio;
//     "London" the city, not the 3 km² City of London.
//  3. But a place of the same name inside the winner, holding at least a
//     quarter of its population (or any, when the winner's population is
//     an estimate), wins over it, and so on down: the city people mean by
//     "Paris" (the department has the same people), "New York" (the
//     state), "Barcelona" (the province), "Madrid" (the community, then
//     the province); not "Mayenne", a town of 13,000 in a department of
//     307,000.
//
// The Zone records the rule applied (Rule) and the other places with a
// zone string that names each (Alternatives: "Vienne (38)", "75",
// "US-NY"); Zone.Ambiguity words it for the user in French and English.
//
// # Unknown zones and suggestions
//
// A zone no reading matches is refused. When it names another country
// than the request's, the error is ErrOtherCountry and says which code to
// set. Otherwise it is ErrUnknown: "Unknown zone "Pari" in France. Did you
// mean "Paris"?" / "Zone inconnue « Pari » (France). Vouliez-vous dire
// « Paris » ?", adding the arrondissements a city has ("Lyon 12e"). When
// the name exists as such in another country, the message names that
// country instead of suggesting a near name here ("Barcelone" in France:
// Spain, not the commune Barcelonne).
//
// The suggestion is the name closest to the input (to its name part, for
// the qualifier and arrondissement forms) by optimal string alignment
// distance (Levenshtein with adjacent transpositions) on normalised
// names, within 1 edit for inputs of 3 or 4 letters, 2 up to 8, 3 beyond,
// none under 3. Among equally close names the most populous place wins.
// It is written in the spelling it matched ("Bavière" for "Bavierre"),
// with a qualifier when that spelling would name another place
// ("Vienne (38) 5 km" for "Viene 5km"), and keeps the input's radius: it
// is always a zone Resolve accepts. A qualifier that does not fit an
// existing name suggests the name alone ("Lyon (75)": "Lyon"). Former
// French regions are suggested too ("Alsac": "Alsace"); between equally
// close suggestions the most populous place wins.
//
// The search walks the country's sorted names as an implicit trie,
// sharing the distance rows of common prefixes and skipping every name
// under a prefix already too far, first within 1 edit, then 2, then 3: no
// index to build, tens of microseconds for a typo over 60,000 names, about
// 0.1 ms when no name is close (BenchmarkSuggest).
package zones
