package phones

import (
	"encoding/json"
	"regexp"
	"sort"
)

// telephoneKey reads "telephone" / "faxNumber" from a JSON-LD block that
// does not parse (trailing commas, unescaped quotes are common in CMS
// output); it is a pattern over JSON text, not over markup.
var telephoneKey = regexp.MustCompile(`"(telephone|faxNumber)"\s*:\s*"([^"]{6,40})"`)

// jsonLD reads schema.org telephone and faxNumber values.
func (w *walker) jsonLD(src string) {
	var v any
	if err := json.Unmarshal([]byte(src), &v); err != nil {
		for _, m := range telephoneKey.FindAllStringSubmatch(src, -1) {
			w.add(m[2], true, m[1] == "faxNumber")
		}
		return
	}
	w.jsonValue(v)
}

func (w *walker) jsonValue(v any) {
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			w.jsonValue(e)
		}
	case map[string]any:
		// Sorted keys keep the order of discovery stable.
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			e := t[k]
			switch k {
			case "telephone", "faxNumber":
				for _, s := range stringList(e) {
					w.add(s, true, k == "faxNumber")
				}
			default:
				w.jsonValue(e)
			}
		}
	}
}

// stringList returns a JSON value that is a string or a list of strings.
func stringList(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, e := range t {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
