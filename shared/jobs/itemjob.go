package jobs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/registry"
)

// ItemRequest is the body of POST /api/jobs/{type} (spec: "Item-driven job
// request"), with the overrides of the modules that have some. Items stay
// raw until CreateItems reads them one by one, so that a bad entry is a
// 422 naming its index.
type ItemRequest struct {
	Items       []json.RawMessage `json:"items"`
	SourceJobID *string           `json:"source_job_id,omitempty"`
	// Mode is the emails module's: normal (default) or deep.
	Mode *string `json:"mode,omitempty"`
	// CaptureScreenshot is the brand_assets module's (default false).
	CaptureScreenshot *bool `json:"capture_screenshot,omitempty"`
	// MaxReviews and PeriodMonths are the reviews module's.
	MaxReviews   *int `json:"max_reviews,omitempty"`
	PeriodMonths *int `json:"period_months,omitempty"`
	// LiveMode is phone_info's: cache_only, the only value.
	LiveMode *string `json:"live_mode,omitempty"`
}

// The reviews module's overrides: max_reviews 1 to MaxReviewsLimit
// (default DefaultMaxReviews), period_months 0 (unlimited) to
// MaxPeriodMonths (default 0). docs/data-sources.md.
const (
	DefaultMaxReviews = 10
	MaxReviewsLimit   = 100
	MaxPeriodMonths   = 120
)

// LiveModeCacheOnly is phone_info's only live_mode (spec: node table).
const LiveModeCacheOnly = "cache_only"

// Email modes of the emails module.
const (
	EmailModeNormal = "normal"
	EmailModeDeep   = "deep"
)

// InputKey is the file holding an item job's input: a first line with the
// JSON array of its columns (ItemColumns), then one JSON array of cells
// per item, aligned with the columns ("" for a key an item lacks).
func InputKey(id string) string { return "jobs/" + id + "/input.jsonl" }

// deleteFiles removes every file a job owns: its directory and the files
// it re-hosted.
func (s *Service) deleteFiles(ctx context.Context, j *Job) error {
	if s.d.Files == nil {
		return nil
	}
	for _, p := range []string{"jobs/" + j.ID + "/", AssetKey(j.UserID, j.ID+"-")} {
		if err := s.d.Files.DeletePrefix(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// ItemPrice is what a job of n items of the module would be charged with
// the request's options (mode, capture_screenshot), read as CreateItems
// reads them: POST /api/estimate/items shows it before the job starts.
func ItemPrice(module string, n int, r ItemRequest) (float64, error) {
	if !ItemModule(module) {
		return 0, apperr.Fields(apperr.Field("module", "module inconnu ou sans items", "unknown module, or one without items"))
	}
	if n < 1 || n > MaxItems {
		return 0, apperr.Fields(apperr.Field("count", "entre 1 et 10 000", "from 1 to 10,000"))
	}
	opts, _, err := itemOptions(module, r)
	if err != nil {
		return 0, err
	}
	ef, _ := pricing.ItemEF(module, n, opts)
	return ef, nil
}

// ItemModule tells whether a job type runs over items (every module of
// the registry but the scrape and the pipeline tools).
func ItemModule(jobType string) bool {
	_, ok := pricing.ItemEF(jobType, 0, pricing.ItemOptions{})
	return ok
}

// CreateItems creates an item-driven job of a module for the user: the
// same admission as a scrape (verified email 403, creation quota 429),
// then the items' rules (422), the source job (404 unless the user's),
// the input file, and one transaction taking a slot of the concurrent-job
// limit (429) and debiting the EF (400 over the quota). A refusal after
// the input file was written deletes it.
func (s *Service) CreateItems(ctx context.Context, u *accounts.User, module string, r ItemRequest) (*Job, error) {
	st, err := s.itemSettings(ctx, u, module, r)
	if err != nil {
		return nil, err
	}
	items, err := parseItems(r.Items)
	if err != nil {
		return nil, err
	}
	if err := CheckItems(items, st.needs); err != nil {
		return nil, err
	}
	return s.createItems(ctx, u, module, r, st, func(ctx context.Context, id string) (int, error) {
		return len(items), s.writeInput(ctx, id, items)
	})
}

// ItemSource yields an item job's items as rows of named columns, one at
// a time: a pipeline stage's predecessor output, read as it is written.
type ItemSource interface {
	// Columns are the rows' column names, unique.
	Columns() []string
	// Next returns the next row, as wide as Columns, or io.EOF after
	// the last; the slice may be reused by the next call.
	Next() ([]string, error)
}

// CreateItemsFrom creates an item job over every row of src, as
// CreateItems does for a request's items, with no MaxItems: it serves a
// pipeline stage, whose input is its predecessor's whole output (the
// contract bounds a request's items, not a stage's rows;
// docs/pipelines.md). The rows are streamed into the job's input file,
// never held together, and counted there: the count is the job's items
// and its EF. r.Items is ignored. A source without a column the module
// needs, or without rows, is refused (422) before anything is kept.
func (s *Service) CreateItemsFrom(ctx context.Context, u *accounts.User, module string, r ItemRequest, src ItemSource) (*Job, error) {
	st, err := s.itemSettings(ctx, u, module, r)
	if err != nil {
		return nil, err
	}
	cols := src.Columns()
	for _, key := range st.needs {
		if !slices.Contains(cols, key) {
			return nil, apperr.Fields(apperr.Field("items",
				fmt.Sprintf("Les lignes n'ont pas la colonne %q, requise par ce module.", key),
				fmt.Sprintf("The rows lack the column %q this module requires.", key)))
		}
	}
	return s.createItems(ctx, u, module, r, st, func(ctx context.Context, id string) (int, error) {
		n, err := s.streamInput(ctx, id, src)
		if err == nil && n == 0 {
			err = CheckItems(nil, nil) // items is empty
		}
		return n, err
	})
}

// itemSettings are an item request's checked settings.
type itemSettings struct {
	needs      []string
	opts       pricing.ItemOptions
	mode       string
	maxReviews *int
	period     *int
}

// itemSettings admits the user and checks the request's overrides.
func (s *Service) itemSettings(ctx context.Context, u *accounts.User, module string, r ItemRequest) (itemSettings, error) {
	var st itemSettings
	e, ok := registry.Lookup(module)
	if !ok || !ItemModule(module) {
		return st, apperr.Missing()
	}
	st.needs = e.Needs
	if err := s.admit(ctx, u); err != nil {
		return st, err
	}
	var err error
	if st.opts, st.mode, err = itemOptions(module, r); err != nil {
		return st, err
	}
	if st.maxReviews, st.period, err = reviewsOptions(module, r); err != nil {
		return st, err
	}
	if r.LiveMode != nil {
		if module != "phone_info" {
			return st, apperr.Fields(apperr.Field("live_mode", "live_mode n'existe que pour le module phone_info.",
				"live_mode only applies to the phone_info module."))
		}
		if *r.LiveMode != LiveModeCacheOnly {
			return st, apperr.Fields(apperr.Field("live_mode", "live_mode vaut cache_only.", "live_mode is cache_only."))
		}
	}
	return st, nil
}

// createItems writes the job's input (write, which says how many items
// it wrote), then the job, debited for that many items.
func (s *Service) createItems(ctx context.Context, u *accounts.User, module string, r ItemRequest, st itemSettings,
	write func(ctx context.Context, id string) (int, error)) (*Job, error) {
	// The job works on its source's rows, so it carries the source's
	// country; without a source, the default (fillDefaults).
	country := ""
	if r.SourceJobID != nil && *r.SourceJobID != "" {
		src, err := s.Get(ctx, u.ID, *r.SourceJobID)
		if err != nil {
			return nil, apperr.New(apperr.NotFound, "source_job_id : job introuvable.", "source_job_id: no such job.")
		}
		country = src.Country
	}
	if s.d.Files == nil {
		return nil, apperr.New(apperr.Unavailable, "Les jobs ne peuvent pas tourner ici.", "Jobs cannot run here.")
	}
	id := newID()
	n, err := write(ctx, id)
	if err != nil {
		s.dropInput(ctx, id)
		return nil, err
	}
	ef, _ := pricing.ItemEF(module, n, st.opts)
	now := s.d.Now()
	source := s.d.Source
	if s.d.ModuleSource != nil {
		source = s.d.ModuleSource(module)
	}
	j := &Job{
		ID: id, JobType: module, Queries: []string{}, Zones: []string{}, Country: country, Status: Pending,
		GridPointsCount: n, EFCost: ef, CreatedAt: formatTime(now),
		ExpiresAt: formatTime(now.Add(Retention)), Source: source, UserID: u.ID, Created: now,
		Breakdown:   Breakdown{ByQuery: map[string]int{}, ByZone: map[string]int{}},
		DeadQueries: []string{}, QueryStats: map[string]QueryStat{}, ExtraColumns: []string{},
		CaptureScreenshot: st.opts.Screenshot, MaxReviews: st.maxReviews, PeriodMonths: st.period,
	}
	if st.mode != "" {
		mode := st.mode
		j.EmailMode = &mode
	}
	if r.SourceJobID != nil && *r.SourceJobID != "" {
		src := *r.SourceJobID
		j.SourceJobID = &src
	}
	if err := s.insert(ctx, j, ef); err != nil {
		s.dropInput(ctx, j.ID)
		return nil, err
	}
	if err := s.schedule(ctx, j); err != nil {
		return nil, fmt.Errorf("start job %s: %w", j.ID, err)
	}
	return j, nil
}

// dropInput deletes the input of a job that was not created.
func (s *Service) dropInput(ctx context.Context, id string) {
	if err := s.d.Files.Delete(context.WithoutCancel(ctx), InputKey(id)); err != nil &&
		!errors.Is(err, blob.ErrNotFound) && s.d.Log != nil {
		s.d.Log.Warn("input of a refused job not deleted", "job", id, "err", err)
	}
}

// itemOptions reads the overrides: mode only for emails, capture_screenshot
// only for brand_assets (422 elsewhere, so that a misplaced option is not
// silently ignored).
func itemOptions(module string, r ItemRequest) (pricing.ItemOptions, string, error) {
	var o pricing.ItemOptions
	mode := ""
	if r.Mode != nil {
		if module != "emails" {
			return o, "", apperr.Fields(apperr.Field("mode", "mode n'existe que pour le module emails.",
				"mode only applies to the emails module."))
		}
		switch *r.Mode {
		case EmailModeNormal, EmailModeDeep:
			mode = *r.Mode
		default:
			return o, "", apperr.Fields(apperr.Field("mode", "mode vaut normal ou deep.", "mode is normal or deep."))
		}
	} else if module == "emails" {
		mode = EmailModeNormal
	}
	o.Deep = mode == EmailModeDeep
	if r.CaptureScreenshot != nil {
		if module != "brand_assets" {
			return o, "", apperr.Fields(apperr.Field("capture_screenshot",
				"capture_screenshot n'existe que pour le module brand_assets.",
				"capture_screenshot only applies to the brand_assets module."))
		}
		o.Screenshot = *r.CaptureScreenshot
	}
	return o, mode, nil
}

// reviewsOptions reads max_reviews and period_months: only on reviews
// jobs (422 elsewhere), where they default to DefaultMaxReviews and 0
// (spec: JobPublic, null on every other type).
func reviewsOptions(module string, r ItemRequest) (maxReviews, period *int, err error) {
	if module != "reviews" {
		for _, f := range []struct {
			name string
			set  bool
		}{{"max_reviews", r.MaxReviews != nil}, {"period_months", r.PeriodMonths != nil}} {
			if f.set {
				return nil, nil, apperr.Fields(apperr.Field(f.name, f.name+" n'existe que pour le module reviews.",
					f.name+" only applies to the reviews module."))
			}
		}
		return nil, nil, nil
	}
	m, p := DefaultMaxReviews, 0
	if r.MaxReviews != nil {
		if m = *r.MaxReviews; m < 1 || m > MaxReviewsLimit {
			return nil, nil, apperr.Fields(apperr.Field("max_reviews",
				fmt.Sprintf("max_reviews va de 1 à %d.", MaxReviewsLimit), fmt.Sprintf("max_reviews is 1 to %d.", MaxReviewsLimit)))
		}
	}
	if r.PeriodMonths != nil {
		if p = *r.PeriodMonths; p < 0 || p > MaxPeriodMonths {
			return nil, nil, apperr.Fields(apperr.Field("period_months",
				fmt.Sprintf("period_months va de 0 (sans limite) à %d.", MaxPeriodMonths),
				fmt.Sprintf("period_months is 0 (unlimited) to %d.", MaxPeriodMonths)))
		}
	}
	return &m, &p, nil
}

// parseItems reads each raw item (422 naming the first bad one). The count
// is checked first, so that 10,001 items are refused before any is read.
func parseItems(raws []json.RawMessage) ([]Item, error) {
	if len(raws) == 0 || len(raws) > MaxItems {
		return nil, CheckItems(make([]Item, len(raws)), nil)
	}
	items := make([]Item, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &items[i]); err != nil {
			msg := strings.TrimPrefix(err.Error(), "json: ")
			return nil, apperr.Fields(apperr.Field(fmt.Sprintf("items[%d]", i),
				"Élément invalide : "+msg, "Invalid entry: "+msg))
		}
	}
	return items, nil
}

// writeInput stores the items as the job's input file.
func (s *Service) writeInput(ctx context.Context, id string, items []Item) error {
	cols := ItemColumns(items)
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	enc := json.NewEncoder(w)
	if err := enc.Encode(cols); err != nil {
		return err
	}
	at := make(map[string]int, len(cols))
	for i, c := range cols {
		at[c] = i
	}
	row := make([]string, len(cols))
	for _, it := range items {
		clear(row)
		for i, k := range it.Keys {
			row[at[k]] = it.Values[i]
		}
		if err := enc.Encode(row); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := s.d.Files.Put(ctx, InputKey(id), &buf, "application/x-ndjson"); err != nil {
		return fmt.Errorf("write the input of job %s: %w", id, err)
	}
	return nil
}

// streamInput writes src's rows as the job's input file as they are
// read (the file store takes a stream: memory stays one row however many
// rows) and returns how many it wrote.
func (s *Service) streamInput(ctx context.Context, id string, src ItemSource) (int, error) {
	n := 0
	werr, perr := blob.Write(ctx, s.d.Files, InputKey(id), "application/x-ndjson", func(pw io.Writer) error {
		w := bufio.NewWriterSize(pw, 64<<10)
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		cols := src.Columns()
		if err := enc.Encode(cols); err != nil {
			return err
		}
		for {
			row, err := src.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("read row %d of the items: %w", n+1, err)
			}
			if len(row) != len(cols) {
				return fmt.Errorf("row %d has %d cells for %d columns", n+1, len(row), len(cols))
			}
			if err := enc.Encode(row); err != nil {
				return err
			}
			n++
		}
		return w.Flush()
	})
	if werr != nil {
		return 0, werr
	}
	if perr != nil {
		return 0, fmt.Errorf("write the input of job %s: %w", id, perr)
	}
	return n, nil
}

// InputReader reads an item job's input file: Columns first, then Next
// for each item's cells.
type InputReader struct {
	Columns []string
	dec     *json.Decoder
}

// NewInputReader reads the header of an input file.
func NewInputReader(r io.Reader) (*InputReader, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 64<<10))
	var cols []string
	if err := dec.Decode(&cols); err != nil {
		return nil, fmt.Errorf("input header: %w", err)
	}
	return &InputReader{Columns: cols, dec: dec}, nil
}

// Next returns the next item's cells, or io.EOF after the last.
func (ir *InputReader) Next() ([]string, error) {
	var row []string
	if err := ir.dec.Decode(&row); err != nil {
		return nil, err
	}
	if len(row) != len(ir.Columns) {
		return nil, fmt.Errorf("input row of %d cells for %d columns", len(row), len(ir.Columns))
	}
	return row, nil
}
