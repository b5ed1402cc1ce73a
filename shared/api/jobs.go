package api

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/scrape"
)

// jobCreate is the body of POST /api/jobs: the scrape request, and a
// "type" field read only to refuse it (spec: not supported here).
type jobCreate struct {
	scrape.Request
	Type json.RawMessage `json:"type,omitempty"`
}

// BreakdownBody is the answer of GET /api/jobs/{id}/breakdown (final once
// the job is done).
type BreakdownBody struct {
	Status       jobs.Status               `json:"status"`
	ResultsCount int                       `json:"results_count"`
	ByQuery      map[string]int            `json:"by_query"`
	ByZone       map[string]int            `json:"by_zone"`
	QueryStats   map[string]jobs.QueryStat `json:"query_stats"`
	DeadQueries  []string                  `json:"dead_queries"`
}

// CancelBody is the answer of POST /api/jobs/{id}/cancel.
type CancelBody struct {
	OK                bool `json:"ok"`
	PipelineCancelled bool `json:"pipeline_cancelled"`
}

// jobRoutes are the caller's jobs: creation of a scrape, the list and the
// platform queue, and each job's reading, cancellation, resumption,
// deletion and outputs.
func (s *Server) jobRoutes() []Route {
	return []Route{
		s.streamRoute(),
		s.parseListRoute(),
		{Method: http.MethodPost, Path: "/api/jobs", Auth: Any, Active: true, Tag: "jobs", Handle: s.createJob,
			Summary: "Create a scrape job (EF debited at creation); requires a verified email",
			Request: scrape.Request{}, Response: jobs.Job{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 422, 429}},
		{Method: http.MethodGet, Path: "/api/jobs", Auth: Any, Tag: "jobs", Handle: s.listJobs,
			Summary: "Your jobs, most recent first (limit 1..500, default 100; offset)",
			Query: []Param{
				{Name: "limit", Type: "integer", Default: 100, Doc: "jobs in the page; clamped to 1..500"},
				{Name: "offset", Type: "integer", Default: 0, Min: bound(0), Doc: "jobs skipped, most recent first"},
			},
			Response: []jobs.Job{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 422}},
		{Method: http.MethodGet, Path: "/api/jobs/queue", Auth: Any, Tag: "jobs", Handle: s.jobQueue,
			Summary: "The platform's queue of multi-proxy jobs (one runs at a time), anonymised: " +
				"other accounts' jobs show their type, state and times only",
			Response: jobs.QueueView{}, Status: http.StatusOK, Errors: []int{401, 403}},
		{Method: http.MethodGet, Path: "/api/jobs/{id}", Auth: Any, Tag: "jobs", Handle: s.getJob,
			Summary:  "One job, with its live counters",
			Response: jobs.Job{}, Status: http.StatusOK, Errors: []int{401, 403, 404}},
		{Method: http.MethodPost, Path: "/api/jobs/{id}/cancel", Auth: Any, Tag: "jobs", Handle: s.cancelJob,
			Summary:  "Cancel a pending or running job (400 once it has ended)",
			Response: CancelBody{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404}},
		{Method: http.MethodPost, Path: "/api/jobs/{id}/resume", Auth: Any, Active: true, Tag: "jobs", Handle: s.resumeJob,
			Summary:  "Resume a cancelled or failed scrape: a new job over the tiles it left, EF for those only",
			Response: jobs.Job{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404, 429}},
		{Method: http.MethodDelete, Path: "/api/jobs/{id}", Auth: Any, Tag: "jobs", Handle: s.deleteJob,
			Summary: "Delete a job and its output (400 while it runs)",
			Status:  http.StatusNoContent, Errors: []int{400, 401, 403, 404}},
		{Method: http.MethodGet, Path: "/api/jobs/{id}/download", Auth: Any, Tag: "jobs", Handle: s.downloadJob,
			Summary: "The job's output: format csv (default), json or xlsx; a redirect to the file where the store can sign one. " +
				"On AWS a JSON or XLSX not made yet (a worker makes both after the CSV) answers 400 with Retry-After (docs/files.md)",
			Media: []string{"text/csv", "application/json", export.XLSX.MediaType()},
			Query: []Param{
				{Name: "format", Type: "string", Enum: []string{"csv", "json", "xlsx"}, Default: "csv", Doc: "the file's format"},
			},
			Response: []map[string]any{}, Redirect: true, Status: http.StatusOK, Errors: []int{400, 401, 403, 404, 410}},
		{Method: http.MethodGet, Path: "/api/jobs/{id}/items", Auth: Any, Tag: "jobs", Handle: s.jobItems,
			Summary: "A page of the job's rows: {count, total, offset, items} (offset ≥ 0; limit 1..100000, omitted: every row). " +
				"On AWS a page also stops before 5.5 MiB (Lambda's 6 MB response cap), so count may be below limit: " +
				"more pages remain while offset + count is below total (docs/files.md)",
			Query: []Param{
				{Name: "offset", Type: "integer", Default: 0, Min: bound(0), Doc: "rows skipped"},
				{Name: "limit", Type: "integer", Min: bound(1), Max: bound(100000), Doc: "rows at most in the page; omitted: every row"},
			},
			Response: ItemsPage{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404, 410, 422}},
		{Method: http.MethodGet, Path: "/api/jobs/{id}/breakdown", Auth: Any, Tag: "jobs", Handle: s.jobBreakdown,
			Summary:  "The job's counts by query and by zone, its per-query tile stats and dead queries",
			Response: BreakdownBody{}, Status: http.StatusOK, Errors: []int{401, 403, 404}},
		{Method: http.MethodGet, Path: "/api/jobs/{id}/places", Auth: Any, Tag: "jobs", Handle: s.jobPlaces,
			Summary: "A scrape's places to draw on its map: the first 5,000 rows of its output with their coordinates " +
				"and names (the CSV has no coordinates), and the output's row count; none for other jobs",
			Response: jobs.MapPlaces{}, Status: http.StatusOK, Errors: []int{401, 403, 404}},
		{Method: http.MethodGet, Path: "/api/jobs/{id}/map", Auth: Any, Tag: "jobs", Handle: s.jobMap,
			Summary:  "The job's base tiles with their bounds and whether each was processed, and the processed ratio",
			Response: jobs.TileMap{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404}},
		{Method: http.MethodGet, Path: "/api/jobs/{id}/output-columns", Auth: Any, Tag: "jobs", Handle: s.jobOutputColumns,
			Summary:  "The columns of the job's CSV and which hold values, or why there is none",
			Response: jobs.Columns{}, Status: http.StatusOK, Errors: []int{401, 403, 404}},
	}
}

// createJob is POST /api/jobs.
func (s *Server) createJob(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req jobCreate
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Type != nil {
		return apperr.New(apperr.Invalid,
			"Le champ type n'est pas accepté ici : utilise POST /api/jobs/{type}.",
			"The type field is not supported here: use POST /api/jobs/{type}.")
	}
	j, err := s.d.Jobs.Create(r.Context(), c.User, req.Request)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

// listJobs is GET /api/jobs.
func (s *Server) listJobs(w http.ResponseWriter, r *http.Request, c *Caller) error {
	limit, err := intParam(r, "limit", 100)
	if err != nil {
		return err
	}
	offset, err := intParam(r, "offset", 0)
	if err != nil {
		return err
	}
	// The spec's offset is at least 0: a negative one is a
	// malformed request (400), not a first page.
	if offset < 0 {
		return apperr.New(apperr.Invalid, "offset : entier supérieur ou égal à 0 attendu.",
			"offset: expected an integer of at least 0.")
	}
	list, err := s.d.Jobs.List(r.Context(), c.User.ID, limit, offset)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// jobQueue is GET /api/jobs/queue.
func (s *Server) jobQueue(w http.ResponseWriter, r *http.Request, c *Caller) error {
	v, err := s.d.Jobs.Queue(r.Context(), c.User.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// getJob is GET /api/jobs/{id}.
func (s *Server) getJob(w http.ResponseWriter, r *http.Request, c *Caller) error {
	j, err := s.d.Jobs.Get(r.Context(), c.User.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

// cancelJob is POST /api/jobs/{id}/cancel.
func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request, c *Caller) error {
	pc, err := s.d.Jobs.Cancel(r.Context(), c.User.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, CancelBody{OK: true, PipelineCancelled: pc})
	return nil
}

// resumeJob is POST /api/jobs/{id}/resume.
func (s *Server) resumeJob(w http.ResponseWriter, r *http.Request, c *Caller) error {
	j, err := s.d.Jobs.Resume(r.Context(), c.User, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, j)
	return nil
}

// deleteJob is DELETE /api/jobs/{id}.
func (s *Server) deleteJob(w http.ResponseWriter, r *http.Request, c *Caller) error {
	if err := s.d.Jobs.Delete(r.Context(), c.User.ID, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// downloadJob is GET /api/jobs/{id}/download.
func (s *Server) downloadJob(w http.ResponseWriter, r *http.Request, c *Caller) error {
	d, err := s.d.Jobs.Download(r.Context(), c.User.ID, r.PathValue("id"), r.URL.Query().Get("format"))
	if err != nil {
		return err
	}
	if d.RedirectURL != "" {
		http.Redirect(w, r, d.RedirectURL, http.StatusFound)
		return nil
	}
	defer d.Body.Close()
	w.Header().Set("Content-Type", d.ContentType)
	w.Header().Set("Content-Disposition", export.ContentDisposition(d.Filename))
	w.WriteHeader(http.StatusOK)
	_, err = io.Copy(w, d.Body)
	return abortOnly(err)
}

// jobItems is GET /api/jobs/{id}/items.
func (s *Server) jobItems(w http.ResponseWriter, r *http.Request, c *Caller) error {
	offset, err := intParam(r, "offset", 0)
	if err != nil {
		return err
	}
	limit, err := intParam(r, "limit", 0)
	if err != nil {
		return err
	}
	if r.URL.Query().Has("limit") && limit < 1 {
		return apperr.Fields(apperr.Field("limit", "entre 1 et 100000", "between 1 and 100000"))
	}
	// Until the page's first byte the answer can still be a {detail};
	// after it, only a cut stream.
	started := false
	err = s.d.Jobs.Items(r.Context(), c.User.ID, r.PathValue("id"), offset, limit, func() io.Writer {
		started = true
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		return w
	})
	if started {
		return abortOnly(err)
	}
	return err
}

// jobBreakdown is GET /api/jobs/{id}/breakdown.
func (s *Server) jobBreakdown(w http.ResponseWriter, r *http.Request, c *Caller) error {
	j, err := s.d.Jobs.Get(r.Context(), c.User.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, BreakdownBody{
		ByQuery: j.Breakdown.ByQuery, ByZone: j.Breakdown.ByZone, QueryStats: j.QueryStats,
		DeadQueries: j.DeadQueries, ResultsCount: j.ResultsCount, Status: j.Status,
	})
	return nil
}

// jobPlaces is GET /api/jobs/{id}/places.
func (s *Server) jobPlaces(w http.ResponseWriter, r *http.Request, c *Caller) error {
	m, err := s.d.Jobs.Places(r.Context(), c.User.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}

// jobMap is GET /api/jobs/{id}/map.
func (s *Server) jobMap(w http.ResponseWriter, r *http.Request, c *Caller) error {
	m, err := s.d.Jobs.Map(r.Context(), c.User.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, m)
	return nil
}

// jobOutputColumns is GET /api/jobs/{id}/output-columns.
func (s *Server) jobOutputColumns(w http.ResponseWriter, r *http.Request, c *Caller) error {
	cols, err := s.d.Jobs.OutputColumns(r.Context(), c.User.ID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, cols)
	return nil
}

// abortOnly turns an error met after the answer began into a logged abort:
// the status is sent, so the client sees a truncated body, not a {detail}.
func abortOnly(err error) error {
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	return nil
}

// intParam reads an integer query parameter; absent is def, not an
// integer is a 422 naming it. Range rules (clamping) are the route's.
func intParam(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, apperr.Fields(apperr.Field(name, "entier attendu", "expected an integer"))
	}
	return n, nil
}

// ItemsPage is the answer of GET /api/jobs/{id}/items, for the document
// (export.WriteItemsMax streams it without this type): the rows are objects
// of the CSV's columns.
type ItemsPage struct {
	Offset int              `json:"offset"`
	Items  []map[string]any `json:"items"`
	Count  int              `json:"count"`
	Total  int              `json:"total"`
}
