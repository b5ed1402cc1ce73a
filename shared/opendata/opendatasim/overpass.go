// Package opendatasim is the twin of the opendata client's upstream for
// offline runs (SVC_DATA_SOURCES=sim): OpenStreetMap as the simulated
// world (shared/provider/sim, read through its View) would have it
// mapped, answering the Overpass API's interpreter (POST data=<QL>, or
// GET ?data=) in its JSON format, so that the opendata client runs
// offline against it unchanged. It lives beside its client, not in the
// world, so that a binary importing the client does not link the world.
//
// # The mapped world
//
// A place of the world is mapped in OSM with probability osmMapped (55%),
// drawn from its key (the same place is mapped or not in every process
// and on every day it is open). A mapped place is a node at its position,
// or one time in four a way (its building) whose center lies within about
// 10 m of it. Its tags:
//
//   - its category's tags (shop=bakery, amenity=restaurant,
//     craft=plumber, office=notary, healthcare=physiotherapist...);
//   - name: the listing's name seven times in ten; otherwise the same
//     name in capitals without accents, or with a legal form added (both
//     the same name once normalised), or with the category's word added
//     ("Maison Martin Boulangerie": a near name), or one time in twenty a
//     generic name that matches nothing ("Boulangerie Caluire-et-Cuire");
//   - addr:housenumber, addr:street, addr:postcode, addr:city from its
//     French address, seven times in ten;
//   - website (or contact:website) for 60% of the places that have one,
//     the same URL as the listing's; phone (or contact:phone) for 60% of
//     those that have one, in the international format mappers use
//     ("+33 4 78 12 34 56"); email (or contact:email) for 40% of those
//     tagged with their website, the address the fixture site shows;
//   - opening_hours (45%), wheelchair (25%), cuisine for restaurants and
//     pizzerias (60%), payment:cards (15%), contact:facebook (10%).
//
// So some places carry website, phone or email tags and some none,
// always the same ones. Only the table's 39 categories are mapped (a
// query's own category exists only for the map's searches).
//
// # The QL it reads
//
// The subset of Overpass QL the opendata client writes, and a little
// more: settings [out:json] [timeout:N] [maxsize:N]; statements node, way,
// nwr, nw (and rel, which finds nothing: no place is a relation) and area
// with tag filters ["k"], [!"k"], ["k"="v"], ["k"!="v"], ["k"~"re"],
// ["k"!~"re"], [~"kre"~"vre"] (",i" for case-insensitive), and spatial
// filters (around:r,lat,lon), (area), (area.set) and (s,w,n,e); unions
// ( ... ); with ->.set; .set; out with ids, skel, body, tags or meta, center,
// a limit, qt or asc. Regular expressions are read by Go's regexp (RE2),
// which agrees with POSIX extended expressions on what the client
// sends. An area statement finds the area of a postcode ("postal_code" or
// "addr:postcode" = a French postcode the gazetteer knows) or of a
// commune ("name" = the commune's name, exactly, with
// boundary=administrative or admin_level 8, or 9 for an arrondissement).
// A query must be bounded: an around of at most 5 km, a box of at most
// 0.2 degrees, an area, or an exact addr:postcode; anything else is
// answered 400 with an Overpass-style error page, as is a parse error.
//
// # Failures
//
// Each request goes through the world's call (View.Call: its latency,
// then the transient failure draw); a transient failure is answered, in turn, 429
// (no slot), 504 (the server too busy) and 200 with a runtime-error
// remark (a query timed out), the three ways the real service fails.
package opendatasim

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geo"

	"github.com/prospectdata/svc/shared/accent"
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/provider/sim"
)

// Shares and bounds of the twin.
const (
	osmMapped = 0.55
	// osmMaxQuery caps a request's body.
	osmMaxQuery = 64 << 10
	// osmMaxAround (metres) and osmMaxBox (degrees) bound the spatial
	// filters: the twin generates what it searches.
	osmMaxAround = 5000
	osmMaxBox    = 0.2
	// osmMaxStatements bounds a program.
	osmMaxStatements = 64
)

// osmCategoryTags are the OSM tags of each category.
var osmCategoryTags = map[string][]string{
	"boulangerie": {"shop", "bakery"}, "restaurant": {"amenity", "restaurant"}, "plombier": {"craft", "plumber"},
	"coiffeur": {"shop", "hairdresser"}, "pharmacie": {"amenity", "pharmacy", "healthcare", "pharmacy"},
	"notaire": {"office", "notary"}, "avocat": {"office", "lawyer"}, "dentiste": {"amenity", "dentist", "healthcare", "dentist"},
	"garage": {"shop", "car_repair"}, "hotel": {"tourism", "hotel"}, "immobilier": {"office", "estate_agent"},
	"fleuriste": {"shop", "florist"}, "boucherie": {"shop", "butcher"}, "electricien": {"craft", "electrician"},
	"medecin": {"amenity", "doctors", "healthcare", "doctor"}, "kine": {"healthcare", "physiotherapist"},
	"comptable": {"office", "accountant"}, "architecte": {"office", "architect"}, "opticien": {"shop", "optician"},
	"veterinaire": {"amenity", "veterinary"}, "bar": {"amenity", "bar"}, "pizzeria": {"amenity", "restaurant", "cuisine", "pizza"},
	"menuisier": {"craft", "carpenter"}, "peintre": {"craft", "painter"}, "serrurier": {"shop", "locksmith"},
	"beaute": {"shop", "beauty"}, "banque": {"amenity", "bank"}, "assurance": {"office", "insurance"},
	"supermarche": {"shop", "supermarket"}, "maconnerie": {"craft", "builder"}, "couvreur": {"craft", "roofer"},
	"osteopathe": {"healthcare", "alternative", "healthcare:speciality", "osteopathy"}, "autoecole": {"amenity", "driving_school"},
	"sport": {"leisure", "fitness_centre"}, "caviste": {"shop", "wine"}, "patisserie": {"shop", "pastry"},
	"traiteur": {"craft", "caterer"}, "librairie": {"shop", "books"}, "pressing": {"shop", "dry_cleaning"},
}

var osmOpeningHours = []string{
	"Mo-Fr 09:00-12:00,14:00-18:00", "Mo-Sa 08:00-19:30", "Tu-Sa 07:00-13:00,15:30-19:30; Su 07:00-12:30",
	"Mo-Fr 08:30-18:30", "Mo-Su 12:00-14:00,19:00-22:30", "Tu-Sa 09:00-19:00",
}

var osmCuisines = []string{"french", "regional", "italian", "pizza", "burger", "asian", "japanese", "lebanese", "indian"}

// Handler returns the twin's handler of the world v (see the package
// comment). It is safe for concurrent use.
func Handler(v sim.View) http.Handler { return overpassAPI{v: v, cats: v.Categories()} }

type overpassAPI struct {
	v sim.View
	// cats are the world's mapped categories, in the table's order.
	cats []sim.Category
}

func (h overpassAPI) ServeHTTP(rw http.ResponseWriter, req *http.Request) {
	var ql string
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		ql = req.URL.Query().Get("data")
	case http.MethodPost:
		body, err := io.ReadAll(io.LimitReader(req.Body, osmMaxQuery+1))
		if err != nil {
			osmError(rw, http.StatusBadRequest, "unreadable request body")
			return
		}
		if len(body) > osmMaxQuery {
			osmError(rw, http.StatusRequestEntityTooLarge, "the query is too long")
			return
		}
		ql = string(body)
		if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt == "application/x-www-form-urlencoded" {
			v, err := url.ParseQuery(ql)
			if err != nil {
				osmError(rw, http.StatusBadRequest, "unreadable form")
				return
			}
			ql = v.Get("data")
		}
	default:
		rw.Header().Set("Allow", "GET, POST")
		osmError(rw, http.StatusMethodNotAllowed, "method not allowed")
		return
	}
	if strings.TrimSpace(ql) == "" {
		osmError(rw, http.StatusBadRequest, "no query: send it as data=<Overpass QL>")
		return
	}
	prog, err := parseOverpassQL(ql)
	if err != nil {
		osmError(rw, http.StatusBadRequest, err.Error())
		return
	}
	ctx := req.Context()
	if err := h.v.Call(ctx, "overpass"); err != nil {
		if ctx.Err() != nil {
			return
		}
		h.transient(rw, err)
		return
	}
	day, err := h.v.Day(ctx)
	if err != nil {
		osmError(rw, http.StatusInternalServerError, err.Error())
		return
	}
	out, areas, err := h.runOverpass(ctx, prog, day)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		osmError(rw, http.StatusBadRequest, err.Error())
		return
	}
	h.writeJSON(rw, out, areas, day, "")
}

// transient answers a simulated failure the way the real service fails,
// in turn.
func (h overpassAPI) transient(rw http.ResponseWriter, err error) {
	switch h.v.Calls() % 3 {
	case 0:
		osmError(rw, http.StatusTooManyRequests, "runtime error: open64: 0 Success /osm3s_osm_base "+
			"Dispatcher_Client::request_read_and_idx::rate_limited. Please check /api/status for the quota of your IP address.")
	case 1:
		osmError(rw, http.StatusGatewayTimeout, "runtime error: open64: 0 Success /osm3s_osm_base "+
			"Dispatcher_Client::request_read_and_idx::timeout. The server is probably too busy to handle your request.")
	default:
		h.writeJSON(rw, nil, false, 0, `runtime error: Query timed out in "query" at line 2 after 25 seconds. (`+err.Error()+`)`)
	}
}

// osmError writes an Overpass-style error page.
func osmError(rw http.ResponseWriter, status int, msg string) {
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	rw.WriteHeader(status)
	fmt.Fprintf(rw, `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
<head>
  <meta http-equiv="content-type" content="text/html; charset=utf-8" lang="en"/>
  <title>OSM3S Response</title>
</head>
<body>

<p>Simulated data of the sim world: not OpenStreetMap data.</p>
<p><strong style="color:#FF0000">Error</strong>: %s </p>

</body>
</html>
`, html.EscapeString(msg))
}

// osmJSON is the answer's JSON, in the order Overpass writes it.
type osmJSON struct {
	Version   float64 `json:"version"`
	Generator string  `json:"generator"`
	OSM3S     struct {
		Base      string `json:"timestamp_osm_base"`
		Areas     string `json:"timestamp_areas_base,omitempty"`
		Copyright string `json:"copyright"`
	} `json:"osm3s"`
	Elements []osmOut `json:"elements"`
	Remark   string   `json:"remark,omitempty"`
}

type osmOut struct {
	Type   string            `json:"type"`
	ID     int64             `json:"id"`
	Lat    *float64          `json:"lat,omitempty"`
	Lon    *float64          `json:"lon,omitempty"`
	Center *osmLatLon        `json:"center,omitempty"`
	Tags   map[string]string `json:"tags,omitempty"`
}

type osmLatLon struct {
	Lat float64 `json:"lat"`
	Lon float64 `json:"lon"`
}

func (h overpassAPI) writeJSON(rw http.ResponseWriter, els []osmOut, areas bool, day int, remark string) {
	var a osmJSON
	a.Version = 0.6
	a.Generator = "Overpass API (sim twin)"
	stamp := h.v.Date(day).Format("2006-01-02T15:04:05Z")
	a.OSM3S.Base = stamp
	if areas {
		a.OSM3S.Areas = stamp
	}
	a.OSM3S.Copyright = "Simulated data of the sim world, shaped like OpenStreetMap's: not OpenStreetMap data."
	a.Elements = els
	if a.Elements == nil {
		a.Elements = []osmOut{}
	}
	a.Remark = remark
	rw.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(rw)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(a)
}

// ---- the QL subset ----

// qlProgram is a parsed query: its settings and statements.
type qlProgram struct {
	stmts []*qlStmt
}

// Kinds of statement.
const (
	qlQuery = iota
	qlUnion
	qlPrint
	qlItem // ".set;": the set itself
)

type qlStmt struct {
	kind int
	// qlQuery: the element type ("node", "way", "rel", "nwr", "nw",
	// "area") and filters.
	typ     string
	tags    []qlTag
	spatial []qlSpatial
	// qlUnion: the members.
	members []*qlStmt
	// from is the input set of a print statement; into the set a query or
	// union writes.
	from, into string
	// qlPrint's parameters.
	verbosity string
	center    bool
	limit     int
	line      int
}

// qlTag is a tag filter.
type qlTag struct {
	key, value string
	op         string // "has", "not", "=", "!=", "~", "!~", "~~" (key regex)
	keyRe, re  *regexp.Regexp
}

// qlSpatial is a spatial filter.
type qlSpatial struct {
	kind     string // "around", "area", "bbox"
	set      string // area's input set
	r        float64
	lat, lon float64
	bound    orb.Bound
}

// qlError is a static error, reported like Overpass's.
func qlError(line int, format string, args ...any) error {
	return fmt.Errorf("line %d: parse error: %s", line, fmt.Sprintf(format, args...))
}

// ---- tokenizer ----

type qlToken struct {
	text string
	str  bool // a quoted string (text is its value)
	line int
}

func tokenizeQL(src string) ([]qlToken, error) {
	var toks []qlToken
	line := 1
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return nil, qlError(line, "unterminated comment")
			}
			line += strings.Count(src[i:i+2+end], "\n")
			i += end + 4
		case c == '"' || c == '\'':
			val, n, err := readQLString(src[i:], line)
			if err != nil {
				return nil, err
			}
			toks = append(toks, qlToken{text: val, str: true, line: line})
			line += strings.Count(src[i:i+n], "\n")
			i += n
		case strings.HasPrefix(src[i:], "->"):
			toks = append(toks, qlToken{text: "->", line: line})
			i += 2
		case strings.ContainsRune("[]();:,=~!.", rune(c)):
			toks = append(toks, qlToken{text: string(c), line: line})
			i++
		case c == '-' || c == '+' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '.' || src[j] == 'e' || src[j] == 'E' ||
				(src[j] == '-' || src[j] == '+') && (src[j-1] == 'e' || src[j-1] == 'E')) {
				j++
			}
			toks = append(toks, qlToken{text: src[i:j], line: line})
			i = j
		case c == '_' || c < utf8.RuneSelf && unicode.IsLetter(rune(c)):
			j := i + 1
			for j < len(src) && (src[j] == '_' || src[j] < utf8.RuneSelf && (unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j])))) {
				j++
			}
			toks = append(toks, qlToken{text: src[i:j], line: line})
			i = j
		default:
			r, _ := utf8.DecodeRuneInString(src[i:])
			return nil, qlError(line, "unexpected character %q", r)
		}
	}
	return toks, nil
}

// readQLString reads a quoted string at the start of s as Overpass's
// tokenizer does: a backslash escapes the next character, \n and \t are a
// newline and a tab, \uXXXX a character.
func readQLString(s string, line int) (string, int, error) {
	q := s[0]
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == q:
			return b.String(), i + 1, nil
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'u':
				j := i + 1
				for j < len(s) && j < i+5 && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
					j++
				}
				v, err := strconv.ParseUint(s[i+1:j], 16, 32)
				if err != nil || v < 0x20 {
					return "", 0, qlError(line, "invalid \\u escape")
				}
				b.WriteRune(rune(v))
				i = j - 1
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, qlError(line, "unterminated string")
}

// ---- parser ----

type qlParser struct {
	toks []qlToken
	pos  int
	n    int // statements parsed
}

func (p *qlParser) peek() qlToken {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	line := 1
	if len(p.toks) > 0 {
		line = p.toks[len(p.toks)-1].line
	}
	return qlToken{text: "", line: line}
}

func (p *qlParser) at(text string) bool { t := p.peek(); return !t.str && t.text == text }

func (p *qlParser) next() qlToken {
	t := p.peek()
	if p.pos < len(p.toks) {
		p.pos++
	}
	return t
}

func (p *qlParser) expect(text string) error {
	t := p.next()
	if t.str || t.text != text {
		found := t.text
		if found == "" {
			found = "end of input"
		}
		return qlError(t.line, "'%s' expected - '%s' found.", text, found)
	}
	return nil
}

// word reads a string or a bare word (a key, a value, a number).
func (p *qlParser) word() (string, error) {
	t := p.next()
	if t.str {
		return t.text, nil
	}
	if t.text == "" || t.text == "->" || strings.ContainsAny(t.text[:1], "[]();:,=~!.") {
		found := t.text
		if found == "" {
			found = "end of input"
		}
		return "", qlError(t.line, "string expected - '%s' found.", found)
	}
	return t.text, nil
}

func (p *qlParser) number() (float64, error) {
	t := p.next()
	x, err := strconv.ParseFloat(t.text, 64)
	if t.str || err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, qlError(t.line, "number expected - '%s' found.", t.text)
	}
	return x, nil
}

func parseOverpassQL(src string) (*qlProgram, error) {
	toks, err := tokenizeQL(src)
	if err != nil {
		return nil, err
	}
	p := &qlParser{toks: toks}
	if err := p.settings(); err != nil {
		return nil, err
	}
	prog := &qlProgram{}
	for p.pos < len(p.toks) {
		st, err := p.statement(0)
		if err != nil {
			return nil, err
		}
		prog.stmts = append(prog.stmts, st)
	}
	return prog, nil
}

// settings reads [out:json][timeout:25]...; when the program starts with
// them.
func (p *qlParser) settings() error {
	if !p.at("[") {
		return nil
	}
	for p.at("[") {
		p.next()
		name := p.next()
		if err := p.expect(":"); err != nil {
			return err
		}
		val, err := p.word()
		if err != nil {
			return err
		}
		switch name.text {
		case "out":
			if val != "json" {
				return qlError(name.line, "the sim twin answers [out:json] only")
			}
		case "timeout", "maxsize":
			if n, err := strconv.Atoi(val); err != nil || n <= 0 {
				return qlError(name.line, "[%s:] needs a positive integer", name.text)
			}
		default:
			return qlError(name.line, "setting [%s:] is not simulated", name.text)
		}
		if err := p.expect("]"); err != nil {
			return err
		}
	}
	return p.expect(";")
}

func (p *qlParser) statement(depth int) (*qlStmt, error) {
	p.n++
	t := p.peek()
	if p.n > osmMaxStatements || depth > 4 {
		return nil, qlError(t.line, "too many statements for the sim twin")
	}
	// ".set out ..."
	from := "_"
	if p.at(".") {
		p.next()
		set, err := p.setName()
		if err != nil {
			return nil, err
		}
		from = set
		t = p.peek()
		if t.text != "out" {
			st := &qlStmt{kind: qlItem, from: set, into: "_", line: t.line}
			return st, p.into(st)
		}
	}
	switch {
	case t.str:
		return nil, qlError(t.line, "statement expected - string found.")
	case t.text == "out":
		p.next()
		return p.print(from, t.line)
	case t.text == "(":
		p.next()
		st := &qlStmt{kind: qlUnion, into: "_", line: t.line}
		for !p.at(")") {
			if p.pos >= len(p.toks) {
				return nil, qlError(t.line, "')' expected - end of input found.")
			}
			m, err := p.statement(depth + 1)
			if err != nil {
				return nil, err
			}
			if m.kind == qlPrint {
				return nil, qlError(m.line, "out is not simulated inside a union")
			}
			st.members = append(st.members, m)
		}
		p.next()
		return st, p.into(st)
	case slices.Contains([]string{"node", "way", "rel", "relation", "nwr", "nw", "area"}, t.text):
		p.next()
		st := &qlStmt{kind: qlQuery, typ: t.text, into: "_", line: t.line}
		if st.typ == "relation" {
			st.typ = "rel"
		}
		for p.at("[") || p.at("(") {
			if err := p.filter(st); err != nil {
				return nil, err
			}
		}
		return st, p.into(st)
	}
	found := t.text
	if found == "" {
		found = "end of input"
	}
	return nil, qlError(t.line, "unknown type \"%s\"", found)
}

func (p *qlParser) setName() (string, error) {
	t := p.next()
	if t.str || t.text == "" || !(t.text[0] == '_' || unicode.IsLetter(rune(t.text[0]))) {
		return "", qlError(t.line, "set name expected - '%s' found.", t.text)
	}
	return t.text, nil
}

// into reads "->.set" and the closing ";".
func (p *qlParser) into(st *qlStmt) error {
	if p.at("->") {
		p.next()
		if err := p.expect("."); err != nil {
			return err
		}
		set, err := p.setName()
		if err != nil {
			return err
		}
		st.into = set
	}
	return p.expect(";")
}

func (p *qlParser) print(from string, line int) (*qlStmt, error) {
	st := &qlStmt{kind: qlPrint, from: from, verbosity: "body", line: line}
	for !p.at(";") {
		t := p.next()
		switch {
		case t.str || t.text == "":
			return nil, qlError(t.line, "';' expected - '%s' found.", t.text)
		case slices.Contains([]string{"ids", "skel", "body", "tags", "meta"}, t.text):
			st.verbosity = t.text
		case t.text == "center":
			st.center = true
		case t.text == "qt" || t.text == "asc":
		case t.text == "bb" || t.text == "geom" || t.text == "count" || t.text == "noids":
			return nil, qlError(t.line, "out %s is not simulated", t.text)
		default:
			n, err := strconv.Atoi(t.text)
			if err != nil || n < 0 {
				return nil, qlError(t.line, "unknown out parameter '%s'", t.text)
			}
			st.limit = n
		}
	}
	p.next()
	return st, nil
}

// filter reads one [tag] or (spatial) filter.
func (p *qlParser) filter(st *qlStmt) error {
	open := p.next()
	if open.text == "[" {
		f, err := p.tagFilter(open.line)
		if err != nil {
			return err
		}
		st.tags = append(st.tags, f)
		return p.expect("]")
	}
	s, err := p.spatialFilter(open.line, st.typ)
	if err != nil {
		return err
	}
	st.spatial = append(st.spatial, s)
	return p.expect(")")
}

func (p *qlParser) tagFilter(line int) (qlTag, error) {
	if p.at("!") {
		p.next()
		k, err := p.word()
		return qlTag{op: "not", key: k}, err
	}
	if p.at("~") {
		p.next()
		kre, err := p.word()
		if err != nil {
			return qlTag{}, err
		}
		if err := p.expect("~"); err != nil {
			return qlTag{}, err
		}
		vre, err := p.word()
		if err != nil {
			return qlTag{}, err
		}
		fold := p.caseFlag()
		f := qlTag{op: "~~", key: kre, value: vre}
		if f.keyRe, err = compileQLRegexp(kre, fold, line); err != nil {
			return qlTag{}, err
		}
		f.re, err = compileQLRegexp(vre, fold, line)
		return f, err
	}
	k, err := p.word()
	if err != nil {
		return qlTag{}, err
	}
	f := qlTag{op: "has", key: k}
	switch {
	case p.at("="):
		p.next()
		f.op = "="
		f.value, err = p.word()
	case p.at("~"):
		p.next()
		f.op = "~"
		if f.value, err = p.word(); err == nil {
			f.re, err = compileQLRegexp(f.value, p.caseFlag(), line)
		}
	case p.at("!"):
		p.next()
		switch {
		case p.at("="):
			p.next()
			f.op = "!="
			f.value, err = p.word()
		case p.at("~"):
			p.next()
			f.op = "!~"
			if f.value, err = p.word(); err == nil {
				f.re, err = compileQLRegexp(f.value, p.caseFlag(), line)
			}
		default:
			return qlTag{}, qlError(line, "'=' or '~' expected after '!'")
		}
	}
	return f, err
}

// caseFlag reads ",i".
func (p *qlParser) caseFlag() bool {
	if p.at(",") && p.pos+1 < len(p.toks) && p.toks[p.pos+1].text == "i" && !p.toks[p.pos+1].str {
		p.pos += 2
		return true
	}
	return false
}

func compileQLRegexp(re string, fold bool, line int) (*regexp.Regexp, error) {
	if fold {
		re = "(?i)" + re
	}
	x, err := regexp.Compile(re)
	if err != nil {
		return nil, qlError(line, "invalid regular expression: %v", err)
	}
	return x, nil
}

func (p *qlParser) spatialFilter(line int, typ string) (qlSpatial, error) {
	t := p.peek()
	switch {
	case !t.str && t.text == "around":
		p.next()
		if err := p.expect(":"); err != nil {
			return qlSpatial{}, err
		}
		var v [3]float64
		for i := range v {
			if i > 0 {
				if err := p.expect(","); err != nil {
					return qlSpatial{}, err
				}
			}
			x, err := p.number()
			if err != nil {
				return qlSpatial{}, err
			}
			v[i] = x
		}
		if v[0] < 0 || v[0] > osmMaxAround || v[1] < -90 || v[1] > 90 || v[2] < -180 || v[2] > 180 {
			return qlSpatial{}, qlError(line, "the sim twin simulates around up to %d m on the map", osmMaxAround)
		}
		return qlSpatial{kind: "around", r: v[0], lat: v[1], lon: v[2]}, nil
	case !t.str && t.text == "area":
		p.next()
		set := "_"
		if p.at(".") {
			p.next()
			s, err := p.setName()
			if err != nil {
				return qlSpatial{}, err
			}
			set = s
		} else if p.at(":") {
			return qlSpatial{}, qlError(line, "area ids are not simulated")
		}
		if typ == "area" {
			return qlSpatial{}, qlError(line, "areas in areas are not simulated")
		}
		return qlSpatial{kind: "area", set: set}, nil
	}
	var v [4]float64
	for i := range v {
		if i > 0 {
			if !p.at(",") {
				return qlSpatial{}, qlError(line, "element ids are not simulated")
			}
			p.next()
		}
		x, err := p.number()
		if err != nil {
			return qlSpatial{}, err
		}
		v[i] = x
	}
	b := orb.Bound{Min: orb.Point{v[1], v[0]}, Max: orb.Point{v[3], v[2]}}
	if !onTheMap(b) || b.Max[0]-b.Min[0] > osmMaxBox || b.Max[1]-b.Min[1] > osmMaxBox {
		return qlSpatial{}, qlError(line, "the sim twin simulates boxes up to %.1f degrees", osmMaxBox)
	}
	return qlSpatial{kind: "bbox", bound: b}, nil
}

// onTheMap tells whether a box is neither empty, nor inverted, nor off
// the map (the world's own rule for a search's rectangle).
func onTheMap(b orb.Bound) bool {
	return b.Min[0] < b.Max[0] && b.Min[1] < b.Max[1] &&
		b.Min[0] >= -180 && b.Max[0] <= 180 && b.Min[1] >= -90 && b.Max[1] <= 90
}

// ---- evaluation ----

// osmElem is a mapped place as OSM holds it, with what the twin knows
// besides its tags (its postcode and settlement, which the areas test).
type osmElem struct {
	typ    string
	id     int64
	pt     orb.Point // a node's position, a way's center
	tags   map[string]string
	pc     string
	settle gazetteer.ID
}

// osmArea is a postcode's or a commune's area.
type osmArea struct {
	id   int64
	pc   string       // a postcode area
	town gazetteer.ID // a commune's (or arrondissement's) area
	tags map[string]string
}

type osmSet struct {
	elems []*osmElem
	areas []osmArea
}

func (h overpassAPI) runOverpass(ctx context.Context, prog *qlProgram, day int) ([]osmOut, bool, error) {
	sets := map[string]*osmSet{"_": {}}
	var out []osmOut
	usedAreas := false
	var run func(st *qlStmt) (*osmSet, error)
	run = func(st *qlStmt) (*osmSet, error) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		switch st.kind {
		case qlUnion:
			u := &osmSet{}
			seen := map[string]bool{}
			for _, m := range st.members {
				r, err := run(m)
				if err != nil {
					return nil, err
				}
				for _, e := range r.elems {
					if k := e.typ + strconv.FormatInt(e.id, 10); !seen[k] {
						seen[k] = true
						u.elems = append(u.elems, e)
					}
				}
				for _, a := range r.areas {
					if !slices.ContainsFunc(u.areas, func(b osmArea) bool { return b.id == a.id }) {
						u.areas = append(u.areas, a)
					}
				}
			}
			sets[st.into] = u
			return u, nil
		case qlItem:
			in := sets[st.from]
			if in == nil {
				in = &osmSet{}
			}
			sets[st.into] = in
			return in, nil
		case qlPrint:
			in := sets[st.from]
			if in == nil {
				in = &osmSet{}
			}
			out = append(out, osmPrint(in, st)...)
			return in, nil
		}
		var r *osmSet
		var err error
		if st.typ == "area" {
			usedAreas = true
			r, err = h.osmAreaQuery(st)
		} else {
			r, err = h.osmElemQuery(st, sets, day)
		}
		if err != nil {
			return nil, err
		}
		sets[st.into] = r
		return r, nil
	}
	for _, st := range prog.stmts {
		if _, err := run(st); err != nil {
			return nil, false, err
		}
	}
	return out, usedAreas, nil
}

// osmPrint writes a set as an out statement asks: nodes, then ways, then
// areas, each by id; at most the limit.
func osmPrint(in *osmSet, st *qlStmt) []osmOut {
	els := slices.Clone(in.elems)
	slices.SortFunc(els, func(a, b *osmElem) int {
		if c := cmp.Compare(osmTypeRank(a.typ), osmTypeRank(b.typ)); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	var out []osmOut
	coords := st.center || st.verbosity == "skel" || st.verbosity == "body" || st.verbosity == "meta"
	tags := st.verbosity == "body" || st.verbosity == "tags" || st.verbosity == "meta"
	for _, e := range els {
		o := osmOut{Type: e.typ, ID: e.id}
		lat, lon := e.pt[1], e.pt[0]
		switch {
		case e.typ == "node" && coords:
			o.Lat, o.Lon = &lat, &lon
		case e.typ == "way" && st.center:
			o.Center = &osmLatLon{lat, lon}
		}
		if tags {
			o.Tags = e.tags
		}
		out = append(out, o)
	}
	areas := slices.Clone(in.areas)
	slices.SortFunc(areas, func(a, b osmArea) int { return cmp.Compare(a.id, b.id) })
	for _, a := range areas {
		o := osmOut{Type: "area", ID: a.id}
		if tags {
			o.Tags = a.tags
		}
		out = append(out, o)
	}
	if st.limit > 0 && len(out) > st.limit {
		out = out[:st.limit]
	}
	return out
}

func osmTypeRank(t string) int {
	switch t {
	case "node":
		return 0
	case "way":
		return 1
	}
	return 2
}

// osmAreaQuery finds the areas an area statement's tag filters name.
func (h overpassAPI) osmAreaQuery(st *qlStmt) (*osmSet, error) {
	g := h.v.Gazetteer()
	if len(st.spatial) > 0 {
		return nil, qlError(st.line, "spatial filters on areas are not simulated")
	}
	r := &osmSet{}
	for _, f := range st.tags {
		if f.op != "=" {
			continue
		}
		switch f.key {
		case "postal_code", "addr:postcode":
			if len(g.ByPostcode("FRA", f.value)) > 0 {
				r.areas = append(r.areas, osmArea{id: 3600000000 + int64(h.v.Seed().Str("postcode area").Str(f.value).Uint64()%100000000),
					pc: f.value, tags: map[string]string{"boundary": "postal_code", "postal_code": f.value, "addr:postcode": f.value}})
			}
		case "name":
			for _, c := range g.Countries() {
				for _, id := range g.Lookup(g.Place(c).Country, f.value) {
					pl := g.Place(id)
					if pl.Name != f.value || (pl.Kind != gazetteer.City && pl.Kind != gazetteer.District) {
						continue
					}
					level := "8"
					if pl.Kind == gazetteer.District {
						level = "9"
					}
					tags := map[string]string{"boundary": "administrative", "admin_level": level, "name": pl.Name, "type": "boundary"}
					if pl.Country == "FRA" {
						tags["ref:INSEE"] = pl.Code
					}
					r.areas = append(r.areas, osmArea{id: 3600000000 + int64(h.v.Seed().Str("town area").Int(int64(id)).Uint64()%100000000),
						town: id, tags: tags})
				}
			}
		}
	}
	r.areas = slices.DeleteFunc(r.areas, func(a osmArea) bool { return !osmMatchTags(st.tags, a.tags) })
	slices.SortFunc(r.areas, func(a, b osmArea) int { return cmp.Compare(a.id, b.id) })
	r.areas = slices.CompactFunc(r.areas, func(a, b osmArea) bool { return a.id == b.id })
	return r, nil
}

// osmElemQuery runs a node, way, nwr or rel statement: the places its first
// bounding filter reaches, kept when every filter accepts them.
func (h overpassAPI) osmElemQuery(st *qlStmt, sets map[string]*osmSet, day int) (*osmSet, error) {
	var areas []osmArea
	for _, s := range st.spatial {
		if s.kind == "area" {
			if in := sets[s.set]; in != nil {
				areas = append(areas, in.areas...)
			}
		}
	}
	// keep is what can be told before a place is drawn whole: its type,
	// position, area and name.
	var nameFilters []qlTag
	for _, f := range st.tags {
		if f.key == "name" && f.op != "~~" {
			nameFilters = append(nameFilters, f)
		}
	}
	keep := func(e *osmElem) bool {
		return osmTypeOK(st.typ, e.typ) && osmMatchTags(nameFilters, e.tags) &&
			!slices.ContainsFunc(st.spatial, func(s qlSpatial) bool { return !osmSpatialOK(s, e, sets) })
	}
	var cands []*osmElem
	switch {
	case st.typ == "rel":
		return &osmSet{}, nil // no place is a relation
	case len(st.spatial) > 0 && st.spatial[0].kind == "around":
		s := st.spatial[0]
		center := orb.Point{s.lon, s.lat}
		cands = h.osmIn(sim.DiscBound(center, s.r/1000), day, keep)
	case len(st.spatial) > 0 && st.spatial[0].kind == "bbox":
		cands = h.osmIn(st.spatial[0].bound, day, keep)
	case len(st.spatial) > 0 && st.spatial[0].kind == "area":
		for _, a := range areas {
			cands = append(cands, h.osmInArea(a, day, keep)...)
		}
	default:
		pc := ""
		for _, f := range st.tags {
			if f.op == "=" && f.key == "addr:postcode" {
				pc = f.value
			}
		}
		if pc == "" {
			return nil, qlError(st.line, "the sim twin needs a bounded query: around, a box, an area or an exact addr:postcode")
		}
		cands = h.osmInArea(osmArea{pc: pc}, day, keep)
	}
	r := &osmSet{}
	type elemRef struct {
		typ string
		id  int64
	}
	seen := map[elemRef]bool{}
	for _, e := range cands {
		if seen[elemRef{e.typ, e.id}] || !osmTypeOK(st.typ, e.typ) || !osmMatchTags(st.tags, e.tags) {
			continue
		}
		if !slices.ContainsFunc(st.spatial, func(s qlSpatial) bool { return !osmSpatialOK(s, e, sets) }) {
			seen[elemRef{e.typ, e.id}] = true
			r.elems = append(r.elems, e)
		}
	}
	return r, nil
}

func osmTypeOK(want, typ string) bool {
	switch want {
	case "nwr", "nw":
		return true
	}
	return want == typ
}

func osmSpatialOK(s qlSpatial, e *osmElem, sets map[string]*osmSet) bool {
	switch s.kind {
	case "around":
		return geo.DistanceHaversine(orb.Point{s.lon, s.lat}, e.pt) <= s.r
	case "bbox":
		return s.bound.Contains(e.pt)
	case "area":
		in := sets[s.set]
		return in != nil && slices.ContainsFunc(in.areas, func(a osmArea) bool { return a.holds(e) })
	}
	return false
}

// holds tells whether the element lies in the area.
func (a osmArea) holds(e *osmElem) bool {
	if a.pc != "" {
		return e.pc == a.pc
	}
	return e.settle == a.town
}

// osmMatchTags tells whether every tag filter accepts the tags.
func osmMatchTags(fs []qlTag, tags map[string]string) bool {
	for _, f := range fs {
		v, has := tags[f.key]
		ok := false
		switch f.op {
		case "has":
			ok = has
		case "not":
			ok = !has
		case "=":
			ok = has && v == f.value
		case "!=":
			ok = v != f.value
		case "~":
			ok = has && f.re.MatchString(v)
		case "!~":
			ok = !has || !f.re.MatchString(v)
		case "~~":
			for k, v := range tags {
				if f.keyRe.MatchString(k) && f.re.MatchString(v) {
					ok = true
					break
				}
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// osmIn is the mapped places whose position lies in b, open on day d,
// that keep accepts.
func (h overpassAPI) osmIn(b orb.Bound, d int, keep func(*osmElem) bool) []*osmElem {
	var out []*osmElem
	for _, c := range h.cats {
		for _, p := range h.v.OpenIn(c, b, d) {
			if e := h.osmElem(p, d, func(e *osmElem) bool { return b.Contains(e.pt) && keep(e) }); e != nil {
				out = append(out, e)
			}
		}
	}
	return out
}

// osmInArea is the mapped places of a postcode (whose address says it)
// or of a commune or arrondissement, open on day d, that keep accepts.
func (h overpassAPI) osmInArea(a osmArea, d int, keep func(*osmElem) bool) []*osmElem {
	var ss []sim.Settlement
	if a.pc != "" {
		for _, id := range h.v.Gazetteer().ByPostcode("FRA", a.pc) {
			ss = append(ss, h.osmSettlements(id)...)
		}
	} else {
		ss = h.osmSettlements(a.town)
	}
	var out []*osmElem
	for _, s := range ss {
		for _, c := range h.cats {
			for _, p := range h.v.Born(s, c, d) {
				if !p.Open(d) {
					continue
				}
				if el := h.osmElem(p, d, func(e *osmElem) bool { return a.holds(e) && keep(e) }); el != nil {
					out = append(out, el)
				}
			}
		}
	}
	return out
}

// osmSettlements is the settlement of a gazetteer place: itself, or for a
// city drawn by arrondissement its arrondissements.
func (h overpassAPI) osmSettlements(id gazetteer.ID) []sim.Settlement {
	if s, ok := h.v.Settlement(id); ok {
		return []sim.Settlement{s}
	}
	var out []sim.Settlement
	for _, k := range h.v.Gazetteer().Children(id) {
		if s, ok := h.v.Settlement(k); ok {
			out = append(out, s)
		}
	}
	return out
}

// osmElem is the place as OSM maps it on day d, nil when it is not
// mapped (osmMapped) or keep refuses it. keep sees the element's
// type, id, position, postcode, settlement and its name and category
// tags only: what is drawn before the rest (a search's filters reject
// most places on their name, and the rest costs more to draw).
func (h overpassAPI) osmElem(x sim.PlaceRef, d int, keep func(*osmElem) bool) *osmElem {
	k := x.Key().Str("osm")
	if k.Float() >= osmMapped {
		return nil
	}
	r := k.Str("tags").Rand()
	c := x.Category()
	loc := x.Locate()
	name := loc.Name()
	pt := x.Point()
	lat, lon := round7(pt[1]), round7(pt[0])
	e := &osmElem{typ: "node", pt: orb.Point{lon, lat}, settle: x.Settlement().ID(), tags: map[string]string{}}
	if r.Chance(0.25) {
		e.typ = "way"
		cosLat := math.Max(math.Cos(lat*math.Pi/180), 0.01)
		e.pt = orb.Point{round7(lon + (r.Float()-0.5)*0.00018/cosLat), round7(lat + (r.Float()-0.5)*0.00018)}
		e.id = 20_000_000 + int64(k.Str("way id").Uint64()%1_200_000_000)
	} else {
		e.id = 1_000_000_000 + int64(k.Str("node id").Uint64()%11_000_000_000)
	}
	t := osmCategoryTags[c.Key()]
	for j := 0; j+1 < len(t); j += 2 {
		e.tags[t[j]] = t[j+1]
	}
	e.tags["name"] = osmName(&r, name, c, loc.Town())
	addr := loc.Address()
	house, street, pc, city := osmSplitAddress(addr)
	e.pc = pc
	if keep != nil && !keep(e) {
		return nil
	}
	p := x.Listing(d)
	if pc != "" && r.Chance(0.7) {
		if house != "" {
			e.tags["addr:housenumber"] = house
		}
		if street != "" {
			e.tags["addr:street"] = street
		}
		e.tags["addr:postcode"] = pc
		e.tags["addr:city"] = city
	}
	siteTagged := false
	if p.Website != "" && r.Chance(0.6) {
		siteTagged = true
		e.tags[osmKey(&r, "website", "contact:website")] = p.Website
	}
	if p.Phone != "" && r.Chance(0.6) {
		e.tags[osmKey(&r, "phone", "contact:phone")] = osmPhone(p.Phone, x.Settlement())
	}
	if siteTagged && r.Chance(0.4) {
		if email := x.Email(d); email != "" {
			e.tags[osmKey(&r, "email", "contact:email")] = email
		}
	}
	if r.Chance(0.45) {
		e.tags["opening_hours"] = pick(&r, osmOpeningHours)
	}
	if r.Chance(0.25) {
		e.tags["wheelchair"] = pick(&r, []string{"yes", "limited", "no"})
	}
	if (c.Key() == "restaurant" || c.Key() == "pizzeria") && r.Chance(0.6) && e.tags["cuisine"] == "" {
		e.tags["cuisine"] = pick(&r, osmCuisines)
	}
	if r.Chance(0.15) {
		e.tags["payment:cards"] = "yes"
	}
	if r.Chance(0.10) {
		e.tags["contact:facebook"] = "https://www.facebook.com/" + sim.Slug(p.Name, 30)
	}
	return e
}

// pick returns one of xs, uniformly (as the world picks).
func pick[T any](r *sim.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

// round7 rounds a coordinate as the listing shows it.
func round7(x float64) float64 { return math.Round(x*1e7) / 1e7 }

// osmKey is the usual key nine times in ten, its contact: form else.
func osmKey(r *sim.Rand, usual, contact string) string {
	if r.Chance(0.1) {
		return contact
	}
	return usual
}

// osmName is the name a mapper gave the place (see the package comment).
func osmName(r *sim.Rand, name string, c sim.Category, town string) string {
	switch u := r.Float(); {
	case u < 0.70:
		return name
	case u < 0.80:
		return strings.ToUpper(accent.Fold(name))
	case u < 0.88 && len(c.LegalForms()) > 0:
		return name + " " + pick(r, c.LegalForms())
	case u < 0.95:
		word := strings.Fields(c.Display())[0]
		if strings.Contains(gazetteer.Normalize(name), gazetteer.Normalize(word)) {
			return name
		}
		return name + " " + word
	default:
		return c.Display() + " " + town
	}
}

// osmSplitAddress reads "12 bis rue de la République, 69003 Lyon":
// house "12 bis", street "rue de la République", postcode and city.
// Addresses of other countries give nothing.
func osmSplitAddress(addr string) (house, street, pc, city string) {
	line, rest, ok := strings.Cut(addr, ", ")
	if !ok || len(rest) < 7 || rest[5] != ' ' {
		return "", "", "", ""
	}
	if _, err := strconv.Atoi(rest[:5]); err != nil {
		return "", "", "", ""
	}
	pc, city = rest[:5], rest[6:]
	no, st, _ := strings.Cut(line, " ")
	if b, ok := strings.CutPrefix(st, "bis "); ok {
		no, st = no+" bis", b
	}
	if _, err := strconv.Atoi(strings.TrimSuffix(no, " bis")); err != nil {
		// "Gartenstraße 56": the number after the street (Germany,
		// Spain, Italy).
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			if _, err := strconv.Atoi(line[i+1:]); err == nil {
				return line[i+1:], line[:i], pc, city
			}
		}
		return "", line, pc, city
	}
	return no, st, pc, city
}

// osmPhone writes a metropolitan French number as OSM mappers
// do ("04 78 12 34 56" is "+33 4 78 12 34 56"); other numbers (foreign
// ones, already international; overseas ones, whose country code is
// their department's) as the listing gives them.
func osmPhone(p string, s sim.Settlement) string {
	if s.Country() != "FRA" || strings.HasPrefix(s.Code(), "97") || len(p) < 2 || p[0] != '0' {
		return p
	}
	return "+33 " + p[1:]
}
