package jobs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/jsonerr"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/pricing"
)

// ItemRequest is the body of POST /api/jobs/{type} (spec: "Item-driven job
// request"), with the settings of the modules that have some. Items stay
// raw until CreateItems reads them one by one, so that a bad entry is a
// 422 naming its index.
type ItemRequest struct {
	Items       []json.RawMessage `json:"items"`
	SourceJobID *string           `json:"source_job_id,omitempty"`
	// Options are the body's fields that are some module's option
	// (modules.Option), by name, as decoded: the module's
	// modules.Entry.Read checks them.
	Options map[string]any `json:"-"`
}

// UnmarshalJSON reads the items and the source, and every field that is
// some module's option into Options; other fields are ignored, as in any
// body.
func (r *ItemRequest) UnmarshalJSON(b []byte) error {
	type plain ItemRequest
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	opts, err := ReadOptions(b)
	if err != nil {
		return err
	}
	*r = ItemRequest(p)
	r.Options = opts
	return nil
}

// ReadOptions reads the fields of a JSON object that are some module's
// option (modules.Option), by name, as decoded (string, bool, float64,
// nil for null); nil when there are none. A body that sets options
// (POST /api/jobs/{type}, POST /api/estimate/items) reads them with it.
// The body is read into a struct of the options' fields alone, so that
// its other fields (10,000 items) are skipped, not copied once more; the
// names match as encoding/json matches any body's fields.
func ReadOptions(body []byte) (map[string]any, error) {
	var names []string
	var fields []reflect.StructField
	for _, e := range modules.Entries() {
		for _, o := range e.Options {
			// Two modules may share an option's name: one field reads it
			// (encoding/json drops fields whose names collide).
			if slices.Contains(names, o.Name) {
				continue
			}
			names = append(names, o.Name)
			fields = append(fields, reflect.StructField{Name: "Option" + strconv.Itoa(len(fields)),
				Type: reflect.TypeFor[json.RawMessage](), Tag: reflect.StructTag(`json:"` + o.Name + `"`)})
		}
	}
	p := reflect.New(reflect.StructOf(fields))
	if err := json.Unmarshal(body, p.Interface()); err != nil {
		return nil, err
	}
	var out map[string]any
	for i, name := range names {
		raw := p.Elem().Field(i).Interface().(json.RawMessage)
		if raw == nil {
			continue
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, err
		}
		if out == nil {
			out = map[string]any{}
		}
		out[name] = v
	}
	return out, nil
}

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
	e, ok := modules.Lookup(module)
	if !ok || !e.Items() {
		return 0, apperr.Fields(apperr.Field("module", "module inconnu ou sans items", "unknown module, or one without items"))
	}
	if n < 1 || n > MaxItems {
		return 0, apperr.Fields(apperr.Field("count", "entre 1 et 10 000", "from 1 to 10,000"))
	}
	v, err := e.Read(r.Options)
	if err != nil {
		return 0, err
	}
	ef, _ := pricing.ItemEF(e, n, v)
	return ef, nil
}

// ItemModule tells whether a job type runs over items (every module of
// the registry with an item price).
func ItemModule(jobType string) bool {
	e, ok := modules.Lookup(jobType)
	return ok && e.Items()
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
	if err := CheckItems(items, st.module.Needs); err != nil {
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
	for _, key := range st.module.Needs {
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
	module modules.Entry
	values modules.Values
}

// itemSettings admits the user and checks the request's settings against
// the module's options.
func (s *Service) itemSettings(ctx context.Context, u *accounts.User, module string, r ItemRequest) (itemSettings, error) {
	var st itemSettings
	e, ok := modules.Lookup(module)
	if !ok || !e.Items() {
		return st, apperr.Missing()
	}
	st.module = e
	if err := s.admit(ctx, u); err != nil {
		return st, err
	}
	var err error
	st.values, err = e.Read(r.Options)
	return st, err
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
	ef, _ := pricing.ItemEF(st.module, n, st.values)
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
	}
	j.setOptions(st.values)
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

// parseItems reads each raw item (422 naming the first bad one). The count
// is checked first, so that 10,001 items are refused before any is read.
func parseItems(raws []json.RawMessage) ([]Item, error) {
	if len(raws) == 0 || len(raws) > MaxItems {
		return nil, CheckItems(make([]Item, len(raws)), nil)
	}
	items := make([]Item, len(raws))
	for i, raw := range raws {
		if err := json.Unmarshal(raw, &items[i]); err != nil {
			msg := jsonerr.Message(err, &items[i])
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
