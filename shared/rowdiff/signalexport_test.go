package rowdiff

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/export"
	"github.com/xuri/excelize/v2"
)

var testSignals = []Signal{
	{Nom: "=1+1", Adresse: "1 rue A; Lyon", Telephone: "+33 4 78 12 34 56", SiteWeb: "https://a.fr/", Email: "a@a.fr", LienMaps: "https://maps/a",
		NoteAvant: 4.5, NoteApres: 4.3, DeltaNote: -0.2, AvisAvant: 10, AvisApres: 13, DeltaAvis: 3, Score: 2.078515},
	{Nom: `Le "Bon" Pain`, Adresse: "ligne 1\nligne 2", NoteAvant: 3, NoteApres: 2.5, DeltaNote: -0.5, AvisAvant: 1, AvisApres: 1, Score: 5},
}

// wantCells is testSignals as the spec's columns, raw values.
var wantCells = [][]string{
	{"=1+1", "1 rue A; Lyon", "+33 4 78 12 34 56", "https://a.fr/", "a@a.fr", "https://maps/a", "4.5", "4.3", "-0.2", "10", "13", "3", "2.078515"},
	{`Le "Bon" Pain`, "ligne 1\nligne 2", "", "", "", "", "3", "2.5", "-0.5", "1", "1", "0", "5"},
}

var specSignalColumns = []string{"nom", "adresse", "telephone", "site_web", "email", "lien_maps",
	"note_avant", "note_apres", "delta_note", "avis_avant", "avis_apres", "delta_avis", "score"}

// TestWriteSignalsCSV reads the file back with export.ReadCSV: the spec's
// columns in order, formula-looking cells stored with the apostrophe
// guard (a name "=1+1", a phone "+33..."), a negative delta left a number
// (export's rule), every value restored by export.Restore.
func TestWriteSignalsCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSignalsCSV(&buf, testSignals); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte("\uFEFFnom;adresse;")) {
		t.Errorf("no BOM or ';': %.40q", buf.String())
	}
	header, rows, err := readAllCSV(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(header, specSignalColumns) {
		t.Errorf("header %q", header)
	}
	if len(rows) != len(wantCells) {
		t.Fatalf("%d rows", len(rows))
	}
	if got := rows[0][0]; got != "'=1+1" {
		t.Errorf("nom stored %q, want the guarded '=1+1", got)
	}
	if got := rows[0][2]; got != "'+33 4 78 12 34 56" {
		t.Errorf("telephone stored %q, want the guarded '+33 4 78 12 34 56", got)
	}
	if got := rows[0][8]; got != export.Neutralise("-0.2") {
		t.Errorf("delta_note stored %q, want %q", got, export.Neutralise("-0.2"))
	}
	for i, row := range rows {
		for j, cell := range row {
			if got := export.Restore(cell); got != wantCells[i][j] {
				t.Errorf("row %d %s = %q, want %q", i, header[j], got, wantCells[i][j])
			}
		}
	}
}

// TestWriteSignalsJSON decodes the array: exactly the spec's fields, with
// strings, numbers and integers.
func TestWriteSignalsJSON(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSignalsJSON(&buf, testSignals); err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &objs); err != nil {
		t.Fatal(err)
	}
	if len(objs) != 2 {
		t.Fatalf("%d objects", len(objs))
	}
	for _, o := range objs {
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := slices.Sorted(slices.Values(specSignalColumns))
		if !slices.Equal(keys, want) {
			t.Errorf("fields %q, want %q", keys, want)
		}
	}
	if objs[0]["nom"] != "=1+1" || objs[0]["delta_note"] != -0.2 || objs[0]["avis_apres"] != 13.0 || objs[0]["score"] != 2.078515 || objs[0]["email"] != "a@a.fr" {
		t.Errorf("first object %v", objs[0])
	}
	var back []Signal
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || !slices.Equal(back, testSignals) {
		t.Errorf("round trip %+v (%v)", back, err)
	}
	buf.Reset()
	if err := WriteSignalsJSON(&buf, nil); err != nil || strings.TrimSpace(buf.String()) != "[]" {
		t.Errorf("no signal: %q (%v)", buf.String(), err)
	}
}

// TestWriteSignalsXLSX opens the workbook with excelize (the repo's test
// dependency for XLSX): one "Export" sheet, the CSV's header and cells,
// without the CSV's guard, the numbers as number cells.
func TestWriteSignalsXLSX(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSignalsXLSX(&buf, testSignals); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got := f.GetSheetList(); !slices.Equal(got, []string{"Export"}) {
		t.Fatalf("sheets %q", got)
	}
	rows, err := f.GetRows("Export", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || !slices.Equal(rows[0], specSignalColumns) {
		t.Fatalf("rows %q", rows)
	}
	for i, row := range rows[1:] {
		for len(row) < len(specSignalColumns) {
			row = append(row, "")
		}
		for j, cell := range row {
			if want := wantCells[i][j]; cell != want {
				t.Errorf("row %d %s = %q, want %q", i, specSignalColumns[j], cell, want)
			}
		}
	}
	for _, ref := range []string{"G2", "J2", "M2"} { // note_avant, avis_avant, score
		if typ, err := f.GetCellType("Export", ref); err != nil || typ != excelize.CellTypeUnset {
			t.Errorf("%s type %v (%v), want a number cell", ref, typ, err)
		}
	}
	if typ, err := f.GetCellType("Export", "C2"); err != nil || typ != excelize.CellTypeInlineString {
		t.Errorf("C2 (telephone) type %v (%v), want text", typ, err)
	}
	// An empty list is a valid workbook with the header.
	buf.Reset()
	if err := WriteSignalsXLSX(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := excelize.OpenReader(bytes.NewReader(buf.Bytes())); err != nil {
		t.Errorf("empty workbook: %v", err)
	}
}

// TestWriteSignalsXLSXWriteError: a failing destination is reported, and
// nothing is left running.
func TestWriteSignalsXLSXWriteError(t *testing.T) {
	boom := errors.New("disk full")
	many := slices.Repeat(testSignals, 5000)
	if err := WriteSignalsXLSX(failingWriter{boom}, many); !errors.Is(err, boom) {
		t.Errorf("error %v, want %v", err, boom)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

var _ io.Writer = failingWriter{}
