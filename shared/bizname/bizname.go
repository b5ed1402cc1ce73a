// Package bizname holds the words business names are compared without:
// legal forms and company words ("SARL", "Ets") and articles, shared by
// every matcher of a listing's name against another source's (the
// company registers, OpenStreetMap).
package bizname

import "strings"

var legal = set("sarl sarlu sas sasu eurl sa sci snc scs sca scp scm selarl selas selafa selca scop scic sccv scea " +
	"ei eirl earl gaec gie sem aarpi spfpl societe soc ste ets etablissement etablissements entreprise ent cie " +
	"gmbh ag ug kg ohg ltd llc inc bv nv srl sprl sl spa")

var stop = set("le la les l de du des d et a au aux en sur un une chez the and of")

func set(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// Legal tells whether a normalised word is a legal form or a company word
// that says nothing of which business it is.
func Legal(w string) bool { return legal[w] }

// Stop tells whether a normalised word is an article or a preposition
// (French and English).
func Stop(w string) bool { return stop[w] }
