package sim

import (
	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// hasFrenchOutlines says whether gazetteerCommuneAt locates French points
// in commune outlines.
const hasFrenchOutlines = false

// gazetteerCommuneAt is the gazetteer's point location of communes.
func (w *World) gazetteerCommuneAt(country string, pt orb.Point) (gazetteer.ID, bool) {
	return gazetteer.None, false
}
