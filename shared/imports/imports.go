// Package imports is the import source of pipelines: rows a user brings,
// pasted as CSV text, read from a public spreadsheet address through the
// crawler's guarded fetcher, or taken from one of their jobs younger than
// 7 days (spec: node table, import). Its columns are the rows' own, in
// their order, custom ones included: nothing is renamed or dropped, so
// they pass through every later stage untouched (the column guarantee).
package imports

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/netguard"
)

// Sources of an import (the node's `source` enum).
const (
	Paste   = "paste"
	URL     = "url"
	FromJob = "from_job"
)

// Limits of an import: the items limit of a typed job, and the body cap of
// the item routes.
const (
	MaxRows    = jobs.MaxItems
	MaxBytes   = 16 << 20
	MaxColumns = 200
	// MaxAge is how old a job an import reads may be (spec: from_job
	// younger than 7 days).
	MaxAge = 7 * 24 * time.Hour
)

// Config is the import node's configuration.
type Config struct {
	Source    string `json:"source"`
	Text      string `json:"text,omitempty"`
	URL       string `json:"url,omitempty"`
	FromJobID string `json:"from_job_id,omitempty"`
}

// Table is what an import brings: its columns in order and its rows,
// aligned with them.
type Table struct {
	Columns []string
	Rows    [][]string
}

// Outputs opens a user's job output (jobs.Service.OpenOutput).
type Outputs interface {
	OpenOutput(ctx context.Context, uid int64, id string) (*jobs.Job, io.ReadCloser, error)
}

// Deps are an import's sources.
type Deps struct {
	// Fetch reads a file a user named (crawl.Fetcher.FetchFile: public
	// addresses only, redirects and size capped).
	Fetch func(ctx context.Context, raw string, max int64) (*crawl.Page, error)
	Jobs  Outputs
	Now   func() time.Time
	// Hosts checks an address's host before it is fetched
	// (netguard.Guard.CheckHost); nil leaves it to the fetch.
	Hosts Hosts
}

// Hosts checks, without resolving it, the host of an address an import
// would fetch: the rules its fetch applies again when it connects.
type Hosts interface {
	CheckHost(host string) error
}

// CheckURL applies to a spreadsheet address every rule that needs no
// network: what a pipeline's validation can refuse before the run, with
// the reason the run would give. hosts nil skips the host rules.
func CheckURL(hosts Hosts, raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if raw == "" || err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" || u.User != nil || len(raw) > 2048 {
		return nil, invalid("url", "url : l'adresse http(s) d'un tableur public.", "url: the http(s) address of a public spreadsheet.")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, invalid("url", fmt.Sprintf("Le port %s n'est pas entre 1 et 65535.", p), fmt.Sprintf("The port %s is not between 1 and 65535.", p))
		}
	}
	if hosts != nil {
		if err := hosts.CheckHost(u.Hostname()); err != nil {
			var r *netguard.Refusal
			if !errors.As(err, &r) {
				return nil, fmt.Errorf("imports: check %s: %w", u.Redacted(), err)
			}
			return nil, invalid("url", "Adresse refusée (adresses publiques seulement) : "+r.FR+".",
				"The address is refused (public addresses only): "+r.EN+".")
		}
	}
	return u, nil
}

// Load reads the import of the user (4xx apperr errors name the cause).
func Load(ctx context.Context, d Deps, uid int64, c Config) (*Table, error) {
	switch c.Source {
	case Paste, "":
		if strings.TrimSpace(c.Text) == "" {
			return nil, invalid("text", "text est vide : collez un CSV avec sa ligne d'en-tête.",
				"text is empty: paste a CSV with its header row.")
		}
		return parse("text", strings.NewReader(c.Text))
	case URL:
		return d.fromURL(ctx, c.URL)
	case FromJob:
		return d.fromJob(ctx, uid, c.FromJobID)
	}
	return nil, invalid("source", "source vaut paste, url ou from_job.", "source is paste, url or from_job.")
}

// parse reads CSV text with export.ParseTable (delimiter, BOM and
// encoding detected) within the import's limits.
func parse(field string, r io.Reader) (*Table, error) {
	cols, rows, err := export.ParseTable(r, MaxBytes, MaxRows)
	if err != nil {
		var m *export.MalformedError
		switch {
		case errors.Is(err, export.ErrTooLarge):
			return nil, invalid(field, fmt.Sprintf("Plus de %d Mio.", MaxBytes>>20), fmt.Sprintf("More than %d MiB.", MaxBytes>>20))
		case errors.Is(err, export.ErrTooManyItems):
			return nil, invalid(field, fmt.Sprintf("Plus de %d lignes.", MaxRows), fmt.Sprintf("More than %d rows.", MaxRows))
		case errors.Is(err, export.ErrEmpty):
			return nil, invalid(field, "Aucune ligne à importer.", "No row to import.")
		case errors.Is(err, export.ErrNoHeader):
			return nil, invalid(field, "La première ligne doit nommer les colonnes.", "The first row must name the columns.")
		case errors.As(err, &m):
			return nil, invalid(field, fmt.Sprintf("CSV invalide ligne %d : %s.", m.Line, m.Reason),
				fmt.Sprintf("Invalid CSV at line %d: %s.", m.Line, m.Reason))
		}
		return nil, invalid(field, "CSV illisible.", "Unreadable CSV.")
	}
	if len(cols) > MaxColumns {
		return nil, invalid(field, fmt.Sprintf("Plus de %d colonnes.", MaxColumns), fmt.Sprintf("More than %d columns.", MaxColumns))
	}
	return &Table{Columns: cols, Rows: rows}, nil
}

// sheetRe matches a Google Sheets address: its document id.
var sheetRe = regexp.MustCompile(`^/spreadsheets/d/([A-Za-z0-9_-]{10,})(/.*)?$`)

// SheetCSV turns a spreadsheet's share or edit address into the address
// of its CSV export (Google Sheets: /export?format=csv with the tab of
// its gid); any other address is returned as it is.
func SheetCSV(u *url.URL) *url.URL {
	if !strings.EqualFold(u.Hostname(), "docs.google.com") {
		return u
	}
	m := sheetRe.FindStringSubmatch(u.Path)
	if m == nil || strings.HasSuffix(m[2], "/pub") || strings.Contains(m[2], "/export") {
		return u // published or export addresses say their format
	}
	gid := u.Query().Get("gid")
	if g, ok := strings.CutPrefix(u.Fragment, "gid="); ok && gid == "" {
		gid = g
	}
	out := &url.URL{Scheme: "https", Host: "docs.google.com", Path: "/spreadsheets/d/" + m[1] + "/export"}
	q := url.Values{"format": {"csv"}}
	if gid != "" {
		q.Set("gid", gid)
	}
	out.RawQuery = q.Encode()
	return out
}

func (d Deps) fromURL(ctx context.Context, raw string) (*Table, error) {
	u, err := CheckURL(d.Hosts, raw)
	if err != nil {
		return nil, err
	}
	p, err := d.Fetch(ctx, SheetCSV(u).String(), MaxBytes)
	switch {
	case errors.Is(err, crawl.ErrTooLarge):
		return nil, invalid("url", fmt.Sprintf("Le fichier dépasse %d Mio.", MaxBytes>>20), fmt.Sprintf("The file is over %d MiB.", MaxBytes>>20))
	case err != nil:
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, invalid("url", "Adresse injoignable ou refusée (adresses publiques seulement).",
			"The address cannot be read or is refused (public addresses only).")
	case p.Status != 200:
		return nil, invalid("url", fmt.Sprintf("L'adresse répond %d : le tableur doit être partagé à tous ceux qui ont le lien.", p.Status),
			fmt.Sprintf("The address answers %d: the spreadsheet must be shared with anyone who has the link.", p.Status))
	}
	if ct := strings.ToLower(p.Header.Get("Content-Type")); strings.Contains(ct, "html") {
		// A sign-in page or a viewer: the file is not public.
		return nil, invalid("url", "L'adresse renvoie une page web, pas un CSV : partagez le tableur à tous ceux qui ont le lien.",
			"The address answers a web page, not a CSV: share the spreadsheet with anyone who has the link.")
	}
	return parse("url", bytes.NewReader(p.Body))
}

func (d Deps) fromJob(ctx context.Context, uid int64, id string) (*Table, error) {
	if strings.TrimSpace(id) == "" {
		return nil, invalid("from_job_id", "from_job_id est vide.", "from_job_id is empty.")
	}
	j, rc, err := d.Jobs.OpenOutput(ctx, uid, id)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	now := time.Now
	if d.Now != nil {
		now = d.Now
	}
	if now().Sub(j.Created) > MaxAge {
		return nil, invalid("from_job_id", "Ce job a plus de 7 jours : relancez-le ou importez son CSV.",
			"This job is older than 7 days: run it again or import its CSV.")
	}
	t, err := parse("from_job_id", rc)
	if err != nil {
		return nil, err
	}
	// The stored CSV neutralises formula-like cells for spreadsheets;
	// rows going on to another stage get them back as they were.
	for _, row := range t.Rows {
		for i, c := range row {
			row[i] = export.Restore(c)
		}
	}
	return t, nil
}

func invalid(field, fr, en string) error { return apperr.Fields(apperr.Field(field, fr, en)) }
