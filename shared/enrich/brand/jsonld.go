package brand

import (
	"encoding/json"
	"strings"

	"github.com/PuerkitoBio/goquery"
)

// jsonLDLogos returns the logo URLs (as written, not resolved) of the
// organisations described in the page's JSON-LD blocks, in order. A logo
// is a string, an ImageObject (url or contentUrl), an array of either, or
// a reference by @id to an ImageObject elsewhere in the @graph (as Yoast
// writes it).
func jsonLDLogos(doc *goquery.Document) []string {
	var nodes []map[string]any
	doc.Find(`script[type="application/ld+json"]`).Each(func(_ int, s *goquery.Selection) {
		text := strings.TrimSpace(s.Text())
		// Some themes wrap the block in an HTML comment or CDATA.
		text = strings.TrimSuffix(strings.TrimPrefix(text, "<!--"), "-->")
		text = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(text), "//<![CDATA["), "//]]>")
		var v any
		if json.Unmarshal([]byte(text), &v) != nil {
			return
		}
		nodes = flattenLD(v, nodes)
	})
	byID := map[string]map[string]any{}
	for _, n := range nodes {
		if id, ok := n["@id"].(string); ok {
			byID[id] = n
		}
	}
	var out []string
	for _, n := range nodes {
		if !isOrganisation(n["@type"]) {
			continue
		}
		if u := logoURL(n["logo"], byID, 0); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// flattenLD lists every object of a JSON-LD value: top-level objects,
// arrays of them, and the members of an @graph.
func flattenLD(v any, acc []map[string]any) []map[string]any {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			acc = flattenLD(e, acc)
		}
	case map[string]any:
		acc = append(acc, t)
		if g, ok := t["@graph"]; ok {
			acc = flattenLD(g, acc)
		}
	}
	return acc
}

// orgTypes are the schema.org types (and common subtypes written by site
// builders and SEO plugins) whose logo is the business's own.
var orgTypes = []string{"organization", "localbusiness", "corporation", "brand", "store", "restaurant",
	"bakery", "cafeorcoffeeshop", "foodestablishment", "professionalservice", "legalservice", "attorney",
	"notary", "plumber", "electrician", "roofingcontractor", "generalcontractor", "homeandconstructionbusiness",
	"autorepair", "autodealer", "automotivebusiness", "hairsalon", "beautysalon", "healthandbeautybusiness",
	"dentist", "physician", "medicalbusiness", "medicalorganization", "realestateagent", "lodgingbusiness",
	"hotel", "sportsactivitylocation", "accountingservice", "financialservice", "insuranceagency",
	"travelagency", "educationalorganization", "ngo", "onlinestore", "onlinebusiness"}

func isOrganisation(t any) bool {
	switch v := t.(type) {
	case string:
		name := strings.ToLower(v)
		name = name[strings.LastIndexAny(name, "/:")+1:]
		for _, o := range orgTypes {
			if name == o {
				return true
			}
		}
		// Subtypes this list misses still end like their parents.
		return strings.HasSuffix(name, "business") || strings.HasSuffix(name, "organization") || strings.HasSuffix(name, "store")
	case []any:
		for _, e := range v {
			if isOrganisation(e) {
				return true
			}
		}
	}
	return false
}

// logoURL reads a logo value; depth bounds @id chains.
func logoURL(v any, byID map[string]map[string]any, depth int) string {
	if depth > 3 {
		return ""
	}
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t)
	case []any:
		for _, e := range t {
			if u := logoURL(e, byID, depth+1); u != "" {
				return u
			}
		}
	case map[string]any:
		for _, k := range []string{"url", "contentUrl"} {
			if s, ok := t[k].(string); ok && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s)
			}
		}
		if id, ok := t["@id"].(string); ok {
			if ref, ok := byID[id]; ok && !sameMap(ref, t) {
				return logoURL(ref, byID, depth+1)
			}
		}
	}
	return ""
}

// sameMap tells whether two decoded objects are the same one (a node
// referring to itself by @id).
func sameMap(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if s, ok := v.(string); ok {
			if bs, ok := b[k].(string); !ok || bs != s {
				return false
			}
		}
	}
	return true
}
