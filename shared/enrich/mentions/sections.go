package mentions

import (
	"regexp"
	"sort"
	"strings"
)

// section says whose details a stretch of the notice gives.
type section int

const (
	publisher section = iota // the business: éditeur, propriétaire
	host                     // the hosting company (hébergeur)
	credits                  // the web agency, photographers
	other                    // cookies, intellectual property, mediator...
)

// Heading keywords: a heading naming the topic opens its section.
var (
	hostHeadRe      = regexp.MustCompile(`(?i)h[ée]berg\p{L}*|hosting|\bhost\b|hosted`)
	creditsHeadRe   = regexp.MustCompile(`(?i)r[ée]alisation|conception|cr[ée]dits?|webmaster|cr[ée]ation du site|d[ée]veloppement|design|made by|agence`)
	publisherHeadRe = regexp.MustCompile(`(?i)[ée]dit|propri[ée]taire|publication|soci[ée]t[ée]|entreprise|identit|identification|informations? l[ée]gales|mentions? l[ée]gales|pr[ée]sentation|publisher|owner|company|legal notice`)
	otherHeadRe     = regexp.MustCompile(`(?i)propri[ée]t[ée] intellectuelle|donn[ée]es|cookies?|rgpd|cnil|responsabilit[ée]|liens?|droit applicable|litiges?|conditions|m[ée]diat(?:eur|ion)|intellectual property|privacy|personal data|limitation|accessibilit[ée]`)
)

// In-line keywords: stricter, since a plumber's notice may speak of
// "conception" of kitchens or a gîte of "hébergement" touristique.
var (
	hostKW      = regexp.MustCompile(`(?i)h[ée]berg[ée] (?:par|chez)|h[ée]bergeur|h[ée]bergement (?:du site|web|:)|hosted by|hosting provider|\bhost\s?:`)
	creditsKW   = regexp.MustCompile(`(?i)r[ée]alis[ée] par|r[ée]alisation (?:du site|:)|conception (?:du site|graphique|et r[ée]alisation|:)|site (?:internet |web )?(?:r[ée]alis[ée]|con[çc]u|cr[ée][ée]) par|cr[ée][ée] par|d[ée]velopp[ée] par|design(?:ed)? by|made by|website by|webmaster\s?:|cr[ée]dits? (?:photos?|:)|agence web`)
	publisherKW = regexp.MustCompile(`(?i)[ée]dit[ée] par|[ée]diteur|[ée]dition du site|propri[ée]taire du site|directeu?r(?:ice)? de (?:la )?publication|responsable (?:de (?:la )?)?publication|raison sociale|d[ée]nomination|edited by|published by|publisher\s?:`)
	// mediatorKW opens a clause about the consumer mediator, whose address
	// is not the publisher's.
	mediatorKW = regexp.MustCompile(`(?i)m[ée]diat(?:eur|ion) de la consommation|m[ée]diateur|consumer mediat`)
	otherKW    = regexp.MustCompile(`(?i)^(?:propri[ée]t[ée] intellectuelle|donn[ée]es personnelles|cookies?|rgpd|cnil|liens? hypertextes?|droit applicable|intellectual property|privacy|personal data)\b`)
)

// classify returns the section a heading or a section label opens, ok false
// when it names none of them.
func classify(s string) (section, bool) {
	switch {
	case hostHeadRe.MatchString(s):
		return host, true
	case creditsHeadRe.MatchString(s):
		return credits, true
	case publisherHeadRe.MatchString(s):
		return publisher, true
	case otherHeadRe.MatchString(s):
		return other, true
	}
	return publisher, false
}

// publisherLines keeps the stretches of text about the publisher. A heading
// opens a section; inside a line, a keyword (hébergé par, éditeur, réalisé
// par, médiateur) opens a clause that runs to the next keyword, and the last
// clause's section carries over to the following lines. Skipped stretches
// leave an empty line so a label's value never runs across them.
func publisherLines(lines []line) []string {
	var out []string
	cur := publisher
	gap := func() {
		if len(out) > 0 && out[len(out)-1] != "" {
			out = append(out, "")
		}
	}
	for _, l := range lines {
		if l.heading || titleLike(l.text) {
			s, ok := classify(l.text)
			if !ok {
				s = publisher
			}
			cur = s
			gap()
			if !l.heading && s == publisher {
				// "Éditeur du site :" on its own line labels what follows.
				out = append(out, l.text)
			}
			continue
		}
		for _, seg := range segments(l.text, cur) {
			cur = seg.kind
			if seg.kind == publisher {
				if t := strings.TrimSpace(seg.text); t != "" {
					out = append(out, t)
				}
			} else {
				gap()
			}
		}
	}
	return out
}

type segment struct {
	text string
	kind section
}

// segments cuts a line at each section keyword.
func segments(t string, cur section) []segment {
	type cut struct {
		at   int
		kind section
	}
	var cuts []cut
	for _, kw := range []struct {
		re   *regexp.Regexp
		kind section
	}{{hostKW, host}, {creditsKW, credits}, {publisherKW, publisher}, {mediatorKW, other}} {
		for _, m := range kw.re.FindAllStringIndex(t, -1) {
			cuts = append(cuts, cut{m[0], kw.kind})
		}
	}
	// A short line naming another topic ("Cookies", "Propriété
	// intellectuelle :") is a section title written as plain text.
	if len(t) <= 60 {
		if otherKW.MatchString(t) {
			cuts = append(cuts, cut{0, other})
		}
	}
	if len(cuts) == 0 {
		return []segment{{t, cur}}
	}
	sort.SliceStable(cuts, func(i, j int) bool { return cuts[i].at < cuts[j].at })
	var out []segment
	if cuts[0].at > 0 {
		out = append(out, segment{t[:cuts[0].at], cur})
	}
	for i, c := range cuts {
		end := len(t)
		if i+1 < len(cuts) {
			end = cuts[i+1].at
		}
		out = append(out, segment{t[c.at:end], c.kind})
	}
	return out
}

// titleLike reports whether a plain line is a section title in disguise
// ("<p><strong>Hébergement</strong></p>", "Éditeur du site :"): short, no
// digits, no value after a colon, and naming a section.
func titleLike(t string) bool {
	if len(t) > 40 || strings.ContainsAny(t, "0123456789") {
		return false
	}
	if i := strings.Index(t, ":"); i >= 0 && strings.TrimSpace(t[i+1:]) != "" {
		return false
	}
	_, ok := classify(t)
	return ok
}
