package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/placerow"
)

// SharedPhonePlaces is how many places of a job must list one number for
// that number to flag them all as aggregator listings: a booking platform's
// or a franchise's central line. Two places sharing a number are common
// (a business listed twice, a shared practice) and not flagged.
const SharedPhonePlaces = 3

// setQueryStats sets a scrape's statistics of its searches, from the
// ledger's done tasks: per query, the tiles searched and those with
// results; the queries with none are its dead queries.
func setQueryStats(j *jobs.Job, recs []jobs.Task) {
	j.QueryStats = map[string]jobs.QueryStat{}
	for _, q := range j.Queries {
		j.QueryStats[q] = jobs.QueryStat{}
	}
	for _, r := range recs {
		for qi, kept := range r.Stats {
			if qi < 0 || qi >= len(j.Queries) {
				continue
			}
			st := j.QueryStats[j.Queries[qi]]
			st.Tiles++
			if kept > 0 {
				st.WithResults++
			}
			j.QueryStats[j.Queries[qi]] = st
		}
	}
	j.DeadQueries = []string{}
	for _, q := range j.Queries {
		if st := j.QueryStats[q]; st.Tiles > 0 && st.WithResults == 0 {
			j.DeadQueries = append(j.DeadQueries, q)
		}
	}
}

// mergeDone merges the parts of a scrape's done tasks, in task order, into
// its output, and sets the job's rows, breakdown and output name. strict:
// every task must be done (a task still open is an inconsistency);
// otherwise the others are left out (a job stopped before its end).
func (e *Engine) mergeDone(ctx context.Context, j *jobs.Job, strict bool) ([]jobs.Task, merged, error) {
	recs, err := e.tasks(ctx, j.ID, "")
	if err != nil {
		return nil, merged{}, err
	}
	if !strict {
		recs = slices.DeleteFunc(recs, func(r jobs.Task) bool { return r.State != jobs.TaskDone })
	}
	slices.SortFunc(recs, func(a, b jobs.Task) int { return compareTaskIDs(a.ID, b.ID) })
	var parts []string
	for _, r := range recs {
		if r.State != jobs.TaskDone {
			return nil, merged{}, permanent("The job's task ledger is inconsistent", fmt.Errorf("task %s is %s with no task open", r.ID, r.State))
		}
		if r.Rows > 0 {
			parts = append(parts, partKey(j.ID, r.ID))
		}
	}
	out, err := e.merge(ctx, j, parts)
	if err != nil {
		return nil, merged{}, err
	}
	j.Breakdown = jobs.Breakdown{ByQuery: out.byQuery, ByZone: out.byZone}
	j.ResultsCount = out.rows
	name := outputFilename(j)
	j.OutputFilename = &name
	return recs, out, nil
}

// handleFinalize merges the job's parts into its output and moves it
// running → done. See the package comment.
func (e *Engine) handleFinalize(ctx context.Context, m message) error {
	j, jit, ok, err := e.load(ctx, m.Job)
	if err != nil || !ok {
		return err
	}
	if j.Status != jobs.Running {
		return nil // done already, or cancelled, or failed
	}
	if jobs.ItemModule(j.JobType) {
		if err := e.finalizeItems(ctx, j, jit); err != nil {
			return err
		}
		if j, _, ok, err := e.load(ctx, m.Job); err == nil && ok && j.Status == jobs.Done && j.DownloadAvailable {
			e.sendDerive(ctx, j.ID)
		}
		return nil
	}
	if open := jit.OpenTasks(); open != 0 && !m.Partial {
		e.d.Log.Warn("engine: finalize with tasks open, dropped", "job", j.ID, "open", open)
		return nil // the last task sends it again
	}
	// Stopped at the maximum run time (Partial): only what is done is
	// merged; its resume searches the rest.
	recs, out, err := e.mergeDone(ctx, j, !m.Partial)
	if err != nil {
		return err
	}

	setQueryStats(j, recs)
	j.DownloadAvailable = true

	ops, err := jobs.DoneOps(j, e.d.Now(), nil)
	if err != nil {
		return err
	}
	err = jobs.Transition(ctx, e.d.DB, 0, ops...)
	if errors.Is(err, jobs.ErrTransition) {
		return nil // cancelled meanwhile, or another finalize won
	}
	if err != nil {
		return fmt.Errorf("finish job %s: %w", j.ID, err)
	}
	e.plans.forget(j.ID)
	e.learn(ctx, j, jit)
	e.log(ctx, j, true,
		fmt.Sprintf("Done: %d results (%d duplicates, %d foreign numbers, %d over the per-number limit removed).",
			out.rows, out.duplicates, out.foreign, out.perPhone),
		fmt.Sprintf("Terminé : %d résultats (%d doublons, %d numéros étrangers, %d au-delà de la limite par numéro retirés).",
			out.rows, out.duplicates, out.foreign, out.perPhone))
	if e.d.OnTerminal != nil {
		e.d.OnTerminal(ctx, j)
	}
	e.sendDerive(ctx, j.ID)
	// The parts are in the output now. A finalize running concurrently
	// fails on a missing part and leaves the output and the job alone.
	if err := e.d.Files.DeletePrefix(ctx, partsPrefix(j.ID)); err != nil {
		e.d.Log.Warn("engine: delete the parts of a done job", "job", j.ID, "err", err)
	}
	return nil
}

// merged is what the merge wrote.
type merged struct {
	rows, duplicates, foreign, perPhone int
	byQuery, byZone                     map[string]int
	// places are the first rows' coordinates, for the job's map.
	places []jobs.MapPlace
}

// phoneSharing counts, per E.164 number, the distinct places of the
// parts listing it: a number many places share is an aggregator's.
func (e *Engine) phoneSharing(ctx context.Context, parts []string) (map[string]int, error) {
	shared := map[string]int{}
	seen := map[string]struct{}{}
	err := e.eachRow(ctx, parts, func(r *Row) error {
		if _, dup := seen[r.PlaceID]; dup {
			return nil
		}
		seen[r.PlaceID] = struct{}{}
		if r.PhoneE164 != "" {
			shared[r.PhoneE164]++
		}
		return nil
	})
	return shared, err
}

// merge writes the output from the parts, in task order: the first row of
// each place id, the phone filters, the aggregator flag. Two passes over
// the parts: the first counts the places sharing each number (for the
// flag), the second writes, streaming into the file store.
func (e *Engine) merge(ctx context.Context, j *jobs.Job, parts []string) (merged, error) {
	shared, err := e.phoneSharing(ctx, parts)
	if err != nil {
		return merged{}, err
	}
	seen := map[string]struct{}{}

	out := merged{byQuery: map[string]int{}, byZone: map[string]int{}}
	for _, q := range j.Queries {
		out.byQuery[q] = 0
	}
	if p, err := e.plan(j); err == nil {
		for _, z := range p.Zones {
			out.byZone[z.Label] = 0
		}
	}
	werr, perr := blob.Write(ctx, e.d.Files, OutputKey(j.ID), "text/csv; charset=utf-8", func(pw io.Writer) error {
		w, err := export.NewCSV(pw, placerow.Columns(j.ExtraColumns, j.IncludeReviews))
		if err != nil {
			return err
		}
		perPhone := map[string]int{}
		err = e.eachRow(ctx, parts, func(r *Row) error {
			if _, dup := seen[r.PlaceID]; dup {
				out.duplicates++
				return nil
			}
			seen[r.PlaceID] = struct{}{}
			if key := r.PhoneE164; key != "" {
				if j.ExcludeForeignPhones && r.PhoneForeign {
					out.foreign++
					return nil
				}
				if j.MaxPerPhone > 0 && perPhone[key] >= j.MaxPerPhone {
					out.perPhone++
					return nil
				}
				perPhone[key]++
			}
			agg := placerow.AggregatorSite(r.Website) || (r.PhoneE164 != "" && shared[r.PhoneE164] >= SharedPhonePlaces)
			out.rows++
			out.byQuery[r.Query]++
			out.byZone[r.Zone]++
			if len(out.places) < jobs.MaxMapPlaces && (r.Lat != 0 || r.Lon != 0) {
				out.places = append(out.places, jobs.MapPlace{Lat: r.Lat, Lon: r.Lon, Name: r.Name})
			}
			return w.Write(placerow.Cells(r, agg, j.ExtraColumns, j.IncludeReviews))
		})
		if err != nil {
			return err
		}
		return w.Flush()
	})
	if werr != nil {
		return merged{}, werr
	}
	if perr != nil {
		return merged{}, fmt.Errorf("write the output of job %s: %w", j.ID, perr)
	}
	// The places to draw, beside the output (the CSV has no coordinates).
	b, err := json.Marshal(out.places)
	if err != nil {
		return merged{}, err
	}
	if _, err := e.d.Files.Put(ctx, jobs.PlacesKey(j.ID), bytes.NewReader(b), "application/json"); err != nil {
		return merged{}, fmt.Errorf("write the places of job %s: %w", j.ID, err)
	}
	return out, nil
}

// readAhead is how many parts the merge reads ahead of the one it writes.
// On S3 a part's GET waits some 20 to 30 ms before its first byte: the
// 40,000 parts of a 2,000,000-row job, read twice, would wait about 60 s
// at 32 in flight; at 64, half (docs/benchmarks.md). A part is some
// 25 KB, so this costs little memory.
const readAhead = 64

// eachRow calls fn with every row of the parts, in order, reading up to
// readAhead parts at once.
func (e *Engine) eachRow(ctx context.Context, parts []string, fn func(*Row) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		b   []byte
		err error
	}
	res := make([]chan result, len(parts))
	for i := range res {
		res[i] = make(chan result, 1)
	}
	tokens := make(chan struct{}, readAhead)
	go func() {
		for i, key := range parts {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				b, err := e.readPart(ctx, key)
				res[i] <- result{b, err}
			}()
		}
	}()
	for i := range parts {
		var r result
		select {
		case r = <-res[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-tokens
		if r.err != nil {
			return r.err
		}
		dec := json.NewDecoder(bytes.NewReader(r.b))
		for {
			var row Row
			err := dec.Decode(&row)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return permanent("A part of the job's results is unreadable", fmt.Errorf("%s: %w", parts[i], err))
			}
			if err := fn(&row); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *Engine) readPart(ctx context.Context, key string) ([]byte, error) {
	rc, _, err := e.d.Files.Open(ctx, key)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, permanent("A part of the job's results is missing", fmt.Errorf("%s: %w", key, err))
	}
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// outputFilename is <first query>_<first zone>_<id>.csv, slugged.
func outputFilename(j *jobs.Job) string {
	var q, z string
	if len(j.Queries) > 0 {
		q = slug(j.Queries[0])
	}
	if len(j.Zones) > 0 {
		z = slug(j.Zones[0])
	}
	var parts []string
	for _, s := range []string{q, z, j.ID} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "_") + ".csv"
}

// slug folds s to lower-case ASCII words joined by '-', at most 40 bytes.
func slug(s string) string {
	var b strings.Builder
	for _, r := range gazetteer.Normalize(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' && b.Len() > 0:
			b.WriteByte('-')
		}
	}
	out := strings.Trim(b.String(), "-")
	if len(out) > 40 {
		out = strings.TrimRight(out[:40], "-")
	}
	return out
}
