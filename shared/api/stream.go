package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/prospectdata/svc/shared/jobs"
)

// defaultStreamFor bounds one progress stream on a server that answers as
// it writes: the client then reconnects with Last-Event-ID and resumes
// where it left off (EventSource does so by itself). Lambdas set a much
// shorter bound (WithStreamFor).
const (
	defaultStreamFor = 10 * time.Minute
	heartbeat        = 15 * time.Second
	streamRetryMS    = 2000
)

// streamProgress is the payload of a progress event.
type streamProgress struct {
	ProcessedPoints int `json:"processed_points"`
	GridPoints      int `json:"grid_points_count"`
	ResultsCount    int `json:"results_count"`
	ErrorCount      int `json:"error_count"`
}

func (s *Server) streamRoute() Route {
	js := s.d.Jobs
	return Route{
		Method: http.MethodGet, Path: "/api/jobs/{id}/stream", Auth: Any, Tag: "jobs",
		Summary: "Server-sent events of a job: status, log, progress, done, error; resume with Last-Event-ID or since; tail N logs on first load",
		Query: []Param{
			{Name: "since", Type: "integer", Default: 0, Doc: "resume after this log id (the Last-Event-ID header wins)"},
			{Name: "tail", Type: "integer", Default: 0, Doc: "on first load, the last N logs instead of the whole history; ignored when resuming"},
		},
		ResponseType: "text/event-stream", Status: http.StatusOK, Errors: []int{401, 403, 404, 422},
		Handle: func(w http.ResponseWriter, r *http.Request, c *Caller) error {
			since, err := intParam(r, "since", 0)
			if err != nil {
				return err
			}
			tail, err := intParam(r, "tail", 0)
			if err != nil {
				return err
			}
			if v := r.Header.Get("Last-Event-ID"); v != "" {
				if n, err := strconv.Atoi(v); err == nil && n >= 0 {
					since, tail = n, 0 // resuming: the header wins, tail is ignored
				}
			}
			if since > 0 {
				tail = 0
			}
			ctx := r.Context()
			id := r.PathValue("id")
			j, err := js.Get(ctx, c.User.ID, id)
			if err != nil {
				return err
			}
			en := english(r)
			h := w.Header()
			h.Set("Content-Type", "text/event-stream")
			h.Set("Cache-Control", "no-cache")
			h.Set("X-Accel-Buffering", "no")
			w.WriteHeader(http.StatusOK)
			fl, _ := w.(http.Flusher)
			send := func(event string, id int64, data any) {
				b, _ := json.Marshal(data)
				if id > 0 {
					fmt.Fprintf(w, "id: %d\n", id)
				}
				fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
			}
			flush := func() {
				if fl != nil {
					fl.Flush()
				}
			}
			fmt.Fprintf(w, "retry: %d\n\n", streamRetryMS)
			status := j.Status
			send("status", 0, map[string]any{"status": status})
			last := int64(since)
			progress := streamProgress{-1, 0, 0, 0}
			streamFor := s.streamFor
			if streamFor <= 0 {
				streamFor = defaultStreamFor
			}
			end := time.Now().Add(streamFor)
			lastBeat := time.Now()
			for {
				lines, err := js.Logs(ctx, id, last, tail)
				if err != nil {
					return abortOnly(err)
				}
				tail = 0
				for _, l := range lines {
					msg := l.FR
					if en {
						msg = l.EN
					}
					send("log", l.Seq, map[string]any{"id": l.Seq, "at": l.At, "message": msg})
					last = l.Seq
				}
				if p := (streamProgress{j.ProcessedPoints, j.GridPointsCount, j.ResultsCount, j.ErrorCount}); p != progress {
					progress = p
					send("progress", 0, p)
				}
				if j.Status != status {
					status = j.Status
					send("status", 0, map[string]any{"status": status})
				}
				if j.Status.Terminal() {
					if j.Status == jobs.Done {
						send("done", 0, j)
					} else {
						msg := string(j.Status)
						if j.ErrorMessage != nil {
							msg = *j.ErrorMessage
						}
						send("error", 0, map[string]any{"status": j.Status, "message": msg})
					}
					flush()
					return nil
				}
				if time.Since(lastBeat) >= heartbeat {
					fmt.Fprint(w, ": heartbeat\n\n")
					lastBeat = time.Now()
				}
				flush()
				if time.Now().After(end) {
					return nil
				}
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(jobs.StreamPoll):
				}
				if j, err = js.Get(ctx, c.User.ID, id); err != nil {
					return abortOnly(err)
				}
			}
		},
	}
}
