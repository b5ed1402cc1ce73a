package sim

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/provider"
)

// The world as the twins of outside sources read it. A twin lives beside
// its client (shared/registers/registerssim, shared/opendata/opendatasim)
// so that a binary importing the client does not link the world; the
// twins that answer from the world's own businesses (their legal
// identities, addresses, days) read it through a View. A View gives what
// they draw from and nothing that changes the world: every place is
// regenerated from its key, and the only state a View touches is what
// any reader of the world touches (the batch cache, the call counter of
// the transient failure draw).

// View is a read-only view of a World for the twins of outside sources.
// It is a value, safe for concurrent use.
type View struct{ w *World }

// View returns the world's read-only view.
func (w *World) View() View { return View{w} }

// Gazetteer is the world's gazetteer.
func (v View) Gazetteer() *gazetteer.Gazetteer { return v.w.g }

// Call is what a twin's request goes through first, as every call of the
// map: the world's latency, then its transient failure draw (an error
// wrapping provider.ErrTransient), named what in the error.
func (v View) Call(ctx context.Context, what string) error { return v.w.call(ctx, what) }

// Calls is the number of calls the world has answered so far (map and
// twins together): a twin may vary how it fails by it.
func (v View) Calls() uint64 { return v.w.calls.Load() }

// Day is the world's current day (days since day 0).
func (v View) Day(ctx context.Context) (int, error) { return v.w.day(ctx) }

// Date is the calendar date (midnight UTC) of a day of the world.
func (v View) Date(day int) time.Time { return v.w.Date(day) }

// Seed is the root of the world's random keys: a twin derives the keys of
// what it draws itself (a SIREN's announcements, an area's id) from it,
// under names of its own.
func (v View) Seed() Key { return Key{v.w.seed} }

// Categories are the category table's categories (the 39 a query may
// name; not a query's own category), in the table's order.
func (v View) Categories() []Category {
	out := make([]Category, len(categories))
	for i := range categories {
		out[i] = Category{v.w.byKey[categories[i].key]}
	}
	return out
}

// Settlement is the settlement of a gazetteer place, false when the
// place is none (a city drawn by arrondissement, a department, a place
// without people).
func (v View) Settlement(id gazetteer.ID) (Settlement, bool) {
	s := v.w.settlements().byID(id)
	return Settlement{s}, s != nil
}

// byID is the settlement of a gazetteer place, nil when it is none.
func (ix *settlementIndex) byID(id gazetteer.ID) *settlement {
	n, ok := slices.BinarySearchFunc(ix.all, id, func(s settlement, id gazetteer.ID) int { return cmp.Compare(s.id, id) })
	if !ok {
		return nil
	}
	return &ix.all[n]
}

// Born is the places of category c in settlement s born by day (open or
// closed), in a deterministic order (epoch, index).
func (v View) Born(s Settlement, c Category, day int) []PlaceRef {
	var out []PlaceRef
	for e := 0; e <= epochOf(day); e++ {
		b := v.w.batch(s.s, c.c, e)
		for i := range b.places {
			if int(b.places[i].birth) <= day {
				out = append(out, PlaceRef{v.w, b, i, c.c})
			}
		}
	}
	return out
}

// OpenIn is the places of category c open on day that lie in b, in a
// deterministic order (settlement, epoch, index): those a search of the
// map would rank.
func (v View) OpenIn(c Category, b orb.Bound, day int) []PlaceRef {
	hits := v.w.collect(c.c, b, day)
	out := make([]PlaceRef, len(hits))
	for i, h := range hits {
		out[i] = PlaceRef{v.w, h.b, h.i, c.c}
	}
	return out
}

// ParseToken reads a place token (a place id without its "sim:" prefix,
// PlaceRef.Token), failing with an error wrapping provider.ErrNotFound
// when this world issued none such.
func (v View) ParseToken(tok string) (PlaceRef, error) {
	ref, b, err := v.w.parseToken(tok)
	if err != nil {
		return PlaceRef{}, err
	}
	return PlaceRef{v.w, b, ref.index, ref.cat}, nil
}

// Category is a category of the world.
type Category struct{ c *category }

// Key names the category in place ids ("boulangerie").
func (c Category) Key() string { return c.c.key }

// Display is its name in French ("Boulangerie").
func (c Category) Display() string { return c.c.display }

// LegalForms are the legal forms its companies take ("SARL", "EURL"...),
// a copy.
func (c Category) LegalForms() []string { return append([]string(nil), c.c.legal...) }

// Settlement is a populated disc where places are drawn: a city, or an
// arrondissement of Paris, Lyon or Marseille.
type Settlement struct{ s *settlement }

// ID is its gazetteer place.
func (s Settlement) ID() gazetteer.ID { return s.s.id }

// Country is its country's alpha-3 code ("FRA").
func (s Settlement) Country() string { return s.s.country }

// Code is its gazetteer code (the INSEE code of a French commune).
func (s Settlement) Code() string { return s.s.code }

// PlaceRef is one place of the world: the index-th of a generated batch.
// What it shows is drawn from its key when asked.
type PlaceRef struct {
	w *World
	b *batch
	i int
	c *category
}

// PlaceID is a place's identity, comparable: a twin's cache key.
type PlaceID struct {
	b batchID
	i int
}

// ID is the place's identity.
func (p PlaceRef) ID() PlaceID { return PlaceID{p.b.id, p.i} }

// Category is the category it was drawn in.
func (p PlaceRef) Category() Category { return Category{p.c} }

// Settlement is the settlement it was drawn in.
func (p PlaceRef) Settlement() Settlement { return Settlement{p.b.s} }

// Key is the place's random key: a twin draws what it adds to the place
// from keys derived from it under names of its own.
func (p PlaceRef) Key() Key { return Key{p.b.placeKey(p.i)} }

// Point is its position, unrounded (a listing shows it to 7 decimals).
func (p PlaceRef) Point() orb.Point { return p.b.places[p.i].pt }

// Birth is the day it opened (negative for the places of day 0).
func (p PlaceRef) Birth() int { return int(p.b.places[p.i].birth) }

// Close is the day it closes: it is open on days Birth ≤ d < Close.
func (p PlaceRef) Close() int { return int(p.b.places[p.i].close) }

// Open tells whether it is open on day d.
func (p PlaceRef) Open(d int) bool { return p.b.places[p.i].open(d) }

// Token is its id without the "sim:" prefix (ParseToken reads it back).
func (p PlaceRef) Token() string { return p.w.token(p.b, p.i) }

// Listing is the place as the map lists it on day d.
func (p PlaceRef) Listing(d int) provider.Place { return p.w.place(p.b, p.i, p.c, d) }

// Email is the address its website shows on every page on day d, "" for
// none (a place without a website has one drawn all the same).
func (p PlaceRef) Email(d int) string { return p.w.site(p.b, p.i, p.c, d).email }

// Legal is the publisher its website's legal notice names, drawn whether
// or not the place has a website (it does not depend on the day); false
// outside France.
func (p PlaceRef) Legal() (Legal, bool) {
	l := p.w.site(p.b, p.i, p.c, 0).legal
	if l == nil {
		return Legal{}, false
	}
	return Legal{Company: l.company, Form: l.form, SIREN: l.siren, SIRET: l.siret, Director: l.director}, true
}

// Legal is a French place's legal identity, as its website's legal
// notice shows it.
type Legal struct {
	// Company is the company's name, in capitals; Form its legal form
	// ("SARL", "EURL", "EI"...).
	Company, Form string
	// SIREN and SIRET are Luhn-valid; the SIRET is the SIREN's siège's.
	SIREN, SIRET string
	// Director is "First Last".
	Director string
}

// Locate works out what the place's position says of it (its commune,
// its town, its country's conventions): its name and address are drawn
// from them.
func (p PlaceRef) Locate() Located { return Located{p, p.w.whereOf(p.b, p.i)} }

// Located is a place with what its position says of it, worked out once
// for the several things drawn from it.
type Located struct {
	p  PlaceRef
	wh where
}

// Commune is the city or arrondissement containing the place.
func (l Located) Commune() gazetteer.ID { return l.wh.commune }

// Town is the locality its address names.
func (l Located) Town() string { return l.wh.town }

// Name is the listing's name.
func (l Located) Name() string {
	return l.p.w.nameAt(l.p.b.placeKey(l.p.i), l.wh, l.p.c, langOf(l.p.b.s.country))
}

// Address is the listing's address ("12 rue de la République, 69003
// Lyon").
func (l Located) Address() string { return l.p.w.address(l.p.b.placeKey(l.p.i), l.wh) }

// Key is a position in the world's tree of random streams (see key): a
// value, derived by name, never changing the world.
type Key struct{ k key }

// Str derives the child key named by s.
func (k Key) Str(s string) Key { return Key{k.k.str(s)} }

// Int derives the child key named by n.
func (k Key) Int(n int64) Key { return Key{k.k.int(n)} }

// Float is the key read as a uniform number in [0, 1).
func (k Key) Float() float64 { return k.k.float() }

// Uint64 is the key's value: a twin's ids are drawn from it.
func (k Key) Uint64() uint64 { return uint64(k.k) }

// Rand is a stream of draws started at the key.
func (k Key) Rand() Rand { return Rand{k.k.rng()} }

// Rand is a stream of random draws started at a Key: the sequence one
// drawn thing needs. It is a value, never shared between goroutines.
type Rand struct{ r rng }

// Float is uniform in [0, 1).
func (r *Rand) Float() float64 { return r.r.float() }

// Intn is uniform in [0, n); n > 0.
func (r *Rand) Intn(n int) int { return r.r.intn(n) }

// Between is uniform in [lo, hi].
func (r *Rand) Between(lo, hi int) int { return r.r.between(lo, hi) }

// Chance is true with probability p.
func (r *Rand) Chance(p float64) bool { return r.r.chance(p) }

// Normal is a standard normal draw.
func (r *Rand) Normal() float64 { return r.r.normal() }

// DiscBound is the bounding box of a disc of radius km around center, on
// the tangent plane the world draws positions on.
func DiscBound(center orb.Point, km float64) orb.Bound { return discBound(center, km) }

// Slug is s in lower-case ASCII letters, digits and hyphens, at most n
// bytes, "site" when nothing is left: as the world spells its websites'
// hosts and social handles.
func Slug(s string, n int) string { return slug(s, n) }
