package phoneinfo

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/prospectdata/svc/shared/accent"
)

// MaxARCEPFile caps the bytes read from one ARCEP file (MAJNUM is about
// 1 MB, the operators' list about 200 KB).
const MaxARCEPFile = 32 << 20

// The columns LoadARCEP reads, by header name (compared without case,
// accents, spaces or underscores, so "Mnémo", "MNEMO" and a mis-decoded
// "Mn?mo" are one column).
//
// MAJNUM.csv, ARCEP's numbering resources (one row per block):
//
//	EZABPQM;Tranche_Debut;Tranche_Fin;Mnémo;Territoire;Date_Attribution
//	014816;0148160000;0148169999;HUBT;Métropole;27/07/2001
//
// identifiants_CE.csv, the declared operators (one row per operator):
//
//	IDENTITE_OPERATEUR;CODE_OPERATEUR;SIRET_ACTEUR;RCS_ACTEUR;ADRESSE_COMPLETE_ACTEUR;ATTRIB_RESS_NUM;DATE_DECLARATION_OPERATEUR
//	"Hub One";HUBT;"437947666 00131";BOBIGNY;"MERCURE … 93290 TREMBLAY-EN-FRANCE";1;03/07/2001
const (
	colBlock      = "EZABPQM"
	colFirst      = "TRANCHEDEBUT"
	colLast       = "TRANCHEFIN"
	colMnemonic   = "MNEMO"
	colTerritory  = "TERRITOIRE"
	colAssignedOn = "DATEATTRIBUTION"

	colOpName    = "IDENTITEOPERATEUR"
	colOpCode    = "CODEOPERATEUR"
	colOpSIRET   = "SIRETACTEUR"
	colOpAddress = "ADRESSECOMPLETEACTEUR"
	colOpSince   = "DATEDECLARATIONOPERATEUR"
)

// LoadARCEP builds a plan from ARCEP's open data: blocks is MAJNUM.csv
// (blocks to operator mnemonics), operators is identifiants_CE.csv (the
// operators' names, SIRET, addresses and declaration dates). Both are
// semicolon-separated with a header row, in Latin-1 (Windows-1252, as
// ARCEP publishes them) or UTF-8 (with or without a byte-order mark), the
// encoding told from the bytes. Quoted fields, CRLF line ends and columns
// in any order are read; other columns are ignored.
//
// A block row without digits in EZABPQM (a malformed or empty line) or
// without a mnemonic is skipped; a block whose mnemonic is missing from
// the operators' list keeps its mnemonic and no name. A file without its
// required columns (EZABPQM and Mnémo; CODE_OPERATEUR and
// IDENTITE_OPERATEUR), or a blocks file without a usable row, is an
// error. operators may be nil: the plan then has mnemonics only.
func LoadARCEP(blocks io.Reader, operators io.Reader) (*MemPlan, error) {
	ops := map[string]Assignment{}
	if operators != nil {
		rows, idx, err := readARCEP(operators, "operators", colOpCode, colOpName)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			code := strings.ToUpper(field(r, idx, colOpCode))
			if code == "" {
				continue
			}
			if _, dup := ops[code]; dup {
				continue
			}
			ops[code] = Assignment{
				Name:            field(r, idx, colOpName),
				SIRET:           siret(field(r, idx, colOpSIRET)),
				Address:         field(r, idx, colOpAddress),
				RegisteredSince: isoDate(field(r, idx, colOpSince)),
			}
		}
	}
	rows, idx, err := readARCEP(blocks, "blocks", colBlock, colMnemonic)
	if err != nil {
		return nil, err
	}
	p := &MemPlan{source: "ARCEP numbering plan"}
	for _, r := range rows {
		prefix, mnemo := field(r, idx, colBlock), field(r, idx, colMnemonic)
		if !digits(prefix) || mnemo == "" {
			continue
		}
		b := block{op: strings.ToUpper(mnemo)}
		first, last := field(r, idx, colFirst), field(r, idx, colLast)
		if digits(first) && digits(last) && len(first) == len(last) && strings.HasPrefix(first, prefix) && first <= last {
			b.first, b.last = first, last
		}
		a := ops[b.op]
		a.Mnemonic = mnemo
		a.AssignedOn = isoDate(field(r, idx, colAssignedOn))
		a.Territory = field(r, idx, colTerritory)
		b.a = a
		p.add(prefix, b)
	}
	if p.Len() == 0 {
		return nil, errors.New("arcep blocks: no block row (EZABPQM and Mnémo)")
	}
	return p, nil
}

// readARCEP decodes and parses one file, returning its data rows and the
// position of each (normalised) header name. required are the columns
// the file must have.
func readARCEP(r io.Reader, what string, required ...string) ([][]string, map[string]int, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxARCEPFile+1))
	if err != nil {
		return nil, nil, fmt.Errorf("arcep %s: %w", what, err)
	}
	if len(data) > MaxARCEPFile {
		return nil, nil, fmt.Errorf("arcep %s: larger than %d bytes", what, MaxARCEPFile)
	}
	text, err := decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("arcep %s: %w", what, err)
	}
	cr := csv.NewReader(strings.NewReader(text))
	cr.Comma = ';'
	cr.LazyQuotes = true
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	header, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("arcep %s: reading the header: %w", what, err)
	}
	idx := map[string]int{}
	for i, h := range header {
		k := headerKey(h)
		if _, dup := idx[k]; !dup {
			idx[k] = i
		}
	}
	for _, c := range required {
		if _, ok := idx[c]; !ok {
			return nil, nil, fmt.Errorf("arcep %s: no %s column in the header %q", what, c, strings.Join(header, ";"))
		}
	}
	var rows [][]string
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("arcep %s: %w", what, err)
		}
		rows = append(rows, rec)
	}
	return rows, idx, nil
}

// decode returns the file as UTF-8 text: as it is when it is valid UTF-8
// (a byte-order mark dropped), else read as Windows-1252, the superset of
// Latin-1 that ARCEP's "ANSI" files use.
func decode(data []byte) (string, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if utf8.Valid(data) {
		return string(data), nil
	}
	out, err := charmap.Windows1252.NewDecoder().Bytes(data)
	if err != nil {
		return "", fmt.Errorf("decoding as Windows-1252: %w", err)
	}
	return string(out), nil
}

// headerKey folds a header name: upper case, accents dropped, only
// letters and digits kept.
func headerKey(h string) string {
	var b strings.Builder
	for _, r := range accent.Fold(h) {
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		}
		// Anything else is dropped: separators, letters that have no
		// accent to fold, and a letter lost to a wrong decoding.
	}
	k := b.String()
	if k == "MNMO" { // "Mn?mo": the é lost to a wrong decoding
		k = colMnemonic
	}
	return k
}

// field is the trimmed cell of the named column, "" when the row is
// shorter or the file has no such column.
func field(r []string, idx map[string]int, col string) string {
	i, ok := idx[col]
	if !ok || i >= len(r) {
		return ""
	}
	return strings.Join(strings.Fields(r[i]), " ")
}

// siret keeps a SIRET of 14 digits, spaces dropped ("380129866 48625");
// anything else (empty, a SIREN alone, a foreign register number) is "".
func siret(s string) string {
	s = strings.ReplaceAll(s, " ", "")
	if len(s) != 14 || !digits(s) {
		return ""
	}
	return s
}

// isoDate reads ARCEP's dates ("27/07/2001", possibly with a time after)
// as YYYY-MM-DD; an ISO date passes; anything else is "".
func isoDate(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), " ")
	switch {
	case len(s) == 10 && s[2] == '/' && s[5] == '/' && digits(s[:2]+s[3:5]+s[6:]):
		return s[6:] + "-" + s[3:5] + "-" + s[:2]
	case len(s) == 10 && s[4] == '-' && s[7] == '-' && digits(s[:4]+s[5:7]+s[8:]):
		return s
	}
	return ""
}
