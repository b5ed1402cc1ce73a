// Package jobs holds the job concept: the JobPublic record every job
// endpoint returns, its states and transitions (spec: "Job (status)"), its
// table, and the rules of creating, listing and reading jobs. The scrape
// engine (tasks, workers, finalizer) moves jobs through their states.
package jobs

import (
	"encoding/json"
	"time"

	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/pricing"
)

// Status is a job state.
type Status string

// The states of the spec.
const (
	Pending   Status = "pending"
	Running   Status = "running"
	Done      Status = "done"
	Failed    Status = "failed"
	Cancelled Status = "cancelled"
	Expired   Status = "expired"
)

// Terminal tells whether no transition leaves the state but expiry.
func (s Status) Terminal() bool {
	return s == Done || s == Failed || s == Cancelled || s == Expired
}

// Active tells whether the state counts toward the concurrent-job limit.
func (s Status) Active() bool { return s == Pending || s == Running }

// TypeScrap is the job type of a scrape.
const TypeScrap = modules.Scrap

// DefaultCountry and DefaultScrapMode are the values JobPublic carries on
// a job without scrape settings of its own: the spec gives every job the
// same shape, with country an ISO 3166 alpha-3 code and scrap_mode one of
// fast, normal, ultra, so an empty string would be outside both domains
// (docs/jobs.md, "Every job's settings").
const (
	DefaultCountry   = "FRA"
	DefaultScrapMode = string(pricing.Fast)
)

// isAlpha3 tells whether s is written as an ISO 3166 alpha-3 code.
func isAlpha3(s string) bool {
	if len(s) != 3 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return true
}

// fillDefaults puts country and scrap_mode inside their domains on a job
// that has none of its own (a job stored before the rule, a creation path
// that knows no country).
func (j *Job) fillDefaults() {
	if !isAlpha3(j.Country) {
		j.Country = DefaultCountry
	}
	if _, ok := pricing.ParseMode(j.ScrapMode); !ok {
		j.ScrapMode = DefaultScrapMode
	}
}

// QueryStat is one entry of query_stats.
type QueryStat struct {
	Tiles       int `json:"tiles"`
	WithResults int `json:"with_results"`
}

// Breakdown is the job's counts by query and by zone.
type Breakdown struct {
	ByQuery map[string]int `json:"by_query"`
	ByZone  map[string]int `json:"by_zone"`
}

// Job is the spec's JobPublic, plus the owner and the engine's settings
// (not serialised).
type Job struct {
	ID                   string               `json:"id"`
	JobType              string               `json:"job_type"`
	Queries              []string             `json:"queries"`
	Country              string               `json:"country"`
	Zones                []string             `json:"zones"`
	IncludeReviews       bool                 `json:"include_reviews"`
	ScrapMode            string               `json:"scrap_mode"`
	StopAt               *int64               `json:"stop_at"`
	MaxPerPhone          int                  `json:"max_per_phone"`
	ExcludeForeignPhones bool                 `json:"exclude_foreign_phones"`
	ExtraColumns         []string             `json:"extra_columns"`
	MaxReviews           *int                 `json:"max_reviews"`
	PeriodMonths         *int                 `json:"period_months"`
	Status               Status               `json:"status"`
	GridPointsCount      int                  `json:"grid_points_count"`
	ProcessedPoints      int                  `json:"processed_points"`
	ResultsCount         int                  `json:"results_count"`
	ErrorCount           int                  `json:"error_count"`
	EFCost               float64              `json:"ef_cost"`
	CreatedAt            string               `json:"created_at"`
	StartedAt            *string              `json:"started_at"`
	CompletedAt          *string              `json:"completed_at"`
	ExpiresAt            string               `json:"expires_at"`
	ErrorMessage         *string              `json:"error_message"`
	OutputFilename       *string              `json:"output_filename"`
	DownloadAvailable    bool                 `json:"download_available"`
	SourceJobID          *string              `json:"source_job_id"`
	PipelineID           *string              `json:"pipeline_id"`
	EmailMode            *string              `json:"email_mode"`
	Breakdown            Breakdown            `json:"breakdown"`
	DeadQueries          []string             `json:"dead_queries"`
	FlaggedTilesCount    int                  `json:"flagged_tiles_count"`
	TotalAttemptsCount   int                  `json:"total_attempts_count"`
	QueryStats           map[string]QueryStat `json:"query_stats"`
	// Source names the map provider that produced the data ("sim" for the
	// simulated world), so simulated rows are never taken for real ones.
	Source string `json:"source"`

	UserID  int64     `json:"-"`
	Created time.Time `json:"-"`
	// Roots, set on a resume, are the indexes (in the grid's tile order)
	// of the base tiles the job searches; nil means every base tile.
	Roots []int `json:"-"`
	// LowPriority jobs (of low-priority pipelines) wait behind the others
	// in their pool's queue.
	LowPriority bool `json:"-"`
	// CaptureScreenshot is brand_assets' option (JobPublic has no field
	// for it; email_mode carries the emails module's).
	CaptureScreenshot bool `json:"-"`
	// PipelineNodeID is the node of its pipeline a stage job runs.
	PipelineNodeID string `json:"-"`
	// Params are a single-run job's parameters (delivery_check's domain
	// and subject filter, viewport_test's viewport), as JSON.
	Params json.RawMessage `json:"-"`
	// ParamsInFile: the parameters are in the file store (ParamsKey),
	// too large for the item; ReadParams loads them.
	ParamsInFile bool `json:"-"`
	// ExpectedSearches is what a scrape's charge assumed (the estimate's
	// expected_searches, scrape.Service.Price): a failure refunds the
	// searches not answered against it (docs/pricing.md, "Refunds").
	ExpectedSearches float64 `json:"-"`
	// Rates are the places per person of each query that priced the job
	// (scrape.Plan.Rates): the engine splits a tile without searching it
	// when they say it would saturate (scrape.Plan.Skips).
	Rates []float64 `json:"-"`
	// continuation marks the automatic resume of a job stopped at its
	// maximum run time, which goes first in its pool's queue.
	continuation bool
}

// timeFmt is how job times are written: RFC 3339 in UTC, seconds.
const timeFmt = "2006-01-02T15:04:05Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeFmt) }

// StoppedFor is how long ago a terminal job ended (0 when it has not).
func (j *Job) StoppedFor(now time.Time) time.Duration {
	if j.CompletedAt == nil {
		return 0
	}
	t, err := time.Parse(timeFmt, *j.CompletedAt)
	if err != nil {
		return 0
	}
	return now.Sub(t)
}
