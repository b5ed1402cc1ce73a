package rowdiff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/accent"
	"github.com/prospectdata/svc/shared/export"
)

// Key prefixes: each kind of key lives in its own space, so a name can
// never collide with a place id.
const (
	prefixID      = "id:"
	prefixNameAdr = "na:"
	prefixPhone   = "tel:"
	prefixContent = "h:"
)

// Key returns the stable key of a row under header, the identity that
// matches a place of the previous run to the same place of the current one:
//
//   - "id:" + place_id when the row has a non-empty place_id (the
//     provider's id of the place: it survives a change of name, address or
//     phone);
//   - otherwise "na:" + the normalised name + "|" + the normalised address
//     when either is non-empty (lower case, accents folded, every run of
//     punctuation and white space one space, trimmed);
//   - otherwise "tel:" + the digits of telephone;
//   - otherwise "h:" + a hash of the row's non-empty cells and their
//     column names (column order does not matter): such a row has no
//     identity, it matches only an identical row.
//
// Cells are read as values: formula guard undone, white space trimmed.
// Header names are read as export.ReadCSV reads them (export.Keys), so
// Key gives the keys Diff uses.
func Key(header, row []string) string {
	k := newKeyer(export.Keys(header))
	return string(k.appendKey(nil, stringCells(row)))
}

// cellSource is what a key is computed from: the splitter's cells on the
// diff's path, a []string for Key.
type cellSource interface {
	cell(i int) []byte
	n() int
}

type stringCells []string

func (c stringCells) cell(i int) []byte {
	if i < 0 || i >= len(c) {
		return nil
	}
	return []byte(c[i])
}

func (c stringCells) n() int { return len(c) }

// keyer computes keys for one header.
type keyer struct {
	header                   []string
	placeID, nom, adr, phone int
}

func newKeyer(header []string) keyer {
	return keyer{
		header:  header,
		placeID: slices.Index(header, "place_id"),
		nom:     slices.Index(header, "nom"),
		adr:     slices.Index(header, "adresse"),
		phone:   slices.Index(header, "telephone"),
	}
}

// appendKey appends the key of the row in cells to dst.
func (k *keyer) appendKey(dst []byte, cells cellSource) []byte {
	if id := value(cells.cell(k.placeID)); len(id) > 0 {
		return append(append(dst, prefixID...), id...)
	}
	mark := len(dst)
	dst = append(dst, prefixNameAdr...)
	dst = appendNorm(dst, value(cells.cell(k.nom)))
	dst = append(dst, '|')
	dst = appendNorm(dst, value(cells.cell(k.adr)))
	if len(dst) > mark+len(prefixNameAdr)+1 {
		return dst
	}
	dst = append(dst[:mark], prefixPhone...)
	for _, c := range cells.cell(k.phone) {
		if c >= '0' && c <= '9' {
			dst = append(dst, c)
		}
	}
	if len(dst) > mark+len(prefixPhone) {
		return dst
	}
	return k.appendContentKey(dst[:mark], cells)
}

// appendContentKey appends "h:" and a hash of the named non-empty cells,
// sorted by column name so two layouts of the same row agree.
func (k *keyer) appendContentKey(dst []byte, cells cellSource) []byte {
	type named struct{ name, value string }
	var vals []named
	for i := range min(cells.n(), len(k.header)) {
		if v := value(cells.cell(i)); len(v) > 0 {
			vals = append(vals, named{k.header[i], string(v)})
		}
	}
	slices.SortFunc(vals, func(a, b named) int { return strings.Compare(a.name, b.name) })
	h := sha256.New()
	for _, v := range vals {
		h.Write([]byte(v.name))
		h.Write([]byte{0x1f})
		h.Write([]byte(v.value))
		h.Write([]byte{0x1e})
	}
	sum := h.Sum(nil)
	return hex.AppendEncode(append(dst, prefixContent...), sum[:16])
}

// value is a cell as a value: the export's formula guard undone
// (export.RestoreBytes, the guard's own rule), white space trimmed.
func value(cell []byte) []byte {
	return bytes.TrimSpace(export.RestoreBytes(cell))
}

// appendNorm appends s normalised for matching: lower case, marks removed
// (é e), letters that do not decompose spelled out (œ oe), every run of
// other characters one space, no space at either end.
func appendNorm(dst, s []byte) []byte {
	ascii := true
	for _, c := range s {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if !ascii {
		s = accent.FoldBytes(s)
	}
	start, space := len(dst), false
	emit := func(p []byte) {
		if space && len(dst) > start {
			dst = append(dst, ' ')
		}
		space = false
		dst = append(dst, p...)
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
				emit([]byte{c})
			case c >= 'A' && c <= 'Z':
				emit([]byte{c + 'a' - 'A'})
			default:
				space = true
			}
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		i += size
		switch {
		case spelled[r] != "":
			emit([]byte(spelled[r]))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			emit(utf8.AppendRune(nil, unicode.ToLower(r)))
		default:
			space = true
		}
	}
	return dst
}

// spelled are lower-case letters NFD does not split into a base letter and
// a mark (accent.FoldBytes keeps them), and their upper-case forms.
var spelled = map[rune]string{
	'ß': "ss", 'œ': "oe", 'Œ': "oe", 'æ': "ae", 'Æ': "ae", 'ø': "o", 'Ø': "o",
	'ł': "l", 'Ł': "l", 'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'þ': "th", 'Þ': "th", 'ı': "i",
}
