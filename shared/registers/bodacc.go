package registers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// BODACC, the Bulletin officiel des annonces civiles et commerciales, as
// open data on the DILA's Opendatasoft portal: dataset
// annonces-commerciales, Explore API v2.1. One request per company: its
// announcements (registre holds the SIREN, spaced and not) published in
// the last 12 months, newest first.
const (
	bodaccPath = "/api/explore/v2.1/catalog/datasets/annonces-commerciales/records"
	// bodaccPage is the Explore API's largest page; bodaccMaxPages bounds
	// the pages read for one company (a company with more than 1,000
	// announcements a year is not a prospect).
	bodaccPage     = 100
	bodaccMaxPages = 10
	bodaccFields   = "id,dateparution,typeavis,familleavis,familleavis_lib,registre,jugement"
)

// BodaccSummary is what BODACC says of a company over the 12 months
// before the lookup.
type BodaccSummary struct {
	// Since is the first day of the window (YYYY-MM-DD).
	Since string `json:"depuis"`
	// Annonces counts the window's announcements (cancellations left
	// out).
	Annonces int `json:"annonces_12m"`
	// Modifications counts the "Modifications diverses" announcements
	// (a change of officer, address, capital, activity...).
	Modifications int `json:"modifications_12m"`
	// ProcedureCollective is the kind of the latest collective proceeding
	// announced: sauvegarde, redressement judiciaire, liquidation
	// judiciaire, rétablissement professionnel, or procédure collective
	// when the announcement does not say; " clôturée" is added after a
	// judgment of closure. "" when none was announced.
	ProcedureCollective string `json:"procedure_collective"`
	// ProcedureDate is that announcement's publication date, and
	// ProcedureJugement the judgment's nature as BODACC words it.
	ProcedureDate     string `json:"procedure_date,omitempty"`
	ProcedureJugement string `json:"procedure_jugement,omitempty"`
}

// ProcedureCell is the bodacc_procedure_collective cell: the kind and the
// publication date ("liquidation judiciaire (2025-03-04)"), "" when none.
func (b *BodaccSummary) ProcedureCell() string {
	if b == nil || b.ProcedureCollective == "" {
		return ""
	}
	if b.ProcedureDate == "" {
		return b.ProcedureCollective
	}
	return b.ProcedureCollective + " (" + b.ProcedureDate + ")"
}

// bodaccResponse is the Explore API's records payload.
type bodaccResponse struct {
	TotalCount int            `json:"total_count"`
	Results    []bodaccRecord `json:"results"`
}

// bodaccRecord is one announcement (the fields selected).
type bodaccRecord struct {
	ID             string          `json:"id"`
	DateParution   string          `json:"dateparution"`
	TypeAvis       string          `json:"typeavis"`
	FamilleAvis    string          `json:"familleavis"`
	FamilleAvisLib string          `json:"familleavis_lib"`
	Jugement       json.RawMessage `json:"jugement"`
}

// jugement is a collective proceeding's judgment. The dataset stores it
// as JSON text inside a string field; it is read either way.
type jugement struct {
	Famille string `json:"famille"`
	Nature  string `json:"nature"`
	Date    string `json:"date"`
}

func (r *bodaccRecord) judgment() jugement {
	var j jugement
	raw := r.Jugement
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	_ = json.Unmarshal(raw, &j)
	return j
}

// Bodacc reads the announcements of a SIREN published in the 12 months
// before now and summarises them.
func (c *Client) Bodacc(ctx context.Context, siren string) (*BodaccSummary, error) {
	if !ValidSIREN(siren) {
		return nil, fmt.Errorf("%w: %q is not a SIREN", ErrBadQuery, siren)
	}
	since := c.clock.Now().UTC().AddDate(-1, 0, 0).Format(time.DateOnly)
	q := url.Values{}
	q.Set("select", bodaccFields)
	q.Set("where", fmt.Sprintf(`registre = "%s" AND dateparution >= date'%s'`, siren, since))
	q.Set("order_by", "dateparution desc")
	q.Set("limit", strconv.Itoa(bodaccPage))
	var recs []bodaccRecord
	for page := 0; page < bodaccMaxPages; page++ {
		if page > 0 {
			q.Set("offset", strconv.Itoa(page*bodaccPage))
		}
		var r bodaccResponse
		if err := c.get(ctx, c.bodacc, bodaccPath, q, &r); err != nil {
			return nil, err
		}
		recs = append(recs, r.Results...)
		if len(r.Results) < bodaccPage || len(recs) >= r.TotalCount {
			break
		}
	}
	return summarize(recs, since), nil
}

// summarize counts the announcements and finds the latest collective
// proceeding; recs are newest first.
func summarize(recs []bodaccRecord, since string) *BodaccSummary {
	s := &BodaccSummary{Since: since}
	generic := -1 // the latest collective announcement naming no kind
	for i := range recs {
		r := &recs[i]
		if r.TypeAvis == "annulation" || r.DateParution < since {
			continue
		}
		s.Annonces++
		switch family(r) {
		case "modification":
			s.Modifications++
		case "collective":
			if s.ProcedureCollective != "" {
				continue
			}
			j := r.judgment()
			kind := procedureKind(j)
			if kind == "" {
				if generic < 0 {
					generic = i
				}
				continue
			}
			s.ProcedureCollective, s.ProcedureDate, s.ProcedureJugement = kind, r.DateParution, j.Nature
		}
	}
	if s.ProcedureCollective == "" && generic >= 0 {
		r := &recs[generic]
		s.ProcedureCollective, s.ProcedureDate, s.ProcedureJugement = "procédure collective", r.DateParution, r.judgment().Nature
	}
	return s
}

// family is a record's familleavis, read from its label when the code is
// missing.
func family(r *bodaccRecord) string {
	if r.FamilleAvis != "" {
		return r.FamilleAvis
	}
	switch gazetteer.Normalize(r.FamilleAvisLib) {
	case "procedures collectives":
		return "collective"
	case "modifications diverses":
		return "modification"
	}
	return ""
}

// procedureKind names the proceeding a judgment is about, "" when its
// words do not say (a statement of debts, a list of claims). A conversion
// names the proceeding it converts to, which is checked first.
func procedureKind(j jugement) string {
	n := gazetteer.Normalize(j.Nature + " " + j.Famille)
	kind := ""
	switch {
	case strings.Contains(n, "liquidation"):
		kind = "liquidation judiciaire"
	case strings.Contains(n, "redressement"):
		kind = "redressement judiciaire"
	case strings.Contains(n, "sauvegarde"):
		kind = "sauvegarde"
	case strings.Contains(n, "retablissement professionnel"):
		kind = "rétablissement professionnel"
	case strings.Contains(n, "insuffisance d actif"), strings.Contains(n, "extinction du passif"):
		// The closures of a liquidation say so without naming it.
		kind = "liquidation judiciaire"
	default:
		return ""
	}
	if strings.Contains(n, "cloture") {
		kind += " clôturée"
	}
	return kind
}
