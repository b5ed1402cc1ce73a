package pipelines

import (
	"errors"
	"io"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/phonenum"
)

// PreviewRows is the window of an upstream CSV the column report and the
// filter preview read (spec: 5000 rows).
const PreviewRows = 5000

// Column types of the input-columns report.
const (
	ColPhone    = "phone"
	ColEmail    = "email"
	ColURL      = "url"
	ColNumber   = "number"
	ColCategory = "category"
	ColText     = "text"
)

// Thresholds of the report (spec: input-columns).
const (
	typedShare    = 0.8 // of the non-empty values matching a type's pattern
	maxCategories = 200
	sampleValues  = 5
)

// ColumnInfo is one column of the report.
type ColumnInfo struct {
	Name           string   `json:"name"`
	Type           string   `json:"type"`
	FillRate       float64  `json:"fill_rate"`
	SampleValues   []string `json:"sample_values"`
	DistinctCount  *int     `json:"distinct_count"`
	DistinctValues []string `json:"distinct_values,omitempty"`
}

// ColumnsReport is the body of input-columns once the predecessor is done.
type ColumnsReport struct {
	Columns   []ColumnInfo `json:"columns"`
	RowCount  int          `json:"row_count"`
	JobID     string       `json:"predecessor_job_id,omitempty"`
	Truncated bool         `json:"-"`
}

type colStats struct {
	filled  int
	samples []string
	counts  map[string]int
	order   []string // distinct values in first-seen order, up to the cap
	typed   map[string]int
}

// ReportColumns reads up to PreviewRows rows of a stored CSV and tells,
// per column, its type, fill rate, samples and (for categories) its
// distinct values.
func ReportColumns(r io.Reader) (*ColumnsReport, error) {
	rd, err := export.ReadCSV(r)
	if err != nil {
		return nil, err
	}
	header := rd.Header()
	countryAt := slices.Index(header, countryColumn)
	stats := make([]colStats, len(header))
	for i := range stats {
		stats[i] = colStats{counts: map[string]int{}, typed: map[string]int{}}
	}
	rep := &ColumnsReport{}
	for {
		row, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if rep.RowCount == PreviewRows {
			rep.Truncated = true
			break
		}
		rep.RowCount++
		country := phonenum.Home
		if countryAt >= 0 && countryAt < len(row) {
			country = phonenum.OrHome(export.Restore(row[countryAt]))
		}
		for i, cell := range row {
			cell = strings.TrimSpace(export.Restore(cell))
			if cell == "" {
				continue
			}
			stats[i].add(cell, country)
		}
	}
	for i, name := range header {
		rep.Columns = append(rep.Columns, stats[i].info(name, rep.RowCount))
	}
	if rep.Columns == nil {
		rep.Columns = []ColumnInfo{}
	}
	return rep, nil
}

// add counts a filled cell of the column: its sample, its category count
// (up to the cap) and the types it looks like in the row's country.
func (s *colStats) add(cell, country string) {
	s.filled++
	if len(s.samples) < sampleValues && !slices.Contains(s.samples, cell) {
		s.samples = append(s.samples, cell)
	}
	if len(s.counts) <= maxCategories {
		if _, seen := s.counts[cell]; !seen {
			s.order = append(s.order, cell)
		}
		s.counts[cell]++
	}
	for _, t := range []string{ColPhone, ColEmail, ColURL, ColNumber} {
		if looksLike(t, cell, country) {
			s.typed[t]++
		}
	}
}

// info is the column name's report over rows rows: the first type most
// of its filled cells look like, else a category when its values repeat
// within the cap, else text.
func (s *colStats) info(name string, rows int) ColumnInfo {
	c := ColumnInfo{Name: name, Type: ColText, SampleValues: s.samples}
	if c.SampleValues == nil {
		c.SampleValues = []string{}
	}
	if rows > 0 {
		c.FillRate = float64(int(1000*float64(s.filled)/float64(rows))) / 1000
	}
	for _, t := range []string{ColPhone, ColEmail, ColURL, ColNumber} {
		if s.filled > 0 && float64(s.typed[t]) >= typedShare*float64(s.filled) {
			c.Type = t
			break
		}
	}
	if c.Type == ColText && len(s.counts) >= 1 && len(s.counts) <= maxCategories && s.filled > len(s.counts) {
		c.Type = ColCategory
		n := len(s.counts)
		c.DistinctCount = &n
		c.DistinctValues = s.order
	}
	return c
}

var phoneChars = regexp.MustCompile(`^[+0-9 ().\-/]{6,25}$`)

// countryColumn is the cell that names a row's country (alpha-3 or
// alpha-2), as phone_info reads it.
const countryColumn = "country"

// looksLike tells whether a value matches a column type's pattern. A
// national phone number is read in country: the row's own when it has a
// country cell, else the home market (phonenum.Home), the country of the
// service's rows, since the report has nothing else to go by.
func looksLike(t, v, country string) bool {
	switch t {
	case ColPhone:
		if !phoneChars.MatchString(v) {
			return false
		}
		n, err := phonenum.Parse(v, country)
		return err == nil && phonenumbers.IsPossibleNumber(n)
	case ColEmail:
		a, err := mail.ParseAddress(v)
		return err == nil && a.Address == v && strings.Contains(v[strings.IndexByte(v, '@'):], ".")
	case ColURL:
		if !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "www.") {
			return false
		}
		u, err := url.Parse(v)
		return err == nil && (u.Host != "" || strings.HasPrefix(v, "www."))
	case ColNumber:
		_, ok := parseNumber(v)
		return ok
	}
	return false
}

// Preview is the body of filter-preview once the predecessor is done.
type Preview struct {
	Total      int                 `json:"total"`
	Matched    int                 `json:"matched"`
	Samples    []map[string]string `json:"samples"`
	JobID      string              `json:"predecessor_job_id,omitempty"`
	Fieldnames []string            `json:"fieldnames"`
	Capped     bool                `json:"capped"`
}

// PreviewFilter applies the rules to the first PreviewRows rows of a
// stored CSV with the filter's own function: how many match, and up to 5
// of them with their empty fields left out.
func PreviewFilter(r io.Reader, rules Group) (*Preview, error) {
	rd, err := export.ReadCSV(r)
	if err != nil {
		return nil, err
	}
	m, err := Compile(rules, rd.Header())
	if err != nil {
		return nil, err
	}
	p := &Preview{Fieldnames: rd.Header(), Samples: []map[string]string{}}
	for {
		row, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if p.Total == PreviewRows {
			p.Capped = true
			break
		}
		p.Total++
		clean := restored(row)
		if !m.Match(clean) {
			continue
		}
		p.Matched++
		if len(p.Samples) < sampleValues {
			s := map[string]string{}
			for i, c := range clean {
				if strings.TrimSpace(c) != "" {
					s[p.Fieldnames[i]] = c
				}
			}
			p.Samples = append(p.Samples, s)
		}
	}
	return p, nil
}

// FilterCSV is the filter stage: the rows of a stored CSV the rules keep,
// written with the same header. Cells are matched as the user sees them
// (the stored CSV's formula guard undone); PreviewFilter matches the
// same way. It returns the rows kept.
func FilterCSV(r io.Reader, w io.Writer, rules Group) (int, error) {
	rd, err := export.ReadCSV(r)
	if err != nil {
		return 0, err
	}
	m, err := Compile(rules, rd.Header())
	if err != nil {
		return 0, err
	}
	out, err := export.NewCSV(w, rd.Header())
	if err != nil {
		return 0, err
	}
	kept := 0
	for {
		row, err := rd.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
		row = restored(row)
		if !m.Match(row) {
			continue
		}
		kept++
		if err := out.Write(row); err != nil {
			return 0, err
		}
	}
	return kept, out.Flush()
}
