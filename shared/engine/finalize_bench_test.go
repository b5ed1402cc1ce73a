package engine

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/jobs"
)

// BenchmarkFinalizeMerge measures the finalize's merge of a job's parts
// into its CSV (merge: the two passes over the parts, the phone filters,
// the aggregator flag, the CSV streamed into the file store) on the local
// file store, with the largest output a job may have: 2,000,000 rows in
// parts of 50 rows (a tile's searches), as the tasks write them
// (writePart). The target (docs/benchmarks.md): under a third of the
// job-finalizer's timeout, 300 s on its 3008 MB Lambda (about 1.7 vCPU).
// SVC_BENCH_FINALIZE_ROWS sets another row count.
//
//	go test ./shared/engine -run '^$' -bench FinalizeMerge -benchtime 1x
func BenchmarkFinalizeMerge(b *testing.B) {
	total := 2_000_000
	if v, err := strconv.Atoi(os.Getenv("SVC_BENCH_FINALIZE_ROWS")); err == nil && v > 0 {
		total = v
	}
	const perPart = 50
	e := newEnv(b, newWorld(), envOpts{})
	ctx := context.Background()
	j := &jobs.Job{ID: "benchmerge" + strconv.Itoa(total), Queries: []string{"boulangerie", "restaurant"},
		Zones: []string{"Lyon"}, Country: "FR", MaxPerPhone: 3}

	nParts := (total + perPart - 1) / perPart
	parts := make([]string, nParts)
	setup := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for p := range next {
				task := rootID(p)
				rows := make([]Row, 0, perPart)
				for i := p * perPart; i < min((p+1)*perPart, total); i++ {
					rows = append(rows, benchRow(i))
				}
				if err := writePart(ctx, e.eng, j.ID, task, rows); err != nil {
					select {
					case errs <- err:
					default:
					}
				}
				parts[p] = partKey(j.ID, task)
			}
		})
	}
	for p := range nParts {
		next <- p
	}
	close(next)
	wg.Wait()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	b.Logf("%d rows in %d parts written in %.1fs", total, nParts, time.Since(setup).Seconds())

	b.Run("local", func(b *testing.B) { benchMerge(b, e, j, parts, total) })
	// The parts read as from S3: each open waits for a first byte.
	lat := *e.eng
	lat.d.Files = slowOpens{Store: e.files, wait: s3FirstByte}
	b.Run("s3-latency", func(b *testing.B) { benchMerge(b, &env{files: e.files, eng: &lat}, j, parts, total) })
}

// s3FirstByte is a typical wait before the first byte of a small object's
// GET on S3 from a Lambda of its region.
const s3FirstByte = 25 * time.Millisecond

// slowOpens waits before each open, as a GET on S3 does.
type slowOpens struct {
	blob.Store
	wait time.Duration
}

func (s slowOpens) Open(ctx context.Context, key string) (io.ReadCloser, blob.Info, error) {
	time.Sleep(s.wait)
	return s.Store.Open(ctx, key)
}

func benchMerge(b *testing.B, e *env, j *jobs.Job, parts []string, total int) {
	ctx := context.Background()
	var took time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		out, err := e.eng.merge(ctx, j, parts)
		if err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
		n++
		if out.rows+out.duplicates+out.perPhone+out.foreign != total {
			b.Fatalf("%d rows, %d duplicates, %d over the per-number limit: want %d in all", out.rows, out.duplicates, out.perPhone, total)
		}
		info, err := e.files.Stat(ctx, OutputKey(j.ID))
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("merge: %d rows out (%d duplicates, %d over the per-number limit), CSV %d MB, %.1fs",
			out.rows, out.duplicates, out.perPhone, info.Size>>20, time.Since(start).Seconds())
	}
	b.ReportMetric(float64(took.Nanoseconds())/float64(n)/float64(total), "ns/row")
	b.ReportMetric(took.Seconds()/float64(n), "s/merge")
}

// benchRow is the i-th row of a large job: distinct places but for one
// in 100 listed twice (adjacent tiles), one number in 50 shared by three
// places or more (a franchise's line: flagged, and past MaxPerPhone).
func benchRow(i int) Row {
	id := i
	if i%100 == 99 {
		id = i - 1
	}
	phone := 600000000 + i
	if i%50 < 4 {
		phone = 600000000 + i/50
	}
	return Row{
		PlaceID: fmt.Sprintf("ChIJ%022d", id), Name: fmt.Sprintf("Boulangerie du Marché n°%d", id),
		Website: fmt.Sprintf("https://www.boulangerie-%d.fr/", id), Phone: fmt.Sprintf("0%d", phone),
		Address: fmt.Sprintf("%d rue de la République, 69002 Lyon, France", id%300+1), Rating: 4.5, Reviews: id % 900,
		Category: "Boulangerie", MapsURL: fmt.Sprintf("https://www.google.com/maps/place/?q=place_id:ChIJ%022d", id),
		Query: "boulangerie", Zone: "Lyon", Lat: 45.76 + float64(i%1000)*1e-4, Lon: 4.83 + float64(i%997)*1e-4,
		Department: "Rhône", Region: "Auvergne-Rhône-Alpes", PhoneE164: fmt.Sprintf("+33%d", phone),
	}
}
