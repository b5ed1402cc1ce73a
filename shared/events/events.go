// Package events is the per-account event log and its cursor feed
// (spec: "Events", GET /api/events). Every meaningful state change of a
// job, pipeline or veille run is appended here; clients poll the feed with
// a cursor, and the webhook dispatcher (later) reads the same log.
//
// Rules:
//
//   - Ids are integers, per account, starting at 1 and increasing by exactly
//     1 with each event of the account. Accounts are independent.
//   - An event is written in one transaction with the account's counter
//     (USER#<uid> / SEQ): the counter moves from n to n+1 only if it still
//     holds n, and event n+1 is put in the same transaction. Allocating an
//     id and making the event visible are thus one step: event k is visible
//     only once event k-1 is, so ids appear in commit order and a reader that
//     has seen id k never later finds an id below k it had not seen. Writers
//     that lose the race on the counter (another process appended first)
//     read it again and retry; nothing is written by a failed attempt.
//   - The feed reads the counter first (a strongly consistent read, the
//     commit point of every append) and then the events up to that id only,
//     so a page never holds an event whose predecessors were not yet
//     readable: since_id = last_id never skips an event.
//   - created_at never goes backwards along ids: an event is stamped
//     max(now, created_at of the previous event), so out-of-window events
//     (older than Window) are a prefix of the ids.
//   - Events are kept for a 7-day detection window: reads skip events older
//     than Window; the table's TTL (created + Window + TTLMargin) removes
//     them later. The counter item has no TTL: ids never restart, so a
//     stored cursor stays valid after every event expired.
//   - The feed: since_id (ids strictly greater), types (a filter; unknown
//     types are a 422), limit (1..100, default 50; out of range is a 422,
//     not clamped), order (asc default, desc newest first). last_id is the
//     id of the last event of the page in the page's order, or since_id when
//     the page is empty. head_id is the newest event id of the account that
//     matches the filter within the window, whatever the page (0 when none),
//     read from the counter item, which keeps the newest id per type.
//   - A filtered read examines at most MaxScan events per request. An
//     ascending page that stops at that bound before filling up returns as
//     last_id the last id it examined, so that since_id = last_id continues
//     the scan instead of repeating it: no matching event is skipped, and a
//     client keeps polling while last_id < head_id.
//   - Event data have a typed shape per family (JobData, PipelineData,
//     VeilleRunData); every field is always present, null when unknown.
//   - Account deletion purges the log and its counter; the data export
//     carries events.json (the events of the window).
package events

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// The event types of the spec.
const (
	JobCompleted       = "job.completed"
	JobFailed          = "job.failed"
	JobCancelled       = "job.cancelled"
	PipelineCompleted  = "pipeline.completed"
	PipelineFailed     = "pipeline.failed"
	PipelineCancelled  = "pipeline.cancelled"
	VeilleRunCompleted = "veille.run_completed"
)

// Types lists every event type, in the spec's order.
func Types() []string {
	return []string{JobCompleted, JobFailed, JobCancelled, PipelineCompleted, PipelineFailed, PipelineCancelled, VeilleRunCompleted}
}

// Known tells whether typ is an event type of the spec.
func Known(typ string) bool { return slices.Contains(Types(), typ) }

// family is the part of a type before the dot: job, pipeline or veille.
func family(typ string) string {
	f, _, _ := strings.Cut(typ, ".")
	return f
}

// Limits of the feed.
const (
	// Window is the detection window: older events are not served.
	Window = 7 * 24 * time.Hour
	// TTLMargin is added to Window for the table's TTL. Reads enforce the
	// window themselves; the TTL only collects garbage, and the margin keeps
	// an event from vanishing early under another process's clock.
	TTLMargin = 24 * time.Hour
	// DefaultLimit and MaxLimit bound a page.
	DefaultLimit = 50
	MaxLimit     = 100
	// MaxScan is the most events one filtered request examines.
	MaxScan = 1000
)

// TimeFormat is how created_at is written (UTC).
const TimeFormat = "2006-01-02 15:04:05"

// Event is one entry of the log, as the feed returns it.
type Event struct {
	ID        int64  `json:"id"`
	Type      string `json:"type"`
	CreatedAt string `json:"created_at"`
	// Data is the JSON document appended (a json.RawMessage): the shape
	// depends on Type (JobData, PipelineData, VeilleRunData).
	Data any `json:"data"`
}

// RawData returns the data document of the event.
func (e Event) RawData() json.RawMessage {
	if r, ok := e.Data.(json.RawMessage); ok {
		return r
	}
	b, _ := json.Marshal(e.Data)
	return b
}

// Page is the body of GET /api/events.
type Page struct {
	Events []Event `json:"events"`
	LastID int64   `json:"last_id"`
	HeadID int64   `json:"head_id"`
}

// Query selects a page of the feed.
type Query struct {
	SinceID int64    // ids strictly greater; at least 0
	Types   []string // filter; empty means every type
	Limit   int      // 1..MaxLimit; 0 means DefaultLimit
	Desc    bool     // newest first
}

// JobData is the data of job.* events. Nullable fields are pointers and
// lists may be nil: they marshal as null, never absent.
type JobData struct {
	ID           string   `json:"id"`
	JobType      string   `json:"job_type"`
	Status       string   `json:"status"`
	Queries      []string `json:"queries"`
	Zones        []string `json:"zones"`
	ResultsCount int64    `json:"results_count"`
	ErrorCount   int64    `json:"error_count"`
	EFCost       float64  `json:"ef_cost"`
	CreatedAt    string   `json:"created_at"` // ISO 8601 UTC, as on the job
	CompletedAt  *string  `json:"completed_at"`
	ErrorMessage *string  `json:"error_message"`
	PipelineID   *string  `json:"pipeline_id"`
	SourceJobID  *string  `json:"source_job_id"`
	// DownloadURL is the job's download route under the base URL (see
	// DownloadURL); null when the job has nothing to download.
	DownloadURL *string `json:"download_url"`
}

// PipelineData is the data of pipeline.* events.
type PipelineData struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Status      string  `json:"status"`
	CreatedAt   string  `json:"created_at"` // YYYY-MM-DD HH:MM:SS, as on the pipeline
	CompletedAt *string `json:"completed_at"`
}

// VeilleRunData is the data of veille.run_completed. The diff counters are
// null on a baseline run, which has none.
type VeilleRunData struct {
	RunID         int64  `json:"run_id"`
	VeilleID      int64  `json:"veille_id"`
	VeilleName    string `json:"veille_name"`
	JobID         string `json:"job_id"`
	IsBaseline    bool   `json:"is_baseline"`
	TotalCount    int64  `json:"total_count"`
	NewCount      *int64 `json:"new_count"`
	RemovedCount  *int64 `json:"removed_count"`
	ModifiedCount *int64 `json:"modified_count"`
	ComputedAt    string `json:"computed_at"`
}

// DownloadURL is the address of a job's download route under baseURL, for
// JobData.DownloadURL.
func DownloadURL(baseURL, jobID string) *string {
	u := strings.TrimRight(baseURL, "/") + "/api/jobs/" + jobID + "/download"
	return &u
}
