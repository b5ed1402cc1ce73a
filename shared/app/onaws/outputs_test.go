package onaws_test

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/xuri/excelize/v2"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
	blobs3 "github.com/prospectdata/svc/shared/blob/s3"
	"github.com/prospectdata/svc/shared/export"
)

// s3Client reaches the runtime's bucket directly (the test's own hand on
// the files: to remove a derived format, to widen an output).
func (rt *awsRuntime) s3Client() (*awss3.Client, string) {
	return awss3.New(awss3.Options{Region: "eu-west-3", BaseEndpoint: aws.String(rt.s3), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")}), rt.env["SVC_BUCKET"]
}

// fetch GETs a presigned address and returns its body.
func fetch(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v %.200s", url, res.StatusCode, err, b)
	}
	return res, b
}

// lambdaPayload is the size of a handler's answer as Lambda carries it:
// the invocation's JSON (Lambda caps a synchronous one at 6 MB).
func lambdaPayload(t *testing.T, v any) int {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// TestOutputsOnAWSRuntime: the outputs of a done job on the stack's
// functions. Its CSV, JSON and XLSX are redirects to presigned addresses
// of the bucket, with the right content; the JSON and XLSX are made by the
// finalize queue's worker (job-finalizer), never by the API: with a
// format removed, the download answers 400 with Retry-After and asks the
// worker again. An items page with no limit over wide rows stops before
// Lambda's 6 MB, and the pages cover every row. The account export is
// built by the worker into the bucket: 202 with Retry-After, then 302.
func TestOutputsOnAWSRuntime(t *testing.T) {
	rt := newAWSRuntime(t)
	jobsFn := rt.handler("api-jobs")
	bearer := rt.signup("outputs-aws@example.org")
	var job struct {
		ID, Status     string
		ResultsCount   int    `json:"results_count"`
		OutputFilename string `json:"output_filename"`
	}
	read := func() {
		if err := json.Unmarshal([]byte(rt.call(jobsFn, "GET", "/api/jobs/"+job.ID, "", bearer).Body), &job); err != nil {
			t.Fatal(err)
		}
	}
	cr := rt.call(jobsFn, "POST", "/api/jobs", `{"queries":["boulangerie"],"zones":["Villeurbanne"]}`, bearer)
	if err := json.Unmarshal([]byte(cr.Body), &job); err != nil || cr.StatusCode != 200 {
		t.Fatalf("create: %d %s", cr.StatusCode, cr.Body)
	}
	download := func(format string) (int, map[string]string, string) {
		r := rt.call(jobsFn, "GET", "/api/jobs/"+job.ID+"/download?format="+format, "", bearer)
		return r.StatusCode, r.Headers, r.Body
	}
	// Done, then every format made: the worker drains what finalize sent.
	rt.drain(func() bool {
		read()
		if job.Status != "done" {
			return false
		}
		for _, f := range []string{"json", "xlsx"} {
			if code, _, _ := download(f); code != http.StatusFound {
				return false
			}
		}
		return true
	})
	if job.ResultsCount == 0 {
		t.Fatalf("job %+v", job)
	}

	// The three formats, from the bucket.
	code, h, body := download("csv")
	if code != http.StatusFound || !strings.HasPrefix(h["Location"], rt.s3) {
		t.Fatalf("csv: %d %v %s", code, h, body)
	}
	// The file name is asked of S3 in the address (the emulator does not
	// answer it; S3 does).
	if u := mustURL(t, h["Location"]); !strings.Contains(u.Query().Get("response-content-disposition"), job.OutputFilename) {
		t.Errorf("csv address %s, want the disposition of %s", h["Location"], job.OutputFilename)
	}
	_, csvBody := fetch(t, h["Location"])
	cw := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(csvBody, []byte("\ufeff"))))
	cw.Comma = ';'
	rows, err := cw.ReadAll()
	if err != nil || len(rows) != job.ResultsCount+1 {
		t.Fatalf("csv: %d rows for %d results (%v)", len(rows), job.ResultsCount, err)
	}
	code, h, _ = download("json")
	if code != http.StatusFound {
		t.Fatalf("json: %d", code)
	}
	res, jsonBody := fetch(t, h["Location"])
	var items []map[string]any // typed: numbers, booleans, null
	if err := json.Unmarshal(jsonBody, &items); err != nil || len(items) != job.ResultsCount {
		t.Fatalf("json: %d items for %d results (%v)", len(items), job.ResultsCount, err)
	}
	for i, it := range items {
		if it["nom"] != rows[i+1][0] {
			t.Fatalf("json item %d nom %q, csv %q", i, it["nom"], rows[i+1][0])
		}
	}
	if ct := res.Header.Get("Content-Type"); ct != export.JSON.MediaType() {
		t.Errorf("json content type %q", ct)
	}
	code, h, _ = download("xlsx")
	if code != http.StatusFound {
		t.Fatalf("xlsx: %d", code)
	}
	_, xlsxBody := fetch(t, h["Location"])
	wb, err := excelize.OpenReader(bytes.NewReader(xlsxBody))
	if err != nil {
		t.Fatal(err)
	}
	sheet, err := wb.GetRows("Export")
	wb.Close()
	if err != nil || len(sheet) != job.ResultsCount+1 || sheet[1][0] != rows[1][0] {
		t.Fatalf("xlsx: %d rows for %d results (%v)", len(sheet), job.ResultsCount, err)
	}

	// The API never converts: a format removed is asked of the worker,
	// and the download says to come back meanwhile.
	s3c, bucket := rt.s3Client()
	if _, err := s3c.DeleteObject(rt.ctx, &awss3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String("jobs/" + job.ID + "/output.json")}); err != nil {
		t.Fatal(err)
	}
	code, h, body = download("json")
	if code != http.StatusBadRequest || h["Retry-After"] == "" || !strings.Contains(body, "being prepared") {
		t.Fatalf("json removed: %d %v %s", code, h, body)
	}
	if code, _, _ = download("json"); code != http.StatusBadRequest {
		t.Fatalf("json asked again: %d", code)
	}
	msgs := rt.receive(app.QueueFinalize)
	if len(msgs) != 1 || !strings.Contains(aws.ToString(msgs[0].Body), `"kind":"derive"`) {
		t.Fatalf("finalize queue after the download: %d messages (one derive wanted, asked once)", len(msgs))
	}
	finalizer, err := onaws.WorkerHandler(rt.ctx, "job-finalizer", rt.getenv)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := finalizer(rt.ctx, sqsEvent(msgs[0])); err != nil || len(out.BatchItemFailures) > 0 {
		t.Fatalf("derive: %v %v", out, err)
	}
	if code, _, _ = download("json"); code != http.StatusFound {
		t.Fatalf("json once made by the worker: %d", code)
	}

	// Wide rows: 4.3 MB of CSV whose quotes take 4 bytes each in a
	// Lambda's answer (escaped in the JSON body, then again in the
	// invocation's JSON): 8.6 MB as a single page. A page without a limit
	// stops before the cap; the pages cover every row.
	var wide bytes.Buffer
	w, err := export.NewCSV(&wide, []string{"nom", "avis", "note"})
	if err != nil {
		t.Fatal(err)
	}
	const wideRows = 1800
	for i := range wideRows {
		if err := w.Write([]string{fmt.Sprintf("Lieu %d", i), strings.Repeat(`"`, 1200), "4,5"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := blobs3.New(s3c, bucket).Put(rt.ctx, "jobs/"+job.ID+"/output.csv", bytes.NewReader(wide.Bytes()), "text/csv; charset=utf-8"); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []string{"", "?limit=100000"} {
		offset, seen, pages := 0, 0, 0
		for {
			sep := "?"
			if limit != "" {
				sep = "&"
			}
			path := "/api/jobs/" + job.ID + "/items" + limit
			if offset > 0 {
				path += sep + "offset=" + strconv.Itoa(offset)
			}
			r := rt.call(jobsFn, "GET", path, "", bearer)
			if n := lambdaPayload(t, r); r.StatusCode != 200 || n > onaws.ResponseCap {
				t.Fatalf("%s: %d, %d bytes in Lambda's answer (cap %d)", path, r.StatusCode, n, onaws.ResponseCap)
			}
			var page struct {
				Offset, Count, Total int
				Items                []map[string]string
			}
			if err := json.Unmarshal([]byte(r.Body), &page); err != nil {
				t.Fatal(err)
			}
			if page.Total != wideRows || page.Count == 0 || page.Count != len(page.Items) || page.Items[0]["nom"] != fmt.Sprintf("Lieu %d", offset) {
				t.Fatalf("%s: count %d total %d", path, page.Count, page.Total)
			}
			pages++
			seen += page.Count
			offset += page.Count
			if offset >= page.Total {
				break
			}
		}
		if seen != wideRows || pages < 2 {
			t.Errorf("limit %q: %d rows over %d pages, want %d over several", limit, seen, pages, wideRows)
		}
	}
}

// TestAccountExportOnAWSRuntime: GET /api/auth/me/export on api-auth asks
// the finalize queue's worker for the archive (202, Retry-After, asked
// once), the worker builds it into the bucket under exports/, and the
// route then redirects to it (302); the archive holds the done job's CSV
// and JSON.
func TestAccountExportOnAWSRuntime(t *testing.T) {
	rt := newAWSRuntime(t)
	jobsFn := rt.handler("api-jobs")
	bearer := rt.signup("export-aws@example.org")
	var job struct{ ID, Status string }
	cr := rt.call(jobsFn, "POST", "/api/jobs", `{"queries":["boulangerie"],"zones":["Villeurbanne"]}`, bearer)
	if err := json.Unmarshal([]byte(cr.Body), &job); err != nil || cr.StatusCode != 200 {
		t.Fatalf("create: %d %s", cr.StatusCode, cr.Body)
	}
	rt.drain(func() bool {
		_ = json.Unmarshal([]byte(rt.call(jobsFn, "GET", "/api/jobs/"+job.ID, "", bearer).Body), &job)
		return job.Status == "done"
	})

	auth := rt.handler("api-auth")
	login := rt.call(auth, "POST", "/api/auth/login", `{"email":"export-aws@example.org","password":"pass-w0rd!"}`, map[string]string{})
	if login.StatusCode != 200 || len(login.Cookies) != 1 {
		t.Fatalf("login: %d %s", login.StatusCode, login.Body)
	}
	session := map[string]string{"Cookie": strings.SplitN(login.Cookies[0], ";", 2)[0]}
	for range 2 {
		r := rt.call(auth, "GET", "/api/auth/me/export", "", session)
		if r.StatusCode != http.StatusAccepted || r.Headers["Retry-After"] == "" || !strings.Contains(r.Body, `"status":"building"`) {
			t.Fatalf("export asked: %d %v %s", r.StatusCode, r.Headers, r.Body)
		}
	}
	var exportMsgs int
	for _, m := range rt.receive(app.QueueFinalize) {
		if strings.Contains(aws.ToString(m.Body), `"kind":"export"`) {
			exportMsgs++
			finalizer, err := onaws.WorkerHandler(rt.ctx, "job-finalizer", rt.getenv)
			if err != nil {
				t.Fatal(err)
			}
			if out, err := finalizer(rt.ctx, sqsEvent(m)); err != nil || len(out.BatchItemFailures) > 0 {
				t.Fatalf("build: %v %v", out, err)
			}
		}
	}
	if exportMsgs != 1 {
		t.Fatalf("%d export messages, want one (asked once while building)", exportMsgs)
	}
	r := rt.call(auth, "GET", "/api/auth/me/export", "", session)
	if r.StatusCode != http.StatusFound || !strings.HasPrefix(r.Headers["Location"], rt.s3) || !strings.Contains(r.Headers["Location"], "exports%2F") && !strings.Contains(r.Headers["Location"], "/exports/") {
		t.Fatalf("export built: %d %v %s", r.StatusCode, r.Headers, r.Body)
	}
	if u := mustURL(t, r.Headers["Location"]); !strings.Contains(u.Query().Get("response-content-disposition"), "svc-export-export-aws-") {
		t.Errorf("export address %s, want the archive's file name", r.Headers["Location"])
	}
	_, zipBody := fetch(t, r.Headers["Location"])
	zr, err := zip.NewReader(bytes.NewReader(zipBody), int64(len(zipBody)))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range zr.File {
		names[f.Name] = true
	}
	var csvName, jsonName bool
	for n := range names {
		csvName = csvName || strings.HasPrefix(n, "jobs/"+job.ID+"/") && strings.HasSuffix(n, ".csv")
		jsonName = jsonName || strings.HasPrefix(n, "jobs/"+job.ID+"/") && strings.HasSuffix(n, ".json")
	}
	for _, want := range []string{"account.json", "jobs.json", "pipelines.json", "veille.json", "manifest.txt"} {
		if !names[want] {
			t.Errorf("archive without %s: %v", want, names)
		}
	}
	if !csvName || !jsonName {
		t.Errorf("archive without the job's CSV and JSON: %v", names)
	}
}
