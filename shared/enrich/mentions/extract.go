package mentions

import (
	"regexp"
	"strings"
)

// field names a column a label gives.
type field int

const (
	fRaison field = iota
	fForme
	fCapital
	fRCS
	fAdresse
	fDirigeant
	fTVA
	fNone
)

// labels maps a line's label to its field and rank (lower wins: "Raison
// sociale" beats "Éditeur", a manager beats the publication director).
var labels = []struct {
	re    *regexp.Regexp
	field field
	rank  int
}{
	{regexp.MustCompile(`(?i)^(raison sociale|d[ée]nomination(?: sociale)?|nom de (?:la soci[ée]t[ée]|l'entreprise)|company name|legal name)$`), fRaison, 0},
	{regexp.MustCompile(`(?i)^(soci[ée]t[ée]|entreprise|[ée]tablissement|cabinet|company)$`), fRaison, 1},
	{regexp.MustCompile(`(?i)^([ée]diteur(?: du site)?|[ée]dit[ée] par|propri[ée]taire(?: du site)?|publisher|published by|edited by|site owner|owner|titulaire)$`), fRaison, 2},
	{regexp.MustCompile(`(?i)^(nom commercial|enseigne|trade name)$`), fRaison, 3},
	{regexp.MustCompile(`(?i)^(forme juridique|statut(?: juridique)?|forme sociale|legal form|type de soci[ée]t[ée])$`), fForme, 0},
	{regexp.MustCompile(`(?i)^(capital(?: social)?|share capital)$`), fCapital, 0},
	{regexp.MustCompile(`(?i)^(rcs|r\.c\.s\.?|n° rcs|num[ée]ro rcs|registre du commerce.*|immatriculation|n° d'immatriculation|registration)$`), fRCS, 0},
	{regexp.MustCompile(`(?i)^(si[èe]ge(?: social)?|adresse(?: du si[èe]ge(?: social)?| postale| de l'[ée]diteur)?|registered office|head office|address|domiciliation|coordonn[ée]es postales)$`), fAdresse, 0},
	{regexp.MustCompile(`(?i)^(g[ée]rant(?:e)?|pr[ée]sident(?:e)?|dirigeant(?:e)?|repr[ée]sentant l[ée]gal|managing director|ceo|co-?g[ée]rants?)$`), fDirigeant, 0},
	{regexp.MustCompile(`(?i)^(directeu?r(?:ice)? de (?:la )?publication|responsable (?:de (?:la )?)?publication|directeur de la publication et de la r[ée]daction|publication director|responsable [ée]ditorial)$`), fDirigeant, 1},
	{regexp.MustCompile(`(?i)^(tva|n° (?:de )?tva.*|num[ée]ro (?:de )?tva.*|tva intra.*|vat.*|identifiant tva)$`), fTVA, 0},
}

// knownLabelRe is any label worth stopping a value's continuation at.
var knownLabelRe = regexp.MustCompile(`(?i)^(siret|siren|t[ée]l[ée]phone|t[ée]l|tel|phone|fax|e-?mail|courriel|mail|site|site web|url|code (?:naf|ape)|naf|ape|h[ée]bergeur|contact)\b`)

var (
	civilityRe = regexp.MustCompile(`^(?:M\.|Mr\.?|Mrs\.?|Ms\.?|Mme\.?|Mlle\.?|Monsieur|Madame|Mademoiselle|Maître|Me|Dr\.?|Docteur)\s+`)
	nameCutRe  = regexp.MustCompile(`(?i)\s*(?:,|\(|\s[–—|-]\s| en (?:sa )?qualit[ée]| joignable| contact| tél| tel| e-?mail| : | g[ée]rant| pr[ée]sident| dirigeant| directeur| agissant).*$`)
	personRe   = regexp.MustCompile(`^\p{Lu}[\p{L}'’\-]+(?:\s+(?:de |du |le |la |d')?\p{Lu}[\p{L}'’\-]+){1,3}$`)

	raisonCutRe  = regexp.MustCompile(`(?i)\s*(?:,|\(|\s[–—|-]\s| au capital| immatricul| dont | situ[ée]| sise?\b| domicili| siret| rcs\b| r\.c\.s| inscrit| repr[ée]sent| sous le| ayant| enregistr| est | exploit).*$`)
	raisonLeadRe = regexp.MustCompile(`(?i)^(?:la soci[ée]t[ée]|l'entreprise|le cabinet|l'association|l'[ée]tablissement|the company)\s+`)
	raisonInRe   = regexp.MustCompile(`(?i)(?:la soci[ée]t[ée]|l'entreprise|le cabinet|l'association|[ée]dit[ée] par|propri[ée]t[ée] de|exploit[ée] par|published by|operated by)\s+(?:la soci[ée]t[ée]\s+|l'entreprise\s+)?([\p{Lu}\d«"][^,(\n]{1,80})`)

	dirigeantInRe    = regexp.MustCompile(`(?i:repr[ée]sent[ée]e? par|g[ée]rant(?:e)?\s*:|pr[ée]sident(?:e)?\s*:|directeu?r(?:ice)? de (?:la )?publication\s*(?:est\s*)?:?|responsable de (?:la )?publication\s*:?)\s*((?:M\.|Mme|Monsieur|Madame|Mr|Maître)?\s*\p{Lu}[\p{L}'’\-]+(?:\s+\p{Lu}[\p{L}'’\-]+){1,3})`)
	dirigeantAfterRe = regexp.MustCompile(`((?:M\.|Mme|Monsieur|Madame)?\s*\p{Lu}[\p{L}'’\-]+(?:\s+\p{Lu}[\p{L}'’\-]+){1,2}),\s*(?:g[ée]rant|pr[ée]sident|dirigeant|fondat)`)

	addrLeadRe   = regexp.MustCompile(`(?i)(?:si[èe]ge(?: social)?(?: est)?(?: situ[ée]| [ée]tabli| fix[ée])?|situ[ée]e?|domicili[ée]e?|sise?|adresse|install[ée]e?|located at)\s*(?:au|à|a|:|en|at)?\s+`)
	streetAddrRe = regexp.MustCompile(`\b\d{1,4}(?:\s?(?i:bis|ter))?,?\s+(?i:rue|avenue|av\.|boulevard|bd|chemin|place|all[ée]e|impasse|route|quai|cours|faubourg|square|passage|lieu-dit|za|zi|zac)\b[^\n]{0,80}?\b\d{5}\s+\p{Lu}`)
	postcodeRe   = regexp.MustCompile(`\b\d{5}\s+\p{Lu}`)
	streetRe     = regexp.MustCompile(`(?i)\d|\b(?:rue|avenue|av\.|bd|boulevard|chemin|place|all[ée]e|impasse|route|quai|cours|za|zi|zac|lieu-dit|hameau|bp|cs|parc|r[ée]sidence|lotissement|square|passage|faubourg|mail)\b`)
	cityWordRe   = regexp.MustCompile(`^(?:\p{Lu}[\p{L}'’\-]*|sur|sous|en|le|la|les|de|du|des|lès|lez|aux|d'\p{L}+|l'\p{L}+|\d{1,2})$`)
	cityStop     = map[string]bool{"Tél": true, "Tel": true, "Tél.": true, "Téléphone": true, "Fax": true, "France": true, "Email": true, "E-mail": true, "Mail": true, "SIRET": true, "Siret": true, "RCS": true, "Capital": true, "Contact": true, "Courriel": true, "TVA": true, "Portable": true, "Mobile": true, "Phone": true, "N°": true, "Directeur": true, "Gérant": true, "Ouvert": true, "Du": true, "Horaires": true}
)

// extract reads the publisher's lines into a Result: labelled lines first,
// then the phrases of running text for what they left empty.
func extract(lines []string) Result {
	var r Result
	vals := make([]string, fNone)
	ranks := make([]int, fNone)
	for i := range ranks {
		ranks[i] = 1 << 30
	}
	for i, l := range lines {
		label, value, ok := splitLabel(l)
		if !ok {
			continue
		}
		f, rank := labelField(label)
		if f == fNone {
			continue
		}
		if value == "" {
			value = continuation(lines[i+1:], f == fAdresse)
		} else if f == fAdresse && !postcodeRe.MatchString(value) {
			// "Siège : 12 rue des Lilas" with the town on the next line.
			value = strings.TrimSpace(value + ", " + continuation(lines[i+1:], true))
		}
		v := normalise(f, value)
		if v != "" && rank < ranks[f] {
			vals[f], ranks[f] = v, rank
		}
	}
	text := strings.Join(lines, "\n")
	utext := undot(text)
	if vals[fForme] == "" {
		vals[fForme], _ = findForm(utext)
	}
	if vals[fCapital] == "" {
		vals[fCapital] = capital(text)
	}
	if vals[fRCS] == "" || !strings.ContainsAny(vals[fRCS], "0123456789") {
		if v := rcs(text); v != "" {
			vals[fRCS] = v
		}
	}
	if vals[fTVA] == "" {
		vals[fTVA] = tva(text)
	}
	if vals[fRaison] == "" {
		if m := raisonInRe.FindStringSubmatch(utext); m != nil {
			vals[fRaison] = cleanRaison(m[1])
		}
	}
	if vals[fDirigeant] == "" {
		if m := dirigeantInRe.FindStringSubmatch(text); m != nil {
			vals[fDirigeant] = cleanPerson(m[1])
		} else if m := dirigeantAfterRe.FindStringSubmatch(text); m != nil {
			vals[fDirigeant] = cleanPerson(m[1])
		}
	}
	if vals[fAdresse] == "" {
		vals[fAdresse] = addressInText(lines)
	}
	r.RaisonSociale = vals[fRaison]
	r.FormeJuridique = vals[fForme]
	r.CapitalSocial = vals[fCapital]
	r.RCS = vals[fRCS]
	r.AdressePostale = vals[fAdresse]
	r.Dirigeant = vals[fDirigeant]
	r.TVAIntracom = vals[fTVA]
	return r
}

// splitLabel cuts "Label : value" (the label short, no address's colon).
func splitLabel(l string) (label, value string, ok bool) {
	i := strings.IndexAny(l, ":")
	if i <= 0 || i > 60 || strings.HasPrefix(l[i:], "://") {
		return "", "", false
	}
	label = strings.TrimSpace(strings.Trim(strings.TrimSpace(l[:i]), "•-–*"))
	label = strings.TrimSpace(strings.TrimPrefix(label, "Le "))
	return label, strings.TrimSpace(l[i+1:]), true
}

func labelField(label string) (field, int) {
	label = strings.Join(strings.Fields(label), " ")
	for _, lb := range labels {
		if lb.re.MatchString(label) {
			return lb.field, lb.rank
		}
	}
	return fNone, 0
}

// continuation is the value written on the lines after a bare label: one
// line, or for an address the lines up to its town.
func continuation(rest []string, address bool) string {
	var parts []string
	for _, l := range rest {
		if l == "" || len(parts) >= 4 {
			break
		}
		if label, _, ok := splitLabel(l); ok {
			if f, _ := labelField(label); f != fNone || knownLabelRe.MatchString(label) {
				break
			}
		}
		if knownLabelRe.MatchString(l) {
			break
		}
		parts = append(parts, l)
		if !address || postcodeRe.MatchString(l) {
			break
		}
	}
	return strings.Join(parts, ", ")
}

func normalise(f field, v string) string {
	switch f {
	case fRaison:
		return cleanRaison(undot(v))
	case fForme:
		form, _ := findForm(undot(v))
		return form
	case fCapital:
		if c := capital("capital " + v); c != "" {
			return c
		}
		return capital(v)
	case fRCS:
		if r := rcs(v); r != "" {
			return r
		}
		if r := rcs("RCS " + v); r != "" {
			return r
		}
		if d := digits(v); len(d) >= 9 {
			return "RCS " + d[:9]
		}
		return ""
	case fAdresse:
		return cleanAddress(v)
	case fDirigeant:
		return cleanPerson(v)
	case fTVA:
		return tva(strings.ToUpper(v))
	}
	return ""
}

func cleanRaison(v string) string {
	v = strings.TrimSpace(raisonLeadRe.ReplaceAllString(strings.TrimSpace(v), ""))
	v = raisonCutRe.ReplaceAllString(v, "")
	v = strings.Trim(v, " .;«»\"")
	v = stripForm(v)
	v = strings.TrimSpace(raisonLeadRe.ReplaceAllString(v, ""))
	if len([]rune(v)) < 2 || len(v) > 90 {
		return ""
	}
	return v
}

func cleanPerson(v string) string {
	v = strings.TrimSpace(v)
	v = nameCutRe.ReplaceAllString(v, "")
	for {
		t := civilityRe.ReplaceAllString(v, "")
		if t == v {
			break
		}
		v = t
	}
	v = strings.Trim(v, " .;")
	if !personRe.MatchString(v) {
		return ""
	}
	return v
}

// cleanAddress keeps the address from its street to its town, one line.
func cleanAddress(v string) string {
	v = spaceRe.ReplaceAllString(strings.TrimSpace(v), " ")
	// Leading parts with no street (a company name repeated) go.
	parts := strings.Split(v, ", ")
	for len(parts) > 1 && !streetRe.MatchString(parts[0]) {
		parts = parts[1:]
	}
	v = strings.Join(parts, ", ")
	loc := postcodeRe.FindStringIndex(v)
	if loc == nil {
		return strings.Trim(v, " ,.")
	}
	head := v[:loc[0]+5]
	words := strings.Fields(v[loc[0]+5:])
	var town []string
	for _, w := range words {
		w2 := strings.TrimRight(w, ".,;")
		if cityStop[w2] || !cityWordRe.MatchString(w2) {
			break
		}
		town = append(town, w2)
		if w2 != w {
			break
		}
	}
	for len(town) > 1 && !startsUpper(town[len(town)-1]) && !isCedexNum(town) {
		town = town[:len(town)-1]
	}
	return strings.Trim(head, " ,") + " " + strings.Join(town, " ")
}

func startsUpper(w string) bool {
	for _, r := range w {
		return r >= 'A' && r <= 'Z' || strings.ContainsRune("ÉÈÊÀÂÎÔÛÇ", r)
	}
	return false
}

func isCedexNum(town []string) bool {
	return len(town) >= 2 && strings.EqualFold(town[len(town)-2], "cedex")
}

// addressInText finds "dont le siège est situé 12 rue ... 69003 Lyon" in
// running text.
func addressInText(lines []string) string {
	for _, l := range lines {
		for _, m := range addrLeadRe.FindAllStringIndex(l, -1) {
			rest := l[m[1]:]
			pc := postcodeRe.FindStringIndex(rest)
			if pc == nil || pc[0] > 120 {
				continue
			}
			if a := cleanAddress(rest); streetRe.MatchString(a) {
				return a
			}
		}
	}
	// No lead word: the first street address written anywhere.
	for _, l := range lines {
		if m := streetAddrRe.FindStringIndex(l); m != nil {
			return cleanAddress(l[m[0]:])
		}
	}
	return ""
}
