package api

import (
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/veille"
)

// VeilleList is the body of GET /api/veille.
type VeilleList struct {
	Items []veille.Veille `json:"items"`
}

// RunList is the body of GET /api/veille/{id}/runs.
type RunList struct {
	Items []veille.Run `json:"items"`
}

// pathID reads a numeric path parameter; anything else is a 404 (no
// such object).
func pathID(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, apperr.Missing()
	}
	return id, nil
}

// withID reads a route's numeric {id} before its handler runs.
func withID(f func(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error) func(http.ResponseWriter, *http.Request, *Caller) error {
	return func(w http.ResponseWriter, r *http.Request, c *Caller) error {
		id, err := pathID(r, "id")
		if err != nil {
			return err
		}
		return f(w, r, c, id)
	}
}

// withRun reads a route's numeric {id} and {run_id} before its handler
// runs.
func withRun(f func(w http.ResponseWriter, r *http.Request, c *Caller, id, rid int64) error) func(http.ResponseWriter, *http.Request, *Caller) error {
	return withID(func(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error {
		rid, err := pathID(r, "run_id")
		if err != nil {
			return err
		}
		return f(w, r, c, id, rid)
	})
}

// veilleRoutes are the caller's veilles, their runs and signals, and the
// admin's run-now.
func (s *Server) veilleRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/api/veille", Auth: Any, Tag: "veille", Handle: s.listVeilles,
			Summary:  "The caller's veilles, active and paused",
			Response: VeilleList{}, Status: http.StatusOK, Errors: []int{401}},
		{Method: http.MethodPost, Path: "/api/veille", Auth: Any, Active: true, Tag: "veille", MaxBody: 4 << 10, Handle: s.createVeille,
			Summary: "Watch a completed scrape or pipeline: replayed every frequency_days, each run diffed with the " +
				"previous; the source's output is the baseline run",
			Request: veille.CreateRequest{}, Response: veille.Veille{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 413}},
		{Method: http.MethodGet, Path: "/api/veille/{id}", Auth: Any, Tag: "veille", Handle: withID(s.getVeille),
			Summary:  "A veille",
			Response: veille.Veille{}, Status: http.StatusOK, Errors: []int{401, 404}},
		{Method: http.MethodPatch, Path: "/api/veille/{id}", Auth: Any, Active: true, Tag: "veille", MaxBody: 4 << 10, Handle: withID(s.updateVeille),
			Summary: "Change a veille's name, frequency (reschedules the next run) or status (active, paused, deleted); " +
				"omitted fields stay as they are",
			Request: veille.UpdateRequest{}, Response: veille.Veille{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404}},
		{Method: http.MethodDelete, Path: "/api/veille/{id}", Auth: Any, Active: true, Tag: "veille", Handle: withID(s.deleteVeille),
			Summary:  "Delete a veille (soft: kept for audit, never run again, 404 afterwards)",
			Response: okBody{}, Status: http.StatusOK, Errors: []int{401, 403, 404}},
		{Method: http.MethodGet, Path: "/api/veille/{id}/runs", Auth: Any, Tag: "veille", Handle: withID(s.veilleRuns),
			Summary:  "A veille's computed runs, latest first, with their job's status (no samples)",
			Response: RunList{}, Status: http.StatusOK, Errors: []int{401, 404}},
		{Method: http.MethodGet, Path: "/api/veille/{id}/runs/{run_id}", Auth: Any, Tag: "veille", Handle: withRun(s.veilleRun),
			Summary:  "A run with its capped samples of new, removed and modified rows",
			Response: veille.Run{}, Status: http.StatusOK, Errors: []int{401, 404}},
		{Method: http.MethodGet, Path: "/api/veille/{id}/runs/{run_id}/signals", Auth: Any, Tag: "veille", Handle: withRun(s.runSignals),
			Summary:  "A run's reputation signals (rating drops, review surges), by score descending",
			Response: veille.SignalList{}, Status: http.StatusOK, Errors: []int{401, 404}},
		{Method: http.MethodGet, Path: "/api/veille/{id}/runs/{run_id}/{file}", Auth: Any, Tag: "veille", Handle: withRun(s.runSignalsFile),
			Summary: "A run's signals as a file: signals.csv, signals.json or signals.xlsx " +
				"(signaux-reputation-veille-{id}-run-{run_id}.{fmt}); a redirect to the file where the store can sign one; 400 for another format",
			Media:    []string{"text/csv", "application/json", export.XLSX.MediaType()},
			Response: []map[string]any{}, Redirect: true, Status: http.StatusOK, Errors: []int{400, 401, 404}},
		{Method: http.MethodPost, Path: "/api/admin/veille/{id}/run", Auth: Admin, Tag: "admin", Handle: withID(s.runVeilleNow),
			Summary:  "Run a veille now (admin session): it becomes due at once, the next tick starts its replay",
			Response: veille.Veille{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404}},
	}
}

// listVeilles is GET /api/veille.
func (s *Server) listVeilles(w http.ResponseWriter, r *http.Request, c *Caller) error {
	list, err := s.d.Veille.List(r.Context(), c.User.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, VeilleList{Items: list})
	return nil
}

// createVeille is POST /api/veille.
func (s *Server) createVeille(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req veille.CreateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := checkBodyID("source_job_id", req.SourceJobID); err != nil {
		return err
	}
	if err := checkBodyID("source_pipeline_id", req.SourcePipelineID); err != nil {
		return err
	}
	v, err := s.d.Veille.Create(r.Context(), c.User, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// getVeille is GET /api/veille/{id}.
func (s *Server) getVeille(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error {
	v, err := s.d.Veille.Get(r.Context(), c.User.ID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// updateVeille is PATCH /api/veille/{id}.
func (s *Server) updateVeille(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error {
	var req veille.UpdateRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	v, err := s.d.Veille.Update(r.Context(), c.User.ID, id, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// deleteVeille is DELETE /api/veille/{id}.
func (s *Server) deleteVeille(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error {
	if err := s.d.Veille.Delete(r.Context(), c.User.ID, id); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, okBody{OK: true})
	return nil
}

// veilleRuns is GET /api/veille/{id}/runs.
func (s *Server) veilleRuns(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error {
	runs, err := s.d.Veille.Runs(r.Context(), c.User.ID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, RunList{Items: runs})
	return nil
}

// veilleRun is GET /api/veille/{id}/runs/{run_id}.
func (s *Server) veilleRun(w http.ResponseWriter, r *http.Request, c *Caller, id, rid int64) error {
	run, err := s.d.Veille.Run(r.Context(), c.User.ID, id, rid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, run)
	return nil
}

// runSignals is GET /api/veille/{id}/runs/{run_id}/signals.
func (s *Server) runSignals(w http.ResponseWriter, r *http.Request, c *Caller, id, rid int64) error {
	list, err := s.d.Veille.Signals(r.Context(), c.User.ID, id, rid)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// runSignalsFile is GET /api/veille/{id}/runs/{run_id}/{file}: {file} is
// signals.{csv,json,xlsx}; another name is no such file (404), another
// format a 400.
func (s *Server) runSignalsFile(w http.ResponseWriter, r *http.Request, c *Caller, id, rid int64) error {
	format, ok := strings.CutPrefix(r.PathValue("file"), "signals.")
	if !ok {
		return apperr.Missing()
	}
	var media string
	switch export.Format(format) {
	case export.CSV:
		media = "text/csv; charset=utf-8"
	case export.JSON:
		media = "application/json"
	case export.XLSX:
		media = export.XLSX.MediaType()
	default:
		return apperr.New(apperr.Invalid, "Format non pris en charge : csv, json ou xlsx.",
			"Unsupported format: csv, json or xlsx.")
	}
	name := "signaux-reputation-veille-" + strconv.FormatInt(id, 10) + "-run-" + strconv.FormatInt(rid, 10) + "." + format
	file, err := s.d.Veille.SignalsFile(r.Context(), c.User.ID, id, rid, export.Format(format), name)
	if err != nil {
		return err
	}
	if file.RedirectURL != "" {
		http.Redirect(w, r, file.RedirectURL, http.StatusFound)
		return nil
	}
	defer file.Body.Close()
	w.Header().Set("Content-Type", media)
	w.Header().Set("Content-Disposition", export.ContentDisposition(name))
	w.WriteHeader(http.StatusOK)
	_, err = io.Copy(w, file.Body)
	return abortOnly(err)
}

// runVeilleNow is POST /api/admin/veille/{id}/run: any account's veille.
func (s *Server) runVeilleNow(w http.ResponseWriter, r *http.Request, _ *Caller, id int64) error {
	v, err := s.d.Veille.RunNow(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}
