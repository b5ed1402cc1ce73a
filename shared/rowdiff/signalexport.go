package rowdiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/prospectdata/svc/shared/export"
)

// signalColumns are the signal files' columns, in the spec's field order
// ("Reputation signal").
var signalColumns = [...]string{
	"nom", "adresse", "telephone", "site_web", "email", "lien_maps",
	"note_avant", "note_apres", "delta_note", "avis_avant", "avis_apres", "delta_avis", "score",
}

// WriteSignalsCSV writes signals, in the given order, as a stored CSV
// (export.NewCSV: BOM, ';', CRLF, and the formula guard, by export's rules:
// a name "=1+1" or a phone "+33 …" gets its apostrophe, a plain negative
// number such as delta_note "-0.2" stays a number). Numbers use '.' as the
// decimal mark, like the outputs' rating column.
func WriteSignalsCSV(w io.Writer, signals []Signal) error {
	cw, err := export.NewCSV(w, signalColumns[:])
	if err != nil {
		return err
	}
	row := make([]string, len(signalColumns))
	for _, s := range signals {
		row = append(row[:0], s.Nom, s.Adresse, s.Telephone, s.SiteWeb, s.Email, s.LienMaps,
			formatNumber(s.NoteAvant), formatNumber(s.NoteApres), formatNumber(s.DeltaNote),
			strconv.Itoa(s.AvisAvant), strconv.Itoa(s.AvisApres), strconv.Itoa(s.DeltaAvis), formatNumber(s.Score))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	return cw.Flush()
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// WriteSignalsJSON writes signals as a JSON array of Signal objects ([]
// when there is none).
func WriteSignalsJSON(w io.Writer, signals []Signal) error {
	if signals == nil {
		signals = []Signal{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // names with & and < stay readable
	if err := enc.Encode(signals); err != nil {
		return fmt.Errorf("rowdiff: write signals JSON: %w", err)
	}
	return nil
}

// WriteSignalsXLSX writes signals as the workbook export.ToXLSX makes of
// their CSV: the service's one XLSX writer, so the file looks like every
// other download (one "Export" sheet, bold frozen header, cells typed by
// export's column table: notes, counts and score as numbers, texts without
// the CSV's guard). The CSV streams through a pipe, never whole in
// memory. Past Excel's row limit the error is export's *TruncatedError,
// with a valid file written.
func WriteSignalsXLSX(w io.Writer, signals []Signal) error {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := WriteSignalsCSV(pw, signals)
		pw.CloseWithError(err)
		done <- err
	}()
	err := export.ToXLSX(w, pr)
	pr.CloseWithError(io.ErrClosedPipe) // unblocks the writer if ToXLSX stopped early
	if werr := <-done; werr != nil && err == nil {
		err = werr
	}
	return err
}
