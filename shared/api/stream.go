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
	return Route{Method: http.MethodGet, Path: "/api/jobs/{id}/stream", Auth: Any, Tag: "jobs", Handle: s.streamJob,
		Summary: "Server-sent events of a job: status, log, progress, done, error; resume with Last-Event-ID or since; tail N logs on first load",
		Query: []Param{
			{Name: "since", Type: "integer", Default: 0, Doc: "resume after this log id (the Last-Event-ID header wins)"},
			{Name: "tail", Type: "integer", Default: 0, Doc: "on first load, the last N logs instead of the whole history; ignored when resuming"},
		},
		ResponseType: "text/event-stream", Status: http.StatusOK, Errors: []int{401, 403, 404, 422}}
}

// streamJob is GET /api/jobs/{id}/stream: the job's status, then every
// poll its new logs, progress and status, until it ends, the client goes
// away or the stream's bound (streamFor) is reached.
func (s *Server) streamJob(w http.ResponseWriter, r *http.Request, c *Caller) error {
	since, tail, err := streamCursor(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	id := r.PathValue("id")
	j, err := s.d.Jobs.Get(ctx, c.User.ID, id)
	if err != nil {
		return err
	}
	st := &jobStream{en: english(r), last: int64(since), tail: tail, status: j.Status, progress: streamProgress{-1, 0, 0, 0}}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	st.sse = sse{w: w, fl: fl}
	fmt.Fprintf(w, "retry: %d\n\n", streamRetryMS)
	st.send("status", 0, map[string]any{"status": st.status})
	streamFor := s.streamFor
	if streamFor <= 0 {
		streamFor = defaultStreamFor
	}
	end := time.Now().Add(streamFor)
	st.lastBeat = time.Now()
	for {
		lines, err := s.d.Jobs.Logs(ctx, id, st.last, st.tail)
		if err != nil {
			return abortOnly(err)
		}
		if st.update(j, lines) {
			return nil
		}
		st.beat()
		st.flush()
		if time.Now().After(end) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(jobs.StreamPoll):
		}
		if j, err = s.d.Jobs.Get(ctx, c.User.ID, id); err != nil {
			return abortOnly(err)
		}
	}
}

// streamCursor reads where a stream starts: after the log id since (the
// Last-Event-ID header wins, since EventSource sends it on reconnecting),
// and tail, the last logs to send on a first load only.
func streamCursor(r *http.Request) (since, tail int, err error) {
	since, err = intParam(r, "since", 0)
	if err != nil {
		return 0, 0, err
	}
	tail, err = intParam(r, "tail", 0)
	if err != nil {
		return 0, 0, err
	}
	if v := r.Header.Get("Last-Event-ID"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			since, tail = n, 0 // resuming: the header wins, tail is ignored
		}
	}
	if since > 0 {
		tail = 0
	}
	return since, tail, nil
}

// sse writes server-sent events.
type sse struct {
	w  http.ResponseWriter
	fl http.Flusher // nil when the writer cannot flush
}

// send writes one event; an id > 0 is the event's id, what the client
// resumes after.
func (e sse) send(event string, id int64, data any) {
	b, _ := json.Marshal(data)
	if id > 0 {
		fmt.Fprintf(e.w, "id: %d\n", id)
	}
	fmt.Fprintf(e.w, "event: %s\ndata: %s\n\n", event, b)
}

func (e sse) flush() {
	if e.fl != nil {
		e.fl.Flush()
	}
}

// jobStream is one progress stream: where it writes and what it has sent,
// so that each poll sends only what changed.
type jobStream struct {
	sse
	en       bool  // log messages in English
	last     int64 // the last log id sent
	tail     int   // logs to send on the first poll; 0 after it
	status   jobs.Status
	progress streamProgress
	lastBeat time.Time
}

// update sends the poll's new log lines and the job's progress and status
// where they changed; once the job has ended, its done or error event,
// flushed, and it reports true.
func (st *jobStream) update(j *jobs.Job, lines []jobs.LogLine) (ended bool) {
	st.tail = 0
	for _, l := range lines {
		msg := l.FR
		if st.en {
			msg = l.EN
		}
		st.send("log", l.Seq, map[string]any{"id": l.Seq, "at": l.At, "message": msg})
		st.last = l.Seq
	}
	if p := (streamProgress{j.ProcessedPoints, j.GridPointsCount, j.ResultsCount, j.ErrorCount}); p != st.progress {
		st.progress = p
		st.send("progress", 0, p)
	}
	if j.Status != st.status {
		st.status = j.Status
		st.send("status", 0, map[string]any{"status": st.status})
	}
	if !j.Status.Terminal() {
		return false
	}
	if j.Status == jobs.Done {
		st.send("done", 0, j)
	} else {
		msg := string(j.Status)
		if j.ErrorMessage != nil {
			msg = *j.ErrorMessage
		}
		st.send("error", 0, map[string]any{"status": j.Status, "message": msg})
	}
	st.flush()
	return true
}

// beat writes a comment when the stream has been quiet for a heartbeat,
// so that proxies keep an idle connection open.
func (st *jobStream) beat() {
	if time.Since(st.lastBeat) >= heartbeat {
		fmt.Fprint(st.w, ": heartbeat\n\n")
		st.lastBeat = time.Now()
	}
}
