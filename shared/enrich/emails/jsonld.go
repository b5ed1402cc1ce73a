package emails

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// jsonLDEmailRe reads "email" fields out of JSON-LD that does not parse
// (trailing commas and comments are common in hand-written blocks).
var jsonLDEmailRe = regexp.MustCompile(`(?i)"email"\s*:\s*"([^"]*)"`)

// jsonLD reads every "email" property of a JSON-LD block, at any depth:
// Organization, LocalBusiness and its subtypes, @graph members, contactPoint.
func (c *collector) jsonLD(src string) {
	var v any
	if err := json.Unmarshal([]byte(strings.TrimSpace(src)), &v); err != nil {
		for _, m := range jsonLDEmailRe.FindAllStringSubmatch(src, -1) {
			c.add(stripMailto(m[1]), KindJSONLD)
		}
		return
	}
	c.jsonValue(v)
}

func (c *collector) jsonValue(v any) {
	switch t := v.(type) {
	case map[string]any:
		// Sorted keys keep the discovery order stable; an object's own
		// email comes before its children's.
		keys := slices.Sorted(maps.Keys(t))
		for _, k := range keys {
			if strings.EqualFold(k, "email") {
				c.jsonEmail(t[k])
			}
		}
		for _, k := range keys {
			if !strings.EqualFold(k, "email") {
				c.jsonValue(t[k])
			}
		}
	case []any:
		for _, x := range t {
			c.jsonValue(x)
		}
	}
}

func (c *collector) jsonEmail(v any) {
	switch t := v.(type) {
	case string:
		c.add(stripMailto(t), KindJSONLD)
	case []any:
		for _, x := range t {
			c.jsonEmail(x)
		}
	}
}
