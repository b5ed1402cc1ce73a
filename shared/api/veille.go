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

func (s *Server) veilleRoutes() []Route {
	vs := s.d.Veille
	withID := func(f func(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error) func(http.ResponseWriter, *http.Request, *Caller) error {
		return func(w http.ResponseWriter, r *http.Request, c *Caller) error {
			id, err := pathID(r, "id")
			if err != nil {
				return err
			}
			return f(w, r, c, id)
		}
	}
	withRun := func(f func(w http.ResponseWriter, r *http.Request, c *Caller, id, rid int64) error) func(http.ResponseWriter, *http.Request, *Caller) error {
		return withID(func(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error {
			rid, err := pathID(r, "run_id")
			if err != nil {
				return err
			}
			return f(w, r, c, id, rid)
		})
	}
	return []Route{
		{
			Method: http.MethodGet, Path: "/api/veille", Auth: Any, Tag: "veille",
			Summary:  "The caller's veilles, active and paused",
			Response: VeilleList{}, Status: http.StatusOK, Errors: []int{401},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
				list, err := vs.List(r.Context(), c.User.ID)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, VeilleList{Items: list})
				return nil
			},
		},
		{
			Method: http.MethodPost, Path: "/api/veille", Auth: Any, Active: true, Tag: "veille", MaxBody: 4 << 10,
			Summary: "Watch a completed scrape or pipeline: replayed every frequency_days, each run diffed with the " +
				"previous; the source's output is the baseline run",
			Request: veille.CreateRequest{}, Response: veille.Veille{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 413},
			Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
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
				v, err := vs.Create(r.Context(), c.User, req)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, v)
				return nil
			},
		},
		{
			Method: http.MethodGet, Path: "/api/veille/{id}", Auth: Any, Tag: "veille",
			Summary: "A veille", Response: veille.Veille{}, Status: http.StatusOK, Errors: []int{401, 404},
			Handle: withID(func(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error {
				v, err := vs.Get(r.Context(), c.User.ID, id)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, v)
				return nil
			}),
		},
		{
			Method: http.MethodPatch, Path: "/api/veille/{id}", Auth: Any, Active: true, Tag: "veille", MaxBody: 4 << 10,
			Summary: "Change a veille's name, frequency (reschedules the next run) or status (active, paused, deleted); " +
				"omitted fields stay as they are",
			Request: veille.UpdateRequest{}, Response: veille.Veille{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404},
			Handle: withID(func(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error {
				var req veille.UpdateRequest
				if err := decode(r, &req); err != nil {
					return err
				}
				v, err := vs.Update(r.Context(), c.User.ID, id, req)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, v)
				return nil
			}),
		},
		{
			Method: http.MethodDelete, Path: "/api/veille/{id}", Auth: Any, Active: true, Tag: "veille",
			Summary:  "Delete a veille (soft: kept for audit, never run again, 404 afterwards)",
			Response: okBody{}, Status: http.StatusOK, Errors: []int{401, 403, 404},
			Handle: withID(func(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error {
				if err := vs.Delete(r.Context(), c.User.ID, id); err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, okBody{OK: true})
				return nil
			}),
		},
		{
			Method: http.MethodGet, Path: "/api/veille/{id}/runs", Auth: Any, Tag: "veille",
			Summary:  "A veille's computed runs, latest first, with their job's status (no samples)",
			Response: RunList{}, Status: http.StatusOK, Errors: []int{401, 404},
			Handle: withID(func(w http.ResponseWriter, r *http.Request, c *Caller, id int64) error {
				runs, err := vs.Runs(r.Context(), c.User.ID, id)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, RunList{Items: runs})
				return nil
			}),
		},
		{
			Method: http.MethodGet, Path: "/api/veille/{id}/runs/{run_id}", Auth: Any, Tag: "veille",
			Summary:  "A run with its capped samples of new, removed and modified rows",
			Response: veille.Run{}, Status: http.StatusOK, Errors: []int{401, 404},
			Handle: withRun(func(w http.ResponseWriter, r *http.Request, c *Caller, id, rid int64) error {
				run, err := vs.Run(r.Context(), c.User.ID, id, rid)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, run)
				return nil
			}),
		},
		{
			Method: http.MethodGet, Path: "/api/veille/{id}/runs/{run_id}/signals", Auth: Any, Tag: "veille",
			Summary:  "A run's reputation signals (rating drops, review surges), by score descending",
			Response: veille.SignalList{}, Status: http.StatusOK, Errors: []int{401, 404},
			Handle: withRun(func(w http.ResponseWriter, r *http.Request, c *Caller, id, rid int64) error {
				list, err := vs.Signals(r.Context(), c.User.ID, id, rid)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, list)
				return nil
			}),
		},
		{
			Method: http.MethodGet, Path: "/api/veille/{id}/runs/{run_id}/{file}", Auth: Any, Tag: "veille",
			Summary: "A run's signals as a file: signals.csv, signals.json or signals.xlsx " +
				"(signaux-reputation-veille-{id}-run-{run_id}.{fmt}); a redirect to the file where the store can sign one; 400 for another format",
			Media:    []string{"text/csv", "application/json", export.XLSX.MediaType()},
			Response: []map[string]any{}, Redirect: true, Status: http.StatusOK, Errors: []int{400, 401, 404},
			Handle: withRun(func(w http.ResponseWriter, r *http.Request, c *Caller, id, rid int64) error {
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
				file, err := vs.SignalsFile(r.Context(), c.User.ID, id, rid, export.Format(format), name)
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
			}),
		},
		{
			Method: http.MethodPost, Path: "/api/admin/veille/{id}/run", Auth: Admin, Tag: "admin",
			Summary:  "Run a veille now (admin session): it becomes due at once, the next tick starts its replay",
			Response: veille.Veille{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 404},
			Handle: withID(func(w http.ResponseWriter, r *http.Request, _ *Caller, id int64) error {
				v, err := vs.RunNow(r.Context(), id)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, v)
				return nil
			}),
		},
	}
}
