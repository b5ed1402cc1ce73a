package onaws_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/app/onaws/lambdatest"
)

// millionRowsQueries are the 20 densest categories of the simulated world
// (scrape.MaxQueries of them): over France about 0.0159 places per
// inhabitant, some 1.08 million rows.
const millionRowsQueries = `"restaurant","coiffeur","bar","kine","medecin","boulangerie","electricien","avocat","beaute","garage",` +
	`"maconnerie","plombier","banque","dentiste","immobilier","peintre","architecte","assurance","hotel","menuisier"`

// BenchmarkAWSPath runs a scrape of the 20 densest queries through the
// whole AWS path under the platform's limits (newLimitedStack, the
// stack's own timeouts): api-jobs behind the HTTP API, worker-tasks and
// job-finalizer behind their event sources, then the downloads in every
// format and the items pages through api-jobs under the 6 MB cap. It
// reports the wall time to done, the invocations per function, the
// largest response payload, and the finalize's longest invocation as a
// share of job-finalizer's timeout.
//
// "department" (Rhône, about 30,000 rows) runs with make bench; "France"
// (over 1,000,000 rows, tens of minutes on 2 cores) only with
// SVC_BENCH_MILLION_ROWS=1, which make bench sets on a line of its own
// with a longer timeout:
//
//	SVC_BENCH_MILLION_ROWS=1 go test -run '^$' -bench 'AWSPath/France' -benchtime 1x -timeout 3h ./shared/app/onaws
func BenchmarkAWSPath(b *testing.B) {
	for _, tc := range []struct {
		name, zone string
		within     time.Duration
		million    bool
	}{
		{"department", "Rhône", 20 * time.Minute, false},
		{"France", "France", 3 * time.Hour, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.million && os.Getenv("SVC_BENCH_MILLION_ROWS") != "1" {
				b.Skip("the 1,000,000-row job takes tens of minutes: SVC_BENCH_MILLION_ROWS=1 (make bench)")
			}
			for range b.N {
				benchAWSPath(b, tc.zone, tc.within)
			}
		})
	}
}

func benchAWSPath(b *testing.B, zone string, within time.Duration) {
	s := newLimitedStack(b, stackOptions{Scale: 1, Workers: map[string]int{"worker-tasks": 4, "job-finalizer": 2}})
	// France costs about 190,000 EF, above the default monthly quota: a
	// deployment setting raises it.
	s.rt.env["SVC_EF_QUOTA"] = "1000000"
	bearer := s.rt.signup("bench@example.org")
	b.ResetTimer()
	job, took := s.runJob(b, bearer, `{"queries":[`+millionRowsQueries+`],"zones":["`+zone+`"],"scrap_mode":"ultra"}`, within)
	b.StopTimer()
	if job.Status != "done" {
		b.Fatalf("job %+v", job)
	}
	began := time.Now()
	sizes := map[string]int{}
	for _, f := range []string{"csv", "json", "xlsx"} {
		body, _ := s.download(b, bearer, job.ID, f, 30*time.Minute)
		sizes[f] = len(body)
	}
	downloads := time.Since(began)
	began = time.Now()
	rows, pages, largest := s.items(b, bearer, job.ID)
	itemsTook := time.Since(began)
	if rows != job.ResultsCount {
		b.Errorf("items: %d rows for %d results", rows, job.ResultsCount)
	}
	for end := time.Now().Add(time.Minute); !s.idle() && time.Now().Before(end); {
		time.Sleep(500 * time.Millisecond)
	}
	s.stop()
	s.checkLimits(b)

	gs := s.gw.Stats()
	fin := s.workers["job-finalizer"]
	b.ReportMetric(float64(job.ResultsCount), "rows")
	b.ReportMetric(took.Seconds(), "s-to-done")
	b.ReportMetric(float64(s.workers["worker-tasks"].Stats().Invocations), "tasks-invocations")
	b.ReportMetric(float64(fin.Stats().Invocations), "finalizer-invocations")
	b.ReportMetric(float64(s.apis["api-jobs"].Stats().Invocations), "api-invocations")
	b.ReportMetric(float64(max(gs.MaxResponse, s.apis["api-jobs"].Stats().MaxResponse)), "max-response-B")
	k := s.kindStats()
	b.ReportMetric(100*k["finalize"].max.Seconds()/fin.Config().Timeout.Seconds(), "finalize-%-of-timeout")
	b.ReportMetric(0, "ns/op")
	var kinds []string
	for name, st := range k {
		kinds = append(kinds, name+": "+st.String())
	}
	b.Logf("%d rows in %v; downloads %v (csv %d, json %d, xlsx %d bytes); items %d pages in %v, largest %d bytes; by message kind: %s",
		job.ResultsCount, took.Round(time.Second), downloads.Round(time.Second), sizes["csv"], sizes["json"], sizes["xlsx"],
		pages, itemsTook.Round(time.Second), largest, strings.Join(kinds, "; "))
	if gs.MaxResponse > lambdatest.MaxSyncPayload {
		b.Errorf("largest response %d bytes", gs.MaxResponse)
	}
}
