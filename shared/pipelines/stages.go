package pipelines

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/imports"
	"github.com/prospectdata/svc/shared/jobs"
)

// The stages a pipeline runs itself, as single-run jobs whose output is a
// CSV (engine.CSVRunner): import (a root), filter and sort (over their
// predecessor's output). Each stage is a job so that its rows have a CSV,
// a count and a place in the pipeline's jobs like every other stage.

// StageParams are a stage job's parameters: the job whose output it
// reads (filter, sort) and its node's config.
type StageParams struct {
	SourceJobID string         `json:"source_job_id,omitempty"`
	Config      map[string]any `json:"config"`
}

// Outputs opens a user's job output (jobs.Service.OpenOutput).
type Outputs interface {
	OpenOutput(ctx context.Context, uid int64, id string) (*jobs.Job, io.ReadCloser, error)
}

func stageParams(j *jobs.Job) (StageParams, error) {
	var p StageParams
	if err := json.Unmarshal(j.Params, &p); err != nil {
		return p, fmt.Errorf("%s parameters: %w", j.JobType, err)
	}
	return p, nil
}

// FilterStage keeps the predecessor's rows its rules match.
type FilterStage struct{ Jobs Outputs }

// RunCSV implements engine.CSVRunner.
func (s *FilterStage) RunCSV(ctx context.Context, j *jobs.Job, w io.Writer, _ func(en, fr string)) (int, error) {
	p, err := stageParams(j)
	if err != nil {
		return 0, err
	}
	rules, err := ParseRules(p.Config["rules"])
	if err != nil {
		return 0, err
	}
	_, rc, err := s.Jobs.OpenOutput(ctx, j.UserID, p.SourceJobID)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return FilterCSV(rc, w, rules)
}

// SortStage orders the predecessor's rows.
type SortStage struct {
	Jobs   Outputs
	TmpDir string // for the spill file; "" the system's
}

// RunCSV implements engine.CSVRunner.
func (s *SortStage) RunCSV(ctx context.Context, j *jobs.Job, w io.Writer, _ func(en, fr string)) (int, error) {
	p, err := stageParams(j)
	if err != nil {
		return 0, err
	}
	spec := SortSpec{Desc: p.Config["direction"] != "asc"}
	spec.By, _ = p.Config["sort_by"].(string)
	if n, ok := number(p.Config["top_n"]); ok && n > 0 {
		spec.TopN = int(n)
	}
	_, rc, err := s.Jobs.OpenOutput(ctx, j.UserID, p.SourceJobID)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	return SortCSV(ctx, rc, w, spec, s.TmpDir)
}

// ImportStage brings the user's rows (imports.Load).
type ImportStage struct{ Deps imports.Deps }

// RunCSV implements engine.CSVRunner.
func (s *ImportStage) RunCSV(ctx context.Context, j *jobs.Job, w io.Writer, _ func(en, fr string)) (int, error) {
	p, err := stageParams(j)
	if err != nil {
		return 0, err
	}
	var cfg imports.Config
	b, _ := json.Marshal(p.Config)
	if err := json.Unmarshal(b, &cfg); err != nil {
		return 0, fmt.Errorf("import config: %w", err)
	}
	t, err := imports.Load(ctx, s.Deps, j.UserID, cfg)
	if err != nil {
		return 0, err
	}
	out, err := export.NewCSV(w, t.Columns)
	if err != nil {
		return 0, err
	}
	for _, row := range t.Rows {
		if err := out.Write(row); err != nil {
			return 0, err
		}
	}
	return len(t.Rows), out.Flush()
}
