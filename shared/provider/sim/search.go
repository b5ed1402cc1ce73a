package sim

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/paulmach/orb"

	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/provider"
)

// hit is one generated place: the batch's i-th.
type hit struct {
	b *batch
	i int
}

func (h hit) skel() *skel { return &h.b.places[h.i] }

// Search returns one page of the places of the query's category in the
// rectangle open on the world's current day (none outside it: the real
// provider's location restriction returns nothing beyond the rectangle),
// the most prominent first, at most Cap over all pages. A page token
// carries the day its search started on, so a search's pages agree even
// when the day moves between them.
func (w *World) Search(ctx context.Context, r provider.Request) (provider.Page, error) {
	c, err := w.category(r.Query)
	if err != nil {
		return provider.Page{}, err
	}
	if err := checkBound(r.Bound); err != nil {
		return provider.Page{}, err
	}
	offset, day, haveDay, err := w.readPageToken(r)
	if err != nil {
		return provider.Page{}, err
	}
	if err := w.call(ctx, "search"); err != nil {
		return provider.Page{}, err
	}
	if !haveDay {
		if day, err = w.day(ctx); err != nil {
			return provider.Page{}, err
		}
	}
	hits := w.ranked(c, r, day)
	end := min(offset+w.opt.PageSize, len(hits))
	page := provider.Page{Places: make([]provider.Place, 0, max(end-offset, 0))}
	for _, h := range hits[min(offset, len(hits)):end] {
		page.Places = append(page.Places, w.place(h.b, h.i, c, day))
	}
	if end < len(hits) {
		page.NextPageToken = w.pageToken(r, end, day)
	}
	return page, nil
}

// Truth returns every place of the query's category strictly inside b
// (see inside) open on the world's current day, the most prominent first,
// without cap, outside places, latency or failures: what exists, for
// measuring what a scrape finds.
func (w *World) Truth(ctx context.Context, query string, b orb.Bound) ([]provider.Place, error) {
	c, err := w.category(query)
	if err != nil {
		return nil, err
	}
	if err := checkBound(b); err != nil {
		return nil, err
	}
	day, err := w.day(ctx)
	if err != nil {
		return nil, err
	}
	var hits []hit
	for _, h := range w.collect(c, b, day) {
		if inside(b, h.skel().pt) {
			hits = append(hits, h)
		}
	}
	w.rank(hits, day)
	out := make([]provider.Place, len(hits))
	for i, h := range hits {
		out[i] = w.place(h.b, h.i, c, day)
	}
	return out, nil
}

// checkBound rejects rectangles that are empty, inverted or off the map.
func checkBound(b orb.Bound) error {
	ok := b.Min[0] < b.Max[0] && b.Min[1] < b.Max[1] &&
		b.Min[0] >= -180 && b.Max[0] <= 180 && b.Min[1] >= -90 && b.Max[1] <= 90
	if !ok {
		return fmt.Errorf("%w: invalid rectangle %v", ErrBadRequest, b)
	}
	return nil
}

// inside tells whether pt lies in b, its south and west edges included,
// its north and east edges not: so the four quarters of a rectangle share
// out its places exactly.
func inside(b orb.Bound, pt orb.Point) bool {
	return pt[0] >= b.Min[0] && pt[0] < b.Max[0] && pt[1] >= b.Min[1] && pt[1] < b.Max[1]
}

// ranked is the whole answer of a search, before paging: the places
// inside, the most prominent Cap of them.
func (w *World) ranked(c *category, r provider.Request, day int) []hit {
	var hits []hit
	for _, h := range w.collect(c, r.Bound, day) {
		if inside(r.Bound, h.skel().pt) {
			hits = append(hits, h)
		}
	}
	w.rank(hits, day)
	w.byName(hits, c, r.Query)
	return hits[:min(len(hits), w.opt.Cap)]
}

// byName moves first the places whose name the query spells out: a text
// search for "Maison Marie boulangerie" lists the bakery Maison Marie
// before the most prominent bakeries, as the real map does. A query that
// only names the category ("boulangerie") keeps the prominence order.
func (w *World) byName(hits []hit, c *category, query string) {
	q := strings.Fields(gazetteer.Normalize(query))
	if len(q) < 2 {
		return
	}
	var named, rest []hit
	words := map[hit]int{}
	for _, h := range hits {
		name := strings.Fields(gazetteer.Normalize(w.nameOf(h.b, h.i, c)))
		if len(name) > 0 && len(name) < len(q) && containsAll(q, name) || len(name) >= 2 && slices.Equal(name, q) {
			named = append(named, h)
			words[h] = len(name)
		} else {
			rest = append(rest, h)
		}
	}
	// The name that spells more of the query first: "Aux Délices des
	// Lilas" before "Boulangerie des Lilas" for a search of the former.
	slices.SortStableFunc(named, func(a, b hit) int { return words[b] - words[a] })
	copy(hits, named)
	copy(hits[len(named):], rest)
}

// containsAll tells whether every word of ws is in set.
func containsAll(set, ws []string) bool {
	for _, w := range ws {
		if !slices.Contains(set, w) {
			return false
		}
	}
	return true
}

// collect returns the places of the category in settlements near b open
// on day d, in a deterministic order (settlement, epoch, index).
func (w *World) collect(c *category, b orb.Bound, d int) []hit {
	var hits []hit
	for _, s := range w.settlements().near(b) {
		for e := 0; e <= epochOf(d); e++ {
			bt := w.batch(s, c, e)
			for i := range bt.places {
				if p := &bt.places[i]; p.open(d) && b.Contains(p.pt) {
					hits = append(hits, hit{bt, i})
				}
			}
		}
	}
	return hits
}

// rank orders places by prominence on day d: rating × ln(1 + reviews),
// as the map ranks a text search, ties broken by the place's key.
func (w *World) rank(hits []hit, d int) {
	type scored struct {
		h     hit
		score float64
		tie   key
	}
	ss := make([]scored, len(hits))
	for i, h := range hits {
		p, k := h.skel(), h.b.placeKey(h.i)
		n := p.reviews(d)
		ss[i] = scored{h, p.rating(k, n) * math.Log1p(float64(n)), k}
	}
	slices.SortFunc(ss, func(x, y scored) int {
		if c := cmp.Compare(y.score, x.score); c != 0 {
			return c
		}
		return cmp.Compare(x.tie, y.tie)
	})
	for i := range ss {
		hits[i] = ss[i].h
	}
}

// requestKey identifies a search (not its page): its query, rectangle,
// country and language.
func (w *World) requestKey(r provider.Request) key {
	k := w.seed.str("request").str(r.Query).str(r.Country).str(r.Language)
	for _, v := range []float64{r.Bound.Min[0], r.Bound.Min[1], r.Bound.Max[0], r.Bound.Max[1]} {
		k = k.int(int64(math.Float64bits(v)))
	}
	return k
}

// A page token is base64url of: the offset of the page and the day of the
// search (uvarints), then 8 bytes of a check over them and the request,
// so that a token only continues the search that issued it.
func (w *World) pageToken(r provider.Request, offset, day int) string {
	buf := binary.AppendUvarint(nil, uint64(offset))
	buf = binary.AppendUvarint(buf, uint64(day))
	buf = binary.BigEndian.AppendUint64(buf, uint64(w.requestKey(r).str("page").int(int64(offset)).int(int64(day))))
	return base64.RawURLEncoding.EncodeToString(buf)
}

// readPageToken returns the offset and day of the request's page token;
// haveDay is false for a first page.
func (w *World) readPageToken(r provider.Request) (offset, day int, haveDay bool, err error) {
	if r.PageToken == "" {
		return 0, 0, false, nil
	}
	bad := fmt.Errorf("%w for this search", ErrPageToken)
	buf, err := base64.RawURLEncoding.DecodeString(r.PageToken)
	if err != nil || len(buf) > 40 {
		return 0, 0, false, bad
	}
	off, n1 := binary.Uvarint(buf)
	if n1 <= 0 {
		return 0, 0, false, bad
	}
	d, n2 := binary.Uvarint(buf[n1:])
	if n2 <= 0 || len(buf) != n1+n2+8 || off == 0 || off >= uint64(w.opt.Cap) || d > math.MaxInt32 {
		return 0, 0, false, bad
	}
	if w.pageToken(r, int(off), int(d)) != r.PageToken {
		return 0, 0, false, bad
	}
	return int(off), int(d), true, nil
}
