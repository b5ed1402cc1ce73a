package rowdiff

import (
	"bytes"
	"math"
	"slices"
	"strconv"
)

// trackedFields are the columns whose change makes a row "modified", in the
// order ChangedFields lists them. The others (lien_maps, place_id, query,
// zone, aggregator_flag, enrichment columns) describe how or where the row
// was found, or are derived from the tracked ones: their change alone is
// not a change of the place.
var trackedFields = [...]string{"nom", "adresse", "telephone", "site_web", "rating", "reviews_count", "category"}

// TrackedFields returns the tracked columns in their order.
func TrackedFields() []string { return slices.Clone(trackedFields[:]) }

// compareKind is how a tracked field's two values are compared.
type compareKind uint8

const (
	compareText    compareKind = iota // values equal as text
	compareDecimal                    // rating: 4.30 == 4.3 == 4,3
	compareInteger                    // reviews_count: 012 == 12 == "1 234" for 1234
)

func kindOf(field string) compareKind {
	switch field {
	case "rating":
		return compareDecimal
	case "reviews_count":
		return compareInteger
	}
	return compareText
}

// fieldPair is a tracked field present in both headers.
type fieldPair struct {
	name      string
	prev, cur int
	kind      compareKind
}

// trackedPairs returns the tracked fields present in both headers, in
// tracked order. A field only one side has cannot be compared: it does
// not count as changed.
func trackedPairs(prevHdr, curHdr []string) []fieldPair {
	var out []fieldPair
	for _, f := range trackedFields {
		p, c := slices.Index(prevHdr, f), slices.Index(curHdr, f)
		if p >= 0 && c >= 0 {
			out = append(out, fieldPair{name: f, prev: p, cur: c, kind: kindOf(f)})
		}
	}
	return out
}

// equalValues compares two stored cells as values of the given kind: after
// the formula guard is undone and white space trimmed; a number that does
// not parse on either side is compared as text.
func equalValues(kind compareKind, a, b []byte) bool {
	a, b = value(a), value(b)
	if bytes.Equal(a, b) {
		return true
	}
	if len(a) == 0 || len(b) == 0 {
		return false // a value appeared or disappeared
	}
	switch kind {
	case compareDecimal:
		x, okx := parseDecimal(a)
		y, oky := parseDecimal(b)
		return okx && oky && x == y
	case compareInteger:
		x, okx := parseInteger(a)
		y, oky := parseInteger(b)
		return okx && oky && x == y
	}
	return false
}

// parseDecimal reads a rating: '.' or ',' as the decimal mark. Equal
// decimals parse to the same float64 (correct rounding), so 4.30 == 4.3.
func parseDecimal(b []byte) (float64, bool) {
	s := string(b)
	if i := bytes.IndexByte(b, ','); i >= 0 {
		s = s[:i] + "." + s[i+1:]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// parseInteger reads a count, allowing the spaces a French locale puts
// between thousands (space, no-break space, narrow no-break space) and a
// decimal form of an integer ("12.0").
func parseInteger(b []byte) (int64, bool) {
	digits := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		switch {
		case b[i] == ' ':
			i++
		case bytes.HasPrefix(b[i:], []byte("\u00a0")):
			i += len("\u00a0")
		case bytes.HasPrefix(b[i:], []byte("\u202f")):
			i += len("\u202f")
		default:
			digits = append(digits, b[i])
			i++
		}
	}
	if n, err := strconv.ParseInt(string(digits), 10, 64); err == nil {
		return n, true
	}
	f, ok := parseDecimal(digits)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// ChangedFields returns the tracked fields whose values differ between two
// rows of one key, in tracked order, by Diff's rules: a field one of the
// rows lacks is not compared. Diff's ChangedFields are this function's on
// its rows (FuzzDiff checks it); it serves a caller that builds a row
// itself, such as the veille's place looked up again.
func ChangedFields(before, after Row) []string {
	var out []string
	for _, p := range trackedPairs(before.Header(), after.Header()) {
		if !equalValues(p.kind, []byte(before.Get(p.name)), []byte(after.Get(p.name))) {
			out = append(out, p.name)
		}
	}
	return out
}
