package veille

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/placerow"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/provider"
	"github.com/prospectdata/svc/shared/rowdiff"
	"github.com/prospectdata/svc/shared/store"
)

// Samples are a run's capped previews of its buckets.
type Samples = rowdiff.SampleSet

// The churn check (docs/veille.md): the provider's searches do not list
// the same places from one run to the next, so a place of the previous run
// that the replay did not find is looked up again by its place id before it
// counts as removed.
const (
	// MaxLookups bounds one run's lookups (and their cost); past it the
	// remaining candidates count as removed unverified.
	MaxLookups = 10_000
	// lookupWorkers is how many lookups run at once.
	lookupWorkers = 8
)

// candidate is a place of the previous run the replay did not list.
type candidate struct {
	change rowdiff.Change
	id     string // its place id
	// after the lookup: the fresh row when the place is still open.
	fresh  rowdiff.Row
	open   bool
	failed bool
}

// runDiff is what a run's diff and churn check gather: the counts, the
// capped samples, the signals, the removed places to look up and, after
// the lookups, the places that rejoin the run's rows.
type runDiff struct {
	counts   rowdiff.Counts
	samples  *rowdiff.Samples
	signals  []rowdiff.Signal
	cands    []*candidate
	rejoined []rowdiff.Row
}

// compute diffs a run's replay with the previous run, checks the churn,
// writes the run's rows and signals, and closes the run. The replay's
// output is read once: the diff reads it through a tee that stores it as
// the run's rows, to which the places the churn check found still open
// are then appended.
func (s *Service) compute(ctx context.Context, r *record, d *runDoc) error {
	prev, _, err := s.d.Files.Open(ctx, outputKey(r.ID, r.LastRunID))
	if err != nil {
		return fmt.Errorf("previous rows of veille %d: %w", r.ID, err)
	}
	defer prev.Close()
	_, cur, err := s.d.Jobs.OpenOutput(ctx, r.UserID, d.JobID)
	if err != nil {
		return err
	}
	defer cur.Close()
	rows, stored := s.storeRows(ctx, outputKey(r.ID, d.ID))
	written := false
	defer func() {
		if !written {
			rows.CloseWithError(errors.New("veille run not computed"))
			<-stored
		}
	}()

	head := &firstBytes{r: io.TeeReader(cur, rows), max: maxHeaderBytes}
	rd, err := s.diffRun(ctx, r, d, prev, head)
	if err != nil {
		return err
	}

	// The lookups are billed before they are made; an account without the
	// EF left keeps its removals unverified.
	looked := s.lookup(ctx, r, rd.cands)
	if err := rd.rejoin(); err != nil {
		return err
	}
	hr, err := export.ReadCSV(bytes.NewReader(head.buf))
	if err != nil {
		return fmt.Errorf("header of job %s: %w", d.JobID, err)
	}
	written = true
	if err := appendRows(rows, stored, hr.Header(), rd.rejoined); err != nil {
		return fmt.Errorf("rows of veille %d run %d: %w", r.ID, d.ID, err)
	}
	rowdiff.SortSignals(rd.signals)
	if err := s.writeSignals(ctx, r.ID, d.ID, rd.signals); err != nil {
		return err
	}

	s.fillRun(r, d, rd, looked)
	it, err := d.item()
	if err != nil {
		return err
	}
	r, done, err := s.closeRun(ctx, r, d, it)
	if err != nil || !done {
		return err
	}
	s.completed(ctx, r, d)
	return nil
}

// diffRun diffs the previous run's rows with the replay's output: a
// removed place with a place id becomes a lookup candidate while the
// lookup cap allows, a modified row may give a signal, and every other
// change goes to the samples.
func (s *Service) diffRun(ctx context.Context, r *record, d *runDoc, prev, cur io.Reader) (*runDiff, error) {
	rd := &runDiff{samples: rowdiff.NewSamples(rowdiff.DefaultSampleCap)}
	unverified := 0
	counts, err := rowdiff.Diff(ctx, prev, cur, rowdiff.Options{TempDir: s.d.TempDir}, func(c rowdiff.Change) error {
		switch c.Kind {
		case rowdiff.KindRemoved:
			if id := c.Before.Value("place_id"); id != "" && len(rd.cands) < MaxLookups {
				rd.cands = append(rd.cands, &candidate{change: c, id: id})
				return nil
			}
			if c.Before.Value("place_id") != "" {
				unverified++
			}
		case rowdiff.KindModified:
			if sg, ok := rowdiff.SignalOf(c.Before, c.After); ok {
				rd.signals = append(rd.signals, sg)
			}
		}
		return rd.samples.Add(c)
	})
	if err != nil {
		return nil, fmt.Errorf("diff of veille %d run %d: %w", r.ID, d.ID, err)
	}
	rd.counts = counts
	if unverified > 0 {
		s.d.Log.WarnContext(ctx, "veille: removed places past the lookup cap counted unverified",
			"veille", r.ID, "run", d.ID, "unverified", unverified)
	}
	return rd, nil
}

// rejoin settles the looked-up candidates: a place still open rejoins the
// run (unchanged or modified by its fresh row), a failed lookup keeps the
// place as it was, and the others stay removed.
func (rd *runDiff) rejoin() error {
	for _, c := range rd.cands {
		switch {
		case c.open:
			rd.counts.Removed--
			rd.counts.Total++
			rd.rejoined = append(rd.rejoined, c.fresh)
			ch := rowdiff.Change{Kind: rowdiff.KindUnchanged, Key: c.change.Key, Before: c.change.Before, After: c.fresh}
			if changed := rowdiff.ChangedFields(c.change.Before, c.fresh); len(changed) > 0 {
				ch.Kind, ch.ChangedFields = rowdiff.KindModified, changed
				rd.counts.Modified++
				if sg, ok := rowdiff.SignalOf(ch.Before, ch.After); ok {
					rd.signals = append(rd.signals, sg)
				}
				if err := rd.samples.Add(ch); err != nil {
					return err
				}
			} else {
				rd.counts.Unchanged++
			}
		case c.failed:
			// Not known to be gone: it stays, as it was.
			rd.counts.Removed--
			rd.counts.Total++
			rd.counts.Unchanged++
			rd.rejoined = append(rd.rejoined, c.change.Before)
		default:
			if err := rd.samples.Add(c.change); err != nil {
				return err
			}
		}
	}
	return nil
}

// fillRun sets a computed run's state, counts and samples on its document.
func (s *Service) fillRun(r *record, d *runDoc, rd *runDiff, looked int) {
	prevJob := ""
	if r.LastRunJobID != nil {
		prevJob = *r.LastRunJobID
	}
	now := s.d.Now().UTC()
	counts := rd.counts
	d.State, d.ComputedAt = RunComputed, iso(now)
	d.PrevJobID = &prevJob
	d.TotalCount, d.PrevTotalCount = counts.Total, &counts.PrevTotal
	d.NewCount, d.RemovedCount, d.ModifiedCount, d.UnchangedCount = &counts.New, &counts.Removed, &counts.Modified, &counts.Unchanged
	set := rd.samples.Result()
	d.Samples = &set
	d.Lookups, d.Rejoined, d.Signals = looked, len(rd.rejoined), len(rd.signals)
}

// closeRun writes the computed run (item it) and the veille's last run
// together, retrying on a conflict; it returns the veille as written, and
// done false when another tick computed the run first.
func (s *Service) closeRun(ctx context.Context, r *record, d *runDoc, it store.Item) (*record, bool, error) {
	for try := 0; ; try++ {
		var err error
		r, err = s.get(ctx, 0, r.ID, true)
		if err != nil {
			return nil, false, err
		}
		r.LastRunID, r.LastRunAt, r.LastRunJobID = d.ID, &d.ComputedAt, &d.JobID
		r.RunCount++
		if r.PendingRunID == d.ID {
			r.PendingRunID = 0
		}
		// The run and the veille together: a run is computed once.
		err = s.put(ctx, r, store.PutOp(Table, it, store.Eq("state", RunPending)))
		if errors.Is(err, errConflict) && try < 10 {
			if cur, gerr := s.getRun(ctx, r.ID, d.ID); gerr == nil && cur.State != RunPending {
				return r, false, nil // another tick finished it
			}
			continue
		}
		if err != nil {
			return nil, false, err
		}
		return r, true, nil
	}
}

// lookup looks the candidates up through the provider, billing them
// first (pricing.EFPerLookup each); it returns how many it made.
func (s *Service) lookup(ctx context.Context, r *record, cands []*candidate) int {
	if len(cands) == 0 || s.d.Provider == nil {
		return 0
	}
	if s.d.Ledger != nil {
		charge, fits := s.d.Ledger.ChargeOp(r.UserID, float64(len(cands))*pricing.EFPerLookup)
		if !fits {
			s.d.Log.WarnContext(ctx, "veille: no EF left for the churn check", "veille", r.ID, "lookups", len(cands))
			return 0
		}
		if err := s.d.DB.Transact(ctx, charge); err != nil {
			s.d.Log.WarnContext(ctx, "veille: churn check not billed, not made", "veille", r.ID, "err", err)
			return 0
		}
	}
	work := make(chan *candidate)
	var wg sync.WaitGroup
	for range min(lookupWorkers, len(cands)) {
		wg.Go(func() {
			for c := range work {
				p, err := s.d.Provider.Place(ctx, c.id)
				switch {
				case err == nil:
					c.open, c.fresh = true, freshRow(c.change.Before, p)
				case errors.Is(err, provider.ErrClosed) || errors.Is(err, provider.ErrNotFound):
				default:
					c.failed = true
					s.d.Log.WarnContext(ctx, "veille: lookup failed; the place is kept", "veille", r.ID, "place", c.id, "err", err)
				}
			}
		})
	}
	for _, c := range cands {
		work <- c
	}
	close(work)
	wg.Wait()
	return len(cands)
}

// freshRow is the previous row of a place with its provider columns as the
// lookup gives them now. The place id stays the one looked up (the
// provider may answer with a newer id of the same place), and a category
// the lookup does not give (the sim world's, for a query outside its
// categories) stays the previous one.
func freshRow(before rowdiff.Row, p provider.Place) rowdiff.Row {
	now := placerow.PlaceCells(p)
	header := before.Header()
	cells := make([]string, len(header))
	for i, h := range header {
		v, ok := now[h]
		switch {
		case h == "place_id", !ok, h == "category" && v == "":
			cells[i] = before.Get(h)
		default:
			cells[i] = export.Neutralise(v)
		}
	}
	return rowdiff.NewRow(header, cells)
}

// maxHeaderBytes bounds what firstBytes keeps: a header of a few hundred
// columns fits many times over.
const maxHeaderBytes = 64 << 10

// firstBytes keeps the first bytes read through it (the CSV's header line,
// which the diff reads but does not give back).
type firstBytes struct {
	r   io.Reader
	buf []byte
	max int
}

func (f *firstBytes) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if room := f.max - len(f.buf); room > 0 {
		f.buf = append(f.buf, p[:min(n, room)]...)
	}
	return n, err
}

// storeRows starts storing key from what is written to the pipe it
// returns; the channel gives the store's outcome once the pipe is closed.
func (s *Service) storeRows(ctx context.Context, key string) (*io.PipeWriter, <-chan error) {
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := s.d.Files.Put(ctx, key, pr, "text/csv; charset=utf-8")
		pr.CloseWithError(err)
		done <- err
	}()
	return pw, done
}

// appendRows ends a run's rows: the rejoined places after the replay's
// output (in the replay's columns), then the store's outcome.
func appendRows(pw *io.PipeWriter, stored <-chan error, header []string, rejoined []rowdiff.Row) error {
	err := func() error {
		if len(rejoined) == 0 {
			return nil
		}
		w, err := export.AppendCSV(pw, len(header))
		if err != nil {
			return err
		}
		row := make([]string, len(header))
		for _, r := range rejoined {
			for i, h := range header {
				row[i] = r.Value(h)
			}
			if err := w.Write(row); err != nil {
				return err
			}
		}
		return w.Flush()
	}()
	pw.CloseWithError(err)
	if serr := <-stored; err == nil {
		err = serr
	}
	return err
}

// SignalList is the body of the signals route.
type SignalList struct {
	Items []rowdiff.Signal `json:"items"`
	Total int              `json:"total"`
}

func (s *Service) writeSignals(ctx context.Context, vid, rid int64, signals []rowdiff.Signal) error {
	if signals == nil {
		signals = []rowdiff.Signal{}
	}
	b, err := json.Marshal(signals)
	if err != nil {
		return err
	}
	if _, err := s.d.Files.Put(ctx, signalsKey(vid, rid), strings.NewReader(string(b)), "application/json"); err != nil {
		return fmt.Errorf("signals of veille %d run %d: %w", vid, rid, err)
	}
	return s.writeSignalFiles(ctx, vid, rid, signals)
}

// Signals are a computed run's reputation signals, by score descending (a
// baseline has none).
func (s *Service) Signals(ctx context.Context, uid, id, rid int64) (*SignalList, error) {
	d, err := s.run(ctx, uid, id, rid)
	if err != nil {
		return nil, err
	}
	out := &SignalList{Items: []rowdiff.Signal{}}
	if d.IsBaseline {
		return out, nil
	}
	rc, _, err := s.d.Files.Open(ctx, signalsKey(id, rid))
	if err != nil {
		return nil, fmt.Errorf("signals of veille %d run %d: %w", id, rid, err)
	}
	defer rc.Close()
	if err := json.NewDecoder(rc).Decode(&out.Items); err != nil {
		return nil, fmt.Errorf("signals of veille %d run %d: %w", id, rid, err)
	}
	out.Total = len(out.Items)
	// The best MaxSignalItems only: total counts them all, the downloads
	// (signals.csv, .json, .xlsx) carry them all.
	out.Items = out.Items[:min(len(out.Items), MaxSignalItems)]
	return out, nil
}

// MaxSignalItems bounds the signals a run's list answers (the highest
// scores), so that the answer stays far below Lambda's 6 MB response cap
// on AWS (a signal is about 400 bytes of JSON) whatever the size of the
// watched output; docs/veille.md.
const MaxSignalItems = 5000

// WriteSignals writes signals in a download format.
func WriteSignals(w io.Writer, f export.Format, signals []rowdiff.Signal) error {
	switch f {
	case export.JSON:
		return rowdiff.WriteSignalsJSON(w, signals)
	case export.XLSX:
		return rowdiff.WriteSignalsXLSX(w, signals)
	}
	return rowdiff.WriteSignalsCSV(w, signals)
}
