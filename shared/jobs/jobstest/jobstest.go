// Package jobstest moves jobs through their states as the engine would,
// for the tests of the packages built over jobs (jobs itself, pipelines,
// veille): start, close a task, finish with an output, fail. It writes
// through the same operations as the engine (jobs.Start, jobs.CloseTask,
// jobs.DoneOps, jobs.FailOps) and tells the service's listeners of each
// end (jobs.Service.Ended), so what a test sees is what a run would leave.
package jobstest

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/store"
)

// Engine stands in for the engine over a jobs table and a file store.
type Engine struct {
	T     testing.TB
	DB    store.DB
	Files blob.Store
	Jobs  *jobs.Service
	Now   func() time.Time
}

func (e Engine) load(id string) (*jobs.Job, jobs.Record) {
	e.T.Helper()
	j, rec, err := jobs.Load(context.Background(), e.DB, id)
	if err != nil {
		e.T.Fatal(err)
	}
	return j, rec
}

// Begin moves a pending job to running with n tasks open.
func (e Engine) Begin(id string, n int) *jobs.Job {
	e.T.Helper()
	j, _ := e.load(id)
	op, err := jobs.Start(j, e.Now(), n)
	if err != nil {
		e.T.Fatal(err)
	}
	if err := jobs.Transition(context.Background(), e.DB, 0, op); err != nil {
		e.T.Fatalf("start %s: %v", id, err)
	}
	return j
}

// CloseTask closes task of a running job, as a root task (one point
// processed), opening the given tasks.
func (e Engine) CloseTask(id, task string, opens ...string) {
	e.T.Helper()
	j, rec := e.load(id)
	c := jobs.Close{Task: jobs.Task{ID: task}, Progress: jobs.Progress{Points: 1, Opened: int64(len(opens)) - 1}}
	for _, o := range opens {
		c.Opens = append(c.Opens, jobs.Task{ID: o})
	}
	if err := jobs.CloseTask(context.Background(), e.DB, j, rec, c, e.Now()); err != nil {
		e.T.Fatalf("close %s of %s: %v", task, id, err)
	}
}

// Finish ends a job done (starting it first when pending) with output as
// its CSV named name (<job type>.csv when empty), its rows counted from
// it; a nil output leaves it with none.
func (e Engine) Finish(id, name string, output []byte) *jobs.Job {
	e.T.Helper()
	ctx := context.Background()
	if j, _ := e.load(id); j.Status == jobs.Pending {
		e.Begin(id, 1)
	}
	j, _ := e.load(id)
	if output != nil {
		if _, err := e.Files.Put(ctx, jobs.OutputKey(id), bytes.NewReader(output), "text/csv"); err != nil {
			e.T.Fatal(err)
		}
		if name == "" {
			name = j.JobType + ".csv"
		}
		j.OutputFilename, j.DownloadAvailable = &name, true
		j.ResultsCount = rowsOf(e.T, output)
	}
	ops, err := jobs.DoneOps(j, e.Now(), nil)
	if err != nil {
		e.T.Fatal(err)
	}
	if err := jobs.Transition(ctx, e.DB, 0, ops...); err != nil {
		e.T.Fatalf("finish %s: %v", id, err)
	}
	e.Jobs.Ended(ctx, j)
	return j
}

// Fail ends a pending or running job failed with msg, with no output.
func (e Engine) Fail(id, msg string) {
	e.T.Helper()
	j, _ := e.load(id)
	ops, err := jobs.FailOps(j, e.Now(), msg)
	if err != nil {
		e.T.Fatal(err)
	}
	if err := jobs.Transition(context.Background(), e.DB, 0, ops...); err != nil {
		e.T.Fatalf("fail %s: %v", id, err)
	}
	e.Jobs.Ended(context.Background(), j)
}

// CSV writes rows under header as a job output.
func CSV(t testing.TB, header []string, rows ...[]string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := export.NewCSV(&b, header)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// rowsOf counts the records of a CSV output under its header.
func rowsOf(t testing.TB, output []byte) int {
	t.Helper()
	r := csv.NewReader(bytes.NewReader(output))
	r.FieldsPerRecord = -1
	n := -1 // the header
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			return max(n, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
}
