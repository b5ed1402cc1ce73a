package opendata

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"slices"
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/prospectdata/svc/shared/phonenum"
	"github.com/prospectdata/svc/shared/placerow"
)

// Response is an Overpass API answer in its JSON format ([out:json];
// output_json.cc of the Overpass API): a header, the elements, and a
// "remark" when the query failed while running (a timeout, memory
// exhausted): Overpass has already sent 200 then, so the remark is the
// only sign that the elements are incomplete.
type Response struct {
	Version   float64 `json:"version"`
	Generator string  `json:"generator"`
	OSM3S     struct {
		TimestampOSMBase   string `json:"timestamp_osm_base"`
		TimestampAreasBase string `json:"timestamp_areas_base,omitempty"`
		Copyright          string `json:"copyright"`
	} `json:"osm3s"`
	Elements []Element `json:"elements"`
	Remark   string    `json:"remark,omitempty"`
}

// Element is one OSM object of an answer. A node has Lat and Lon; with
// "out center", a way or a relation has Center.
type Element struct {
	Type   string            `json:"type"`
	ID     int64             `json:"id"`
	Lat    *float64          `json:"lat,omitempty"`
	Lon    *float64          `json:"lon,omitempty"`
	Center *LatLon           `json:"center,omitempty"`
	Tags   map[string]string `json:"tags,omitempty"`
}

// decodeResponse reads an answer's body. A body that is not the JSON
// format (an HTML error page served with 200, a cut body) is an error, as
// is an element without type or id.
func decodeResponse(body []byte) (*Response, error) {
	var r Response
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("opendata: malformed Overpass answer: %w", err)
	}
	if r.Elements == nil && r.Remark == "" {
		return nil, fmt.Errorf("opendata: malformed Overpass answer: no elements")
	}
	for _, e := range r.Elements {
		if e.Type == "" || e.ID == 0 {
			return nil, fmt.Errorf("opendata: malformed Overpass answer: element without type or id")
		}
	}
	return &r, nil
}

// runtimeError is the remark of a query that failed while running, ""
// for none. Overpass writes "runtime error: Query timed out in "query" at
// line 3 after 26 seconds." (or "... run out of memory ..."); a "runtime
// remark" is informative only.
func (r *Response) runtimeError() string {
	if strings.Contains(strings.ToLower(r.Remark), "error") {
		return r.Remark
	}
	return ""
}

// Ref is the element's reference as openstreetmap.org names it:
// "node/123", "way/456" (https://www.openstreetmap.org/node/123).
func (e *Element) Ref() string { return e.Type + "/" + strconv.FormatInt(e.ID, 10) }

// Position is a node's coordinates or a way's or relation's center.
func (e *Element) Position() (LatLon, bool) {
	var p LatLon
	switch {
	case e.Lat != nil && e.Lon != nil:
		p = LatLon{*e.Lat, *e.Lon}
	case e.Center != nil:
		p = *e.Center
	default:
		return LatLon{}, false
	}
	return p, p.Valid()
}

// isBusiness tells whether the element carries a business key
// (businessKeys) and a name.
func (e *Element) isBusiness() bool {
	if strings.TrimSpace(e.Tags["name"]) == "" {
		return false
	}
	for _, k := range businessKeys {
		if v := e.Tags[k]; v != "" && v != "no" {
			return true
		}
	}
	return false
}

// first is the first of a tag's values: OSM separates several with ";".
func first(v string) string { return strings.TrimSpace(strings.SplitN(v, ";", 2)[0]) }

// tag is the first non-empty of the keys' first values.
func (e *Element) tag(keys ...string) string {
	for _, k := range keys {
		if v := first(e.Tags[k]); v != "" {
			return v
		}
	}
	return ""
}

// Website is the element's website (website, contact:website, url), read
// as placerow.SiteURL reads a site_web cell ("www.x.fr" gets https://); ""
// when none is usable.
func (e *Element) Website() string {
	u, ok := placerow.SiteURL(e.tag("website", "contact:website", "url"))
	if !ok {
		return ""
	}
	return u.String()
}

// Phone is the element's phone (phone, contact:phone): a number of the
// home market (phonenum.Home, France) in the national format its
// listings use ("04 78 12 34 56"), another country's in the international
// format ("+41 22 123 45 67"), a number libphonenumber cannot read as OSM
// gives it. A number written without its calling code is read in the
// element's country (addr:country, alpha-2 in OSM), else in the home
// market's: the row names no country, and most elements do not either.
func (e *Element) Phone() string {
	raw := e.tag("phone", "contact:phone")
	if raw == "" {
		return ""
	}
	n, err := phonenum.Parse(raw, phonenum.OrHome(e.tag("addr:country")))
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return raw
	}
	if phonenumbers.GetRegionCodeForNumber(n) == phonenum.Region(phonenum.Home) {
		return phonenumbers.Format(n, phonenumbers.NATIONAL)
	}
	return phonenumbers.Format(n, phonenumbers.INTERNATIONAL)
}

// Email is the element's address (email, contact:email), "" when it is
// not one.
func (e *Element) Email() string {
	v := strings.TrimPrefix(e.tag("email", "contact:email"), "mailto:")
	a, err := mail.ParseAddress(v)
	if err != nil || a.Name != "" || a.Address != v || !strings.Contains(v[strings.LastIndexByte(v, '@')+1:], ".") {
		return ""
	}
	return v
}

// contactCount is how many of website, phone and email the element gives.
func (e *Element) contactCount() int {
	n := 0
	for _, v := range []string{e.Website(), e.Phone(), e.Email()} {
		if v != "" {
			n++
		}
	}
	return n
}

// ChampsSeparator joins the entries of an opendata_champs cell.
const ChampsSeparator = "; "

// champs are the other tags opendata_champs reports, in its order: what
// a prospect's file gains from OSM besides the contacts. An entry ending
// in ":*" is a family of keys (payment:cards, payment:contactless...),
// listed once; "mobile" stands for mobile, contact:mobile and
// phone:mobile.
var champs = []string{
	"opening_hours", "wheelchair", "cuisine", "diet:*", "takeaway", "delivery", "outdoor_seating", "drive_through",
	"payment:*", "mobile", "contact:facebook", "contact:instagram", "contact:linkedin", "contact:twitter",
	"contact:youtube", "contact:tiktok", "brand", "operator", "ref:FR:SIRET", "start_date", "description", "level",
	"stars", "healthcare:speciality", "dispensing", "internet_access", "air_conditioning", "image", "wikidata",
}

// Champs is the opendata_champs cell of an element: the entries of
// champs it carries (with a value other than "no" for a family), joined
// by ChampsSeparator: "opening_hours; wheelchair; cuisine".
func (e *Element) Champs() string {
	var out []string
	for _, c := range champs {
		switch {
		case c == "mobile":
			if e.tag("mobile", "contact:mobile", "phone:mobile") != "" {
				out = append(out, c)
			}
		case strings.HasSuffix(c, ":*"):
			prefix := strings.TrimSuffix(c, "*")
			for k, v := range e.Tags {
				if strings.HasPrefix(k, prefix) && strings.TrimSpace(v) != "" && v != "no" {
					out = append(out, c)
					break
				}
			}
		case strings.TrimSpace(e.Tags[c]) != "":
			out = append(out, c)
		}
	}
	return strings.Join(slices.Compact(out), ChampsSeparator)
}
