package sim

import (
	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// A place's address, postcode and phone area follow from its coordinates:
// the commune that contains it (the gazetteer's point location), then the
// conventions of its country and region (conventions.go). The settlement a
// place is drawn in only says where to draw it.

// drawTries bounds the draws of a place's position: a draw that falls
// outside its settlement's commune (in a neighbour whose disc overlaps,
// or at sea) is drawn again, so that a commune's places are about its own
// people's worth and not its large neighbour's overflow; after drawTries
// misses the place sits at the settlement's centre, which is inside it.
const drawTries = 6

// communeAt is the commune (or municipal arrondissement) of country that
// contains pt, as the gazetteer locates it (Gazetteer.CommuneAt: in the
// outlines where it has them, else in the disc pt lies deepest in); false
// at sea or abroad.
func (w *World) communeAt(country string, pt orb.Point) (gazetteer.ID, bool) {
	return w.g.CommuneAt(country, pt)
}

// where is what a place's coordinates say of it.
type where struct {
	commune gazetteer.ID // the city or district containing it
	town    string       // the locality its address names
	conv    *localConv   // its country's and region's conventions
}

// whereIs locates a point of settlement s: the commune containing it, or s
// itself when none does (a position the draw could not keep inside, which
// drawTries makes the settlement's centre).
func (w *World) whereIs(s *settlement, pt orb.Point) where {
	id, ok := w.communeAt(s.country, pt)
	if !ok {
		id = s.id
	}
	conv := w.conventions(s.country, id)
	town := conv.town
	if town == "" {
		town = w.townOf(id)
	}
	return where{commune: id, town: town, conv: conv}
}

// townOf is the gazetteer's name of a city or district: a district's
// city's.
func (w *World) townOf(id gazetteer.ID) string {
	p := w.g.Place(id)
	if p.Kind == gazetteer.District {
		return w.g.Place(p.Parent).Name
	}
	return p.Name
}

// inSettlement tells whether a drawn position is kept for settlement s:
// its commune is s's.
func (w *World) inSettlement(s *settlement, pt orb.Point) bool {
	id, ok := w.communeAt(s.country, pt)
	return ok && id == s.id
}
