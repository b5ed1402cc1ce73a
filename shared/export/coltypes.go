package export

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is what a column's cells hold, for the writers of typed formats
// (JSON, items, XLSX). The stored CSV has no types: a cell is text, and
// the column says how to read it.
type Kind uint8

// Kinds of the column table.
const (
	// String is text: every column the table does not know (an import's
	// columns, a user's extra ones) and every identifier that looks like a
	// number but is not one (phone numbers, postal codes, SIRET).
	String Kind = iota
	// Integer is a whole number: "-12", "1500".
	Integer
	// Number is a decimal number with '.' as the mark: "4.5", "-0.25".
	Number
	// Boolean is "true" or "false".
	Boolean
	// Date is a calendar day, YYYY-MM-DD.
	Date
	// List is a list of texts joined by the column's separator ("; ").
	List
	// JSONText is a JSON array or object stored as its compact text.
	JSONText
)

// String names the kind as docs/columns.md does.
func (k Kind) String() string {
	switch k {
	case Integer:
		return "integer"
	case Number:
		return "number"
	case Boolean:
		return "boolean"
	case Date:
		return "date"
	case List:
		return "list"
	case JSONText:
		return "json"
	}
	return "string"
}

// ColumnType is a column's kind and, for a List, the separator its module
// joins the items with.
type ColumnType struct {
	Kind Kind
	Sep  string
}

var (
	str      = ColumnType{Kind: String}
	integer  = ColumnType{Kind: Integer}
	number   = ColumnType{Kind: Number}
	boolean  = ColumnType{Kind: Boolean}
	date     = ColumnType{Kind: Date}
	list     = ColumnType{Kind: List, Sep: "; "}
	commas   = ColumnType{Kind: List, Sep: ", "}
	jsonText = ColumnType{Kind: JSONText}
)

// columnTable is the one column type table every typed writer reads
// (docs/columns.md lists it with the module writing each column). A column
// is listed only when every module writing it gives it that type; one
// written as free text by any module (capital_social: legal_mentions
// copies the page's "10 000 €") stays a string. Columns not listed are
// strings.
var columnTable = map[string]ColumnType{
	// scrape (placerow)
	"rating": number, "reviews_count": integer, "aggregator_flag": boolean,
	"latitude": number, "longitude": number, "lat": number, "lon": number,
	// sirene
	"date_creation": date, "is_siege": boolean,
	// legal_data
	"dirigeants": list, "ca": integer, "resultat_net": integer, "labels_qualite": commas,
	"bodacc_modifs_12m": integer,
	// techstack
	"tech_cms": list, "tech_analytics": list, "tech_ads_pixels": list,
	// ads_intelligence
	"ads_active": boolean, "ads_score": integer, "ads_networks": list, "pixel_social": list,
	"pixel_search_ads": list, "cmp_vendor": list, "retargeting": list, "crm_marketing": list,
	"chat_widgets": list,
	// brand_assets
	"logo_variants_local_urls": list, "brand_palette": list,
	// dead_check
	"site_alive": boolean,
	// phones_extra
	"phones_extra": list, "phones_mobile": list, "phones_fixed": list,
	// pricing
	"price_amount": number, "price_confidence": number,
	// reviews
	"reviews_list": jsonText, "owner_replied": boolean,
	// opendata
	"opendata_champs": list,
	// pagespeed
	"perf_score": integer, "seo_score": integer, "accessibility_score": integer,
	"best_practices_score": integer, "lcp": integer, "cls": number, "inp": integer,
	// phone_info
	"phone_is_ported": boolean, "phone_is_reachable": boolean, "phone_is_valid": boolean,
	"phone_operator_registered_since": date,
	// veille signals
	"note_avant": number, "note_apres": number, "delta_note": number,
	"avis_avant": integer, "avis_apres": integer, "delta_avis": integer, "score": number,
}

// TypeOf is the type of a column, by its key (Keys): String for a column
// the table does not know, and for a repeated one ("rating_2"), whose
// content nothing vouches for.
func TypeOf(column string) ColumnType {
	if t, ok := columnTable[column]; ok {
		return t
	}
	return str
}

// ColumnTable returns a copy of the table, for docs and tests.
func ColumnTable() map[string]ColumnType {
	out := make(map[string]ColumnType, len(columnTable))
	for k, v := range columnTable {
		out[k] = v
	}
	return out
}

// columnTypes are the types of a header's columns.
func columnTypes(keys []string) []ColumnType {
	types := make([]ColumnType, len(keys))
	for i, k := range keys {
		types[i] = TypeOf(k)
	}
	return types
}

// maxExactDigits is how many significant digits a number may have and
// still be carried as a number: a double holds 15 exactly, and Excel keeps
// 15. A longer one ("12345678901234567") stays text, as written, rather
// than come back rounded.
const maxExactDigits = 15

// numberText tells whether s is a number a typed format can carry exactly:
// JSON's number grammar (so no "+1", "01", ".5", "1,5", "NaN"), a finite
// double, at most maxExactDigits significant digits; integer also refuses a
// fraction and an exponent.
func numberText(s string, integer bool) bool {
	i, n := 0, len(s)
	if i < n && s[i] == '-' {
		i++
	}
	digits, significant := 0, 0
	intStart := i
	for ; i < n && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
		if significant > 0 || s[i] != '0' {
			significant++
		}
	}
	if digits == 0 || (digits > 1 && s[intStart] == '0') {
		return false
	}
	if i < n && s[i] == '.' {
		if integer {
			return false
		}
		i++
		frac := 0
		for ; i < n && s[i] >= '0' && s[i] <= '9'; i++ {
			frac++
			if significant > 0 || s[i] != '0' {
				significant++
			}
		}
		if frac == 0 {
			return false
		}
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		if integer {
			return false
		}
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < n && s[i] >= '0' && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			return false
		}
	}
	if i != n || significant > maxExactDigits {
		return false
	}
	// ParseFloat reports an overflow; an underflow ("1e-400") reads as 0.
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && (f != 0 || significant == 0)
}

// boolText reads "true" or "false", exactly as the modules write them.
func boolText(s string) (v, ok bool) {
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// dateText reads a YYYY-MM-DD day.
func dateText(s string) (time.Time, bool) {
	if len(s) != len("2006-01-02") {
		return time.Time{}, false
	}
	d, err := time.Parse(time.DateOnly, s)
	return d, err == nil
}

// jsonContainer tells whether s is one JSON array or object (what a
// JSONText column holds), valid UTF-8 throughout, and returns it compact.
func jsonContainer(s string) ([]byte, bool) {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '[' && t[0] != '{') || !utf8.ValidString(t) {
		return nil, false
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(t)); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// listItems splits a List cell. A cell holding a JSON array of strings (a
// list that went through an items page and back into a job: items are
// kept as text, arrays as their JSON) is read as that array.
func listItems(t ColumnType, cell string) []string {
	if strings.HasPrefix(cell, "[") {
		var items []string
		if err := json.Unmarshal([]byte(cell), &items); err == nil && utf8.ValidString(cell) {
			return items
		}
	}
	return strings.Split(cell, t.Sep)
}

// appendJSONValue appends a cell, as the stored CSV holds it (guarded), as
// the JSON value its column's type makes of it: null for the empty cell,
// a number, a boolean, an array of strings for a List, the array or object
// of a JSONText column; a date is its YYYY-MM-DD string. A cell that does
// not read as its type stays a string, as written: nothing is lost.
func appendJSONValue(buf []byte, t ColumnType, cell string) []byte {
	cell = Restore(cell)
	if cell == "" {
		return append(buf, "null"...)
	}
	switch t.Kind {
	case Integer, Number:
		if numberText(cell, t.Kind == Integer) {
			return append(buf, cell...)
		}
	case Boolean:
		if _, ok := boolText(cell); ok {
			return append(buf, cell...)
		}
	case List:
		buf = append(buf, '[')
		for i, item := range listItems(t, cell) {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendJSONString(buf, item)
		}
		return append(buf, ']')
	case JSONText:
		if v, ok := jsonContainer(cell); ok {
			return append(buf, v...)
		}
	}
	return appendJSONString(buf, cell)
}

// Value is a stored cell as a Go value by its column's type, the value the
// JSON formats carry: nil (empty), string, bool, json.Number, []string (a
// List) or json.RawMessage (a JSONText array or object). The guard is
// undone.
func Value(column, cell string) any {
	t := TypeOf(column)
	cell = Restore(cell)
	if cell == "" {
		return nil
	}
	switch t.Kind {
	case Integer, Number:
		if numberText(cell, t.Kind == Integer) {
			return json.Number(cell)
		}
	case Boolean:
		if v, ok := boolText(cell); ok {
			return v
		}
	case List:
		return listItems(t, cell)
	case JSONText:
		if v, ok := jsonContainer(cell); ok {
			return json.RawMessage(v)
		}
	}
	return cell
}
