package gazetteer

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/paulmach/orb"
)

// The binary format of a gazetteer, written by Encode (the generator,
// tools/gazetteer) and read by Decode (the service, at cold start).
//
// Loading must cost a few milliseconds, so the file holds the indexes New
// would compute, already sorted: Decode sorts, hashes and normalises no
// name. Strings are stored inline (a varint length, then the bytes) and
// decoded as substrings of the data, without copying; shapes stay encoded
// until Shape asks for one.
//
// Every integer is a varint; "zig" marks a zigzag (signed) one. Coordinates
// are quantised to 1e-5 degree (about a metre) and delta-encoded.
//
//	"GZT" version(1 byte)
//	places aliases postcodes        totals, for allocating once
//	n, n × str                      country codes, referred to by index
//	places × place
//	n, n × names                    one name index per country
//	n, n × zig(id - previous id - 1)  the code index
//	n, n × posts                    one postal code index per country
//
//	place: kind(1 byte) country zig(parent - previous parent) str(code)
//	  str(name) n n×str(alias) n n×str(postcode) population
//	  zig(Δlon) zig(Δlat) of the centre from the previous centre
//	  radius in metres, 0 for a place with a polygon, which goes on with:
//	  area in hundredths of km², zig(min lon) zig(min lat) width height
//	  of its bound, then its shape: 0 (none); or 1, length, the shape's
//	  bytes; or 2, n, n × the IDs of the places whose shapes it concatenates
//	names: country n str(the n norms, sorted, end to end) n × (length of
//	  the norm, id)
//	posts: country n n × (id, index of the code in the place's Postcodes)
//	shape: polygons × (rings × (points<<1 | closed, points ×
//	  (zig Δlon, zig Δlat))), the deltas running over the whole shape; a
//	  closed ring's last point (its first) is not stored
const (
	magic   = "GZT"
	version = 1
	// perDegree is the resolution of stored coordinates: units of 1e-5°.
	perDegree = 1e5
)

// ErrFormat reports data that is not an encoded gazetteer.
var ErrFormat = errors.New("gazetteer: bad encoded data")

// Quantize returns p at the resolution Encode stores: the generator computes
// areas and point-in-polygon checks on quantised shapes, so that they hold
// for the decoded ones.
func Quantize(p orb.Point) orb.Point {
	return orb.Point{unquant(quant(p[0])), unquant(quant(p[1]))}
}

func quant(x float64) int64 { return int64(math.Round(x * perDegree)) }

func unquant(q int64) float64 { return float64(q) / perDegree }

// Encode returns g in the format Decode reads. parts, when not nil, may
// name for a place the places whose shapes make up its own (a region of
// its departments, a country of its regions): its shape is then stored as
// those references, and decodes as the concatenation of their polygons.
// Referenced places must have their own polygons.
//
// Coordinates are quantised (Quantize), radii rounded to the metre, the
// areas of polygons to 0.01 km²; a disc's area decodes as DiscAreaKm2 of
// its radius.
func Encode(g *Gazetteer, parts func(ID) []ID) ([]byte, error) {
	e := &encoder{g: g, parts: parts, country: map[string]uint64{}}
	return e.encode()
}

type encoder struct {
	g         *Gazetteer
	parts     func(ID) []ID
	buf       []byte
	country   map[string]uint64
	countries []string
}

func (e *encoder) encode() ([]byte, error) {
	places := e.g.places
	var naliases, npostcodes int
	for i := range places {
		p := &places[i]
		naliases += len(p.Aliases)
		npostcodes += len(p.Postcodes)
		if _, ok := e.country[p.Country]; !ok {
			e.country[p.Country] = uint64(len(e.countries))
			e.countries = append(e.countries, p.Country)
		}
	}
	e.buf = append(e.buf, magic...)
	e.buf = append(e.buf, version)
	e.uint(uint64(len(places)))
	e.uint(uint64(naliases))
	e.uint(uint64(npostcodes))
	e.uint(uint64(len(e.countries)))
	for _, c := range e.countries {
		e.str(c)
	}
	var prevParent ID = None
	var prevCenter [2]int64
	for i := range places {
		if err := e.place(&places[i], &prevParent, &prevCenter); err != nil {
			return nil, err
		}
	}
	e.names()
	e.codes()
	e.posts()
	return e.buf, nil
}

func (e *encoder) place(p *Place, prevParent *ID, prevCenter *[2]int64) error {
	e.buf = append(e.buf, byte(p.Kind))
	e.uint(e.country[p.Country])
	e.int(int64(p.Parent) - int64(*prevParent))
	*prevParent = p.Parent
	e.str(p.Code)
	e.str(p.Name)
	e.strs(p.Aliases)
	e.strs(p.Postcodes)
	if p.Population < 0 {
		return fmt.Errorf("gazetteer: encode %q: negative population", p.Name)
	}
	e.uint(uint64(p.Population))
	c := [2]int64{quant(p.Center[0]), quant(p.Center[1])}
	e.int(c[0] - prevCenter[0])
	e.int(c[1] - prevCenter[1])
	*prevCenter = c
	if p.Radius > 0 {
		e.uint(uint64(max(1, math.Round(p.Radius*1000))))
		return nil
	}
	e.uint(0)
	e.uint(uint64(math.Round(max(0, p.AreaKm2) * 100)))
	return e.shape(p.ID)
}

// shape writes the bound and the polygons, or the parts, of a place.
func (e *encoder) shape(id ID) error {
	var parts []ID
	if e.parts != nil {
		parts = e.parts(id)
	}
	if len(parts) > 0 {
		var b orb.Bound
		for i, part := range parts {
			pp := &e.g.places[part]
			if pp.Radius > 0 || (e.parts != nil && len(e.parts(part)) > 0) || part == id {
				return fmt.Errorf("gazetteer: encode %q: part %q has no polygons of its own", e.g.places[id].Name, pp.Name)
			}
			pb := quantBound(e.g.Shape(part))
			if i == 0 {
				b = pb
			} else {
				b = b.Union(pb)
			}
		}
		e.bound(b)
		e.uint(2)
		e.uint(uint64(len(parts)))
		for _, part := range parts {
			e.uint(uint64(part))
		}
		return nil
	}
	mp := e.g.Shape(id)
	e.bound(quantBound(mp))
	if len(mp) == 0 {
		e.uint(0)
		return nil
	}
	body := appendShape(nil, mp)
	e.uint(1)
	e.uint(uint64(len(body)))
	e.buf = append(e.buf, body...)
	return nil
}

// quantBound is the bound of mp once quantised, which is what the decoded
// shape's Bound returns.
func quantBound(mp orb.MultiPolygon) orb.Bound {
	if len(mp) == 0 {
		return orb.Bound{}
	}
	b := orb.Bound{Min: orb.Point{math.Inf(1), math.Inf(1)}, Max: orb.Point{math.Inf(-1), math.Inf(-1)}}
	for _, poly := range mp {
		for _, ring := range poly {
			for _, pt := range ring {
				b = b.Extend(Quantize(pt))
			}
		}
	}
	return b
}

func (e *encoder) bound(b orb.Bound) {
	minLon, minLat := quant(b.Min[0]), quant(b.Min[1])
	e.int(minLon)
	e.int(minLat)
	e.uint(uint64(quant(b.Max[0]) - minLon))
	e.uint(uint64(quant(b.Max[1]) - minLat))
}

func appendShape(buf []byte, mp orb.MultiPolygon) []byte {
	var prev [2]int64
	buf = appendUint(buf, uint64(len(mp)))
	for _, poly := range mp {
		buf = appendUint(buf, uint64(len(poly)))
		for _, ring := range poly {
			pts := ring
			closed := uint64(0)
			if len(ring) > 1 && ring[0] == ring[len(ring)-1] {
				pts, closed = ring[:len(ring)-1], 1
			}
			buf = appendUint(buf, uint64(len(pts))<<1|closed)
			for _, pt := range pts {
				q := [2]int64{quant(pt[0]), quant(pt[1])}
				buf = appendInt(buf, q[0]-prev[0])
				buf = appendInt(buf, q[1]-prev[1])
				prev = q
			}
		}
	}
	return buf
}

func (e *encoder) names() {
	e.uint(uint64(len(e.countries)))
	for _, c := range e.countries {
		ix := e.g.names[c]
		if ix == nil {
			ix = &nameIndex{}
		}
		e.uint(e.country[c])
		e.uint(uint64(ix.len()))
		e.str(ix.norms)
		prev := uint32(0)
		for i, end := range ix.ends {
			e.uint(uint64(end - prev))
			e.uint(uint64(ix.ids[i]))
			prev = end
		}
	}
}

func (e *encoder) codes() {
	e.uint(uint64(len(e.g.codes)))
	prev := int64(-1)
	for _, id := range e.g.codes {
		e.int(int64(id) - prev - 1)
		prev = int64(id)
	}
}

func (e *encoder) posts() {
	e.uint(uint64(len(e.countries)))
	for _, c := range e.countries {
		ix := e.g.posts[c]
		if ix == nil {
			ix = &postIndex{}
		}
		e.uint(e.country[c])
		e.uint(uint64(len(ix.ids)))
		for i, id := range ix.ids {
			e.uint(uint64(id))
			e.uint(uint64(ix.ks[i]))
		}
	}
}

func (e *encoder) uint(v uint64) { e.buf = appendUint(e.buf, v) }
func (e *encoder) int(v int64)   { e.buf = appendInt(e.buf, v) }

func (e *encoder) str(s string) {
	e.uint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

func (e *encoder) strs(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

func appendUint(buf []byte, v uint64) []byte {
	for v >= 0x80 {
		buf = append(buf, byte(v)|0x80)
		v >>= 7
	}
	return append(buf, byte(v))
}

func appendInt(buf []byte, v int64) []byte { return appendUint(buf, uint64(v<<1)^uint64(v>>63)) }

// Decode reads a gazetteer Encode wrote. It copies data once; DecodeString
// does not copy.
func Decode(data []byte) (*Gazetteer, error) { return DecodeString(string(data)) }

// DecodeString reads a gazetteer Encode wrote. The gazetteer's strings and
// its still-encoded shapes are substrings of data, which it keeps alive: an
// embedded file is decoded without copying it.
func DecodeString(data string) (*Gazetteer, error) {
	d := &decoder{r: reader{s: data}}
	g, err := d.decode()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrFormat, err)
	}
	return g, nil
}

type decoder struct {
	r         reader
	places    []Place
	countries []string
	shapes    *shapes
	bounds    []orb.Bound
}

func (d *decoder) decode() (*Gazetteer, error) {
	r := &d.r
	if !strings.HasPrefix(r.s, magic) || len(r.s) < len(magic)+1 {
		return nil, errors.New("not a gazetteer")
	}
	if v := r.s[len(magic)]; v != version {
		return nil, fmt.Errorf("version %d, want %d", v, version)
	}
	r.off = len(magic) + 1
	n, naliases, npostcodes := r.count(), r.count(), r.count()
	d.countries = make([]string, r.count())
	for i := range d.countries {
		d.countries[i] = r.str()
	}
	if r.err != nil {
		return nil, r.err
	}
	d.places = make([]Place, n)
	// Room for every place's bound and shape record at once: French
	// communes have outlines, so most places have one, and growing these
	// by appends cost more than the rest of the load.
	d.shapes = &shapes{data: r.s, recs: make([]shapeRec, 0, n)}
	d.bounds = make([]orb.Bound, 0, n)
	aliases := make([]string, naliases)
	postcodes := make([]string, npostcodes)
	var prevParent int64 = int64(None)
	var prevCenter [2]int64
	for i := range d.places {
		p := &d.places[i]
		p.ID = ID(i)
		p.Kind = Kind(r.byte())
		p.Country = d.country(r.uint())
		prevParent += r.int()
		p.Parent = ID(prevParent)
		p.Code = r.str()
		p.Name = r.str()
		p.Aliases, aliases = r.strs(aliases)
		p.Postcodes, postcodes = r.strs(postcodes)
		p.Population = int64(r.uint())
		prevCenter[0] += r.int()
		prevCenter[1] += r.int()
		p.Center = orb.Point{unquant(prevCenter[0]), unquant(prevCenter[1])}
		if m := r.uint(); m > 0 {
			p.Radius = float64(m) / 1000
			p.AreaKm2 = DiscAreaKm2(p.Radius)
		} else {
			p.AreaKm2 = float64(r.uint()) / 100
			d.shape(p.ID)
		}
		if r.err != nil {
			return nil, fmt.Errorf("place %d: %w", i, r.err)
		}
	}
	if err := d.checkParts(); err != nil {
		return nil, err
	}
	g := &Gazetteer{places: d.places, shape: d.shapes.get, bounds: d.bounds}
	if err := g.link(); err != nil {
		return nil, err
	}
	if err := d.indexes(g); err != nil {
		return nil, err
	}
	if r.off != len(r.s) {
		return nil, errors.New("trailing bytes")
	}
	return g, nil
}

func (d *decoder) country(i uint64) string {
	if i >= uint64(len(d.countries)) {
		d.r.fail("country index out of range")
		return ""
	}
	return d.countries[i]
}

// shape reads the bound and the shape record of a polygon place.
func (d *decoder) shape(id ID) {
	r := &d.r
	minLon, minLat := r.int(), r.int()
	w, h := int64(r.uint()), int64(r.uint())
	b := orb.Bound{
		Min: orb.Point{unquant(minLon), unquant(minLat)},
		Max: orb.Point{unquant(minLon + w), unquant(minLat + h)},
	}
	var rec shapeRec
	switch r.uint() {
	case 0:
	case 1:
		n := r.count()
		rec.off, rec.end = int32(r.off), int32(r.off+n)
		r.off += n
	case 2:
		rec.parts = make([]ID, r.count())
		for i := range rec.parts {
			rec.parts[i] = ID(r.uint())
			if int(rec.parts[i]) >= len(d.places) {
				r.fail("shape part out of range")
			}
		}
	default:
		r.fail("unknown shape record")
	}
	for len(d.bounds) <= int(id) {
		d.bounds = append(d.bounds, orb.Bound{})
		d.shapes.recs = append(d.shapes.recs, shapeRec{})
	}
	d.bounds[id] = b
	d.shapes.recs[id] = rec
}

// checkParts makes sure a shape made of parts refers only to places with
// polygons of their own, as Encode does: a cycle would deadlock Shape.
func (d *decoder) checkParts() error {
	for id, rec := range d.shapes.recs {
		for _, part := range rec.parts {
			if int(part) >= len(d.shapes.recs) || d.shapes.recs[part].parts != nil || d.places[part].Radius > 0 {
				return fmt.Errorf("place %d: shape part %d has no polygons of its own", id, part)
			}
		}
	}
	return nil
}

// indexes reads the name, code and postal code indexes. They are not
// checked for order: Encode sorted them, and the tests run every lookup
// of the generated file.
func (d *decoder) indexes(g *Gazetteer) error {
	r := &d.r
	g.names = make(map[string]*nameIndex)
	for range r.count() {
		c := d.country(r.uint())
		n := r.count()
		ix := &nameIndex{ends: make([]uint32, n), ids: make([]ID, n), norms: r.str()}
		end := uint64(0)
		for i := range n {
			end += r.uint()
			ix.ends[i] = uint32(min(end, uint64(len(ix.norms))))
			ix.ids[i] = d.id(r.uint())
		}
		if end != uint64(len(ix.norms)) {
			return errors.New("name lengths do not add up")
		}
		g.names[c] = ix
	}
	g.codes = make([]ID, r.count())
	prev := int64(-1)
	for i := range g.codes {
		prev += r.int() + 1
		g.codes[i] = d.id(uint64(prev))
		if r.err == nil && d.places[g.codes[i]].Code == "" {
			r.fail("code index entry without a code")
		}
	}
	g.posts = make(map[string]*postIndex)
	for range r.count() {
		c := d.country(r.uint())
		n := r.count()
		ix := &postIndex{make([]ID, n), make([]uint8, n)}
		for i := range n {
			ix.ids[i] = d.id(r.uint())
			ix.ks[i] = uint8(r.uint())
			if r.err == nil && int(ix.ks[i]) >= len(d.places[ix.ids[i]].Postcodes) {
				r.fail("postal code index out of range")
			}
		}
		g.posts[c] = ix
	}
	return r.err
}

func (d *decoder) id(v uint64) ID {
	if v >= uint64(len(d.places)) {
		d.r.fail("place ID out of range")
		return 0
	}
	return ID(v)
}

// shapes decodes polygons on first use and keeps them: Shape returns the
// same value every time, and concurrent first calls decode once.
type shapes struct {
	data string
	recs []shapeRec // by ID, up to the last polygon place
	once []sync.Once
	mps  []orb.MultiPolygon
	init sync.Once
}

type shapeRec struct {
	off, end int32 // the encoded polygons in data, when end > off
	parts    []ID  // or the places whose polygons make this shape
}

func (s *shapes) get(id ID) orb.MultiPolygon {
	if int(id) >= len(s.recs) {
		return nil
	}
	// The per-place slots are allocated on the first Shape call, not at
	// load: most cold starts never ask for one.
	s.init.Do(func() {
		s.once = make([]sync.Once, len(s.recs))
		s.mps = make([]orb.MultiPolygon, len(s.recs))
	})
	s.once[id].Do(func() { s.mps[id] = s.decode(id) })
	return s.mps[id]
}

func (s *shapes) decode(id ID) orb.MultiPolygon {
	rec := s.recs[id]
	if rec.parts != nil {
		var mp orb.MultiPolygon
		for _, part := range rec.parts {
			if part != id {
				mp = append(mp, s.get(part)...)
			}
		}
		return mp
	}
	if rec.end <= rec.off {
		return nil
	}
	mp, err := decodeShape(s.data[rec.off:rec.end])
	if err != nil {
		// Encode wrote these bytes and the tests decode every shape of the
		// generated file: a failure here is a corrupted binary.
		panic(fmt.Sprintf("gazetteer: shape of place %d: %v", id, err))
	}
	return mp
}

func decodeShape(data string) (orb.MultiPolygon, error) {
	r := reader{s: data}
	var prev [2]int64
	mp := make(orb.MultiPolygon, r.count())
	for i := range mp {
		mp[i] = make(orb.Polygon, r.count())
		for j := range mp[i] {
			v := r.uint()
			n, closed := int(v>>1), v&1 == 1
			if r.err != nil || n > len(data) {
				return nil, errors.New("bad ring")
			}
			ring := make(orb.Ring, n, n+int(v&1))
			for k := range ring {
				prev[0] += r.int()
				prev[1] += r.int()
				ring[k] = orb.Point{unquant(prev[0]), unquant(prev[1])}
			}
			if closed && n > 0 {
				ring = append(ring, ring[0])
			}
			mp[i][j] = ring
		}
	}
	if r.err != nil || r.off != len(data) {
		return nil, errors.New("bad polygon data")
	}
	return mp, nil
}

// reader reads varints and strings from a string; its first error sticks
// and every later read returns zero values.
type reader struct {
	s   string
	off int
	err error
}

func (r *reader) fail(msg string) {
	if r.err == nil {
		r.err = fmt.Errorf("offset %d: %s", r.off, msg)
	}
	r.off = len(r.s)
}

func (r *reader) byte() byte {
	if r.off >= len(r.s) {
		r.fail("unexpected end")
		return 0
	}
	b := r.s[r.off]
	r.off++
	return b
}

// uint reads a varint; the one-byte case, most of them, is inlined.
func (r *reader) uint() uint64 {
	if r.off < len(r.s) && r.s[r.off] < 0x80 {
		r.off++
		return uint64(r.s[r.off-1])
	}
	return r.uintSlow()
}

func (r *reader) uintSlow() uint64 {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if r.off >= len(r.s) {
			r.fail("unexpected end")
			return 0
		}
		b := r.s[r.off]
		r.off++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v
		}
	}
	r.fail("varint overflow")
	return 0
}

func (r *reader) int() int64 {
	u := r.uint()
	return int64(u>>1) ^ -int64(u&1)
}

// count reads a length, which cannot exceed the bytes left (every counted
// item takes at least one byte), so that a corrupted one cannot make the
// decoder allocate without bound.
func (r *reader) count() int {
	v := r.uint()
	if v > uint64(len(r.s)-r.off) {
		r.fail("count beyond the data")
		return 0
	}
	return int(v)
}

func (r *reader) str() string {
	n := r.count()
	s := r.s[r.off : r.off+n]
	r.off += n
	return s
}

// strs reads a list of strings into the front of pool (one backing array
// for every place's list) and returns the list and the rest of the pool.
func (r *reader) strs(pool []string) ([]string, []string) {
	n := r.count()
	if n == 0 {
		return nil, pool
	}
	if n > len(pool) {
		r.fail("more strings than the header counts")
		return nil, pool
	}
	for i := range n {
		pool[i] = r.str()
	}
	return pool[:n:n], pool[n:]
}
