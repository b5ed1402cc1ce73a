package pipelines

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/sirene"
	"github.com/prospectdata/svc/shared/store"
)

// ServiceDeps are what creating and running pipelines needs.
type ServiceDeps struct {
	DB       store.DB
	Checker  *Checker
	Jobs     *jobs.Service
	Scrape   *scrape.Service
	Accounts *accounts.Service
	Events   *events.Service
	Now      func() time.Time
	Log      *slog.Logger
	// Executor drives the pipelines on AWS (Step Functions); nil drives
	// them in process (step.go).
	Executor Executor
}

// Service creates pipelines and moves them on as their stages end.
type Service struct {
	d      ServiceDeps
	runner runner
}

// NewService returns the pipelines service.
func NewService(d ServiceDeps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// CreateRequest is the body of POST /api/pipelines (or the envelope).
type CreateRequest struct {
	Name        string          `json:"name,omitempty"`
	Definition  json.RawMessage `json:"definition"`
	LowPriority bool            `json:"low_priority,omitempty"`
}

// Created is the answer of a creation.
type Created struct {
	ID          string   `json:"id"`
	Status      string   `json:"status"`
	InitialJobs []string `json:"initial_jobs"`
}

// MaxNameRunes bounds a pipeline's name (spec: at most 120 characters).
const MaxNameRunes = 120

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Create checks the definition (every check before anything is written:
// a refusal is a 400 with its cause), then writes the pipeline and one
// job per root.
func (s *Service) Create(ctx context.Context, u *accounts.User, r CreateRequest) (*Created, error) {
	if !u.EmailVerified {
		return nil, apperr.New(apperr.Forbidden, "Vérifie ton adresse email avant de lancer un pipeline.",
			"Verify your email address before creating pipelines.")
	}
	checked, err := s.d.Checker.Check(ctx, u, r.Definition, false)
	var ref *Refusal
	if errors.As(err, &ref) {
		return nil, ref.Err
	}
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(r.Name)
	if name == "" {
		name = strings.TrimSpace(checked.Name)
	}
	if name == "" {
		name = "Pipeline"
	}
	// A name over the limit is refused, not cut: a client that kept its
	// own copy of the name would otherwise hold one the service does not.
	if n := utf8.RuneCountInString(name); n > MaxNameRunes {
		e := apperr.Fields(apperr.Field("name",
			fmt.Sprintf("%d caractères au plus (%d reçus).", MaxNameRunes, n),
			fmt.Sprintf("at most %d characters (%d given).", MaxNameRunes, n)))
		e.Code = apperr.Invalid // a refused pipeline creation is a 400 (spec, Errors)
		return nil, e
	}
	var raw [10]byte
	_, _ = rand.Read(raw[:])
	now := s.d.Now().UTC()
	p := &Pipeline{ID: idEncoding.EncodeToString(raw[:]), UserID: u.ID, Name: name, Definition: *checked.Definition,
		Status: Running, CreatedAt: now.Format(pipeTimeFmt), LowPriority: r.LowPriority, Stages: map[string][]string{},
		created: now}
	it, err := pipeItem(p)
	if err != nil {
		return nil, err
	}
	tbl := s.d.DB.Table(StoreTable)
	if err := tbl.Put(ctx, it, store.NotExists("pk")); err != nil {
		return nil, fmt.Errorf("create pipeline: %w", err)
	}
	// The driver first: a pipeline whose execution cannot start is taken
	// back before any job exists.
	if err := s.start(ctx, p.ID); err != nil {
		if derr := tbl.Delete(ctx, pipeKey(p.ID), nil); derr != nil {
			s.d.Log.ErrorContext(ctx, "pipeline without execution not deleted", "pipeline", p.ID, "err", derr)
		}
		return nil, fmt.Errorf("start pipeline %s: %w", p.ID, err)
	}
	out := &Created{ID: p.ID, Status: Running, InitialJobs: []string{}}
	for _, id := range checked.Roots {
		j, err := s.startRoot(ctx, u, p, node(checked.Definition, id))
		if err != nil {
			// The checks passed a moment ago: only a race (another job
			// took the last slot) gets here. The creation is taken back.
			s.abort(ctx, u.ID, p.ID, out.InitialJobs)
			return nil, err
		}
		out.InitialJobs = append(out.InitialJobs, j.ID)
		if _, err := s.update(ctx, p.ID, func(p *Pipeline) bool {
			p.Stages[id] = append(p.Stages[id], j.ID)
			return true
		}); err != nil {
			s.abort(ctx, u.ID, p.ID, out.InitialJobs)
			return nil, err
		}
	}
	// A root may have ended before its id was on the record: this signal
	// has the next step find it.
	s.signal(ctx, p.ID)
	return out, nil
}

// abort takes back a creation that failed after its record was written:
// the roots already created are cancelled, the record deleted (its
// execution then ends: the step finds it gone).
func (s *Service) abort(ctx context.Context, uid int64, id string, roots []string) {
	ctx = context.WithoutCancel(ctx)
	for _, jid := range roots {
		if _, err := s.d.Jobs.Cancel(ctx, uid, jid); err != nil && !apperr.Is(err, apperr.Invalid) {
			s.d.Log.ErrorContext(ctx, "root of an aborted pipeline not cancelled", "pipeline", id, "job", jid, "err", err)
		}
	}
	if err := s.d.DB.Table(StoreTable).Delete(ctx, pipeKey(id), nil); err != nil {
		s.d.Log.ErrorContext(ctx, "aborted pipeline not deleted", "pipeline", id, "err", err)
	}
	s.signal(ctx, id)
}

// Replay creates a new run of one of the user's pipelines, with its
// definition, name and priority (a veille's scheduled run): every check of
// a creation but the creation quota (jobs.WithScheduled).
func (s *Service) Replay(ctx context.Context, u *accounts.User, id string) (*Created, error) {
	p, err := s.get(ctx, u.ID, id)
	if err != nil {
		return nil, err
	}
	def, err := json.Marshal(p.Definition)
	if err != nil {
		return nil, err
	}
	return s.Create(jobs.WithScheduled(ctx), u, CreateRequest{Name: p.Name, Definition: def, LowPriority: p.LowPriority})
}

// ReplayID is Replay for what only follows the new pipeline (a veille's
// run, veille.Pipelines): its id.
func (s *Service) ReplayID(ctx context.Context, u *accounts.User, id string) (string, error) {
	c, err := s.Replay(ctx, u, id)
	if err != nil {
		return "", err
	}
	return c.ID, nil
}

func (s *Service) startRoot(ctx context.Context, u *accounts.User, p *Pipeline, n Node) (*jobs.Job, error) {
	ctx = jobs.WithOrigin(ctx, jobs.Origin{PipelineID: p.ID, NodeID: n.ID, LowPriority: p.LowPriority})
	switch n.Type {
	case modules.Scrap:
		var r scrape.Request
		b, _ := json.Marshal(n.Config)
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, err
		}
		return s.d.Jobs.Create(ctx, u, r)
	case modules.Sirene:
		cfg, err := sireneConfig(n)
		if err != nil {
			return nil, err
		}
		return sirene.Create(ctx, s.d.Jobs, u, s.d.Scrape, cfg)
	case modules.Import:
		return s.d.Jobs.CreateSingle(ctx, u, jobs.TypeImport, StageParams{Config: n.Config}, 0)
	}
	return nil, fmt.Errorf("pipeline %s: %s is not a root", p.ID, n.Type)
}

// JobEnded signals a job's pipeline (the jobs' terminal hook): its next
// step reads what the job's end means for it (step.go).
func (s *Service) JobEnded(ctx context.Context, j *jobs.Job) {
	if j.PipelineID == nil || *j.PipelineID == "" {
		return
	}
	s.signal(ctx, *j.PipelineID)
}

// errBlocked says a successor could not start for now (the account's 5
// concurrent jobs are taken, a store or queue hiccup): the next step
// tries again.
var errBlocked = errors.New("a successor is waiting for room")

// errRefused says a successor was refused for a reason that will not
// pass: the pipeline failed.
var errRefused = errors.New("a successor was refused")

// startSuccessors creates the jobs of the nodes after j's, once each, and
// says how many it started. A successor refused for a reason that will not
// pass (its input does not fit the job's limits) fails the pipeline
// (errRefused); one refused for now makes it errBlocked, after the others
// are started.
func (s *Service) startSuccessors(ctx context.Context, p *Pipeline, j *jobs.Job) (int, error) {
	if j.ResultsCount == 0 {
		return 0, nil // an empty output short-circuits the branch
	}
	u, err := s.d.Accounts.User(ctx, p.UserID)
	if err != nil {
		return 0, err
	}
	started, blocked := 0, false
	for _, e := range p.Definition.Edges {
		if e.From != j.PipelineNodeID || len(p.Stages[e.To]) > 0 {
			continue
		}
		n := node(&p.Definition, e.To)
		nj, err := s.startStage(ctx, u, p, n, j)
		var ae *apperr.Error
		switch {
		case err == nil:
		case errors.As(err, &ae) && ae.Code != apperr.TooMany && ae.Code != apperr.Unavailable:
			s.d.Log.WarnContext(ctx, "pipeline stage refused: the pipeline fails", "pipeline", p.ID, "node", n.ID, "err", err)
			s.finish(ctx, p.ID, Failed)
			return started, errRefused
		default:
			s.d.Log.InfoContext(ctx, "pipeline stage waits", "pipeline", p.ID, "node", n.ID, "err", err)
			blocked = true
			continue
		}
		started++
		if _, err := s.update(ctx, p.ID, func(p *Pipeline) bool {
			p.Stages[n.ID] = append(p.Stages[n.ID], nj.ID)
			return true
		}); err != nil {
			return started, err
		}
	}
	if blocked {
		return started, errBlocked
	}
	return started, nil
}

// startStage creates a non-root node's job over its predecessor's output.
func (s *Service) startStage(ctx context.Context, u *accounts.User, p *Pipeline, n Node, src *jobs.Job) (*jobs.Job, error) {
	ctx = jobs.WithOrigin(ctx, jobs.Origin{PipelineID: p.ID, NodeID: n.ID, LowPriority: p.LowPriority, Successor: true})
	switch n.Type {
	case modules.Filter, modules.Sort:
		return s.d.Jobs.CreateSingle(ctx, u, n.Type, StageParams{SourceJobID: src.ID, Config: n.Config}, 0)
	}
	nt, _ := s.d.Checker.t.Lookup(n.Type)
	_, rc, err := s.d.Jobs.OpenOutput(ctx, p.UserID, src.ID)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	rows, err := export.ReadCSV(rc)
	if err != nil {
		return nil, err
	}
	srcID := src.ID
	e, _ := modules.Lookup(nt.Module)
	req := jobs.ItemRequest{SourceJobID: &srcID, Options: settings(e, n.Config)}
	// Every row of the predecessor, streamed into the stage's input: a
	// stage is not bounded by a request's items (docs/pipelines.md).
	return s.d.Jobs.CreateItemsFrom(ctx, u, nt.Module, req, csvItems{rows})
}

// csvItems reads a job's CSV output as the next stage's items, every
// column kept (custom ones included) in order (the column guarantee),
// each cell as it was before the CSV's formula guard.
type csvItems struct{ rd *export.Reader }

func (c csvItems) Columns() []string { return c.rd.Header() }

func (c csvItems) Next() ([]string, error) {
	row, err := c.rd.Read()
	if err != nil {
		return nil, err
	}
	for i, v := range row {
		row[i] = export.Restore(v)
	}
	return row, nil
}

// stageJobs reads the latest job of each node that has one.
func (s *Service) stageJobs(ctx context.Context, p *Pipeline) (map[string]*jobs.Job, error) {
	out := map[string]*jobs.Job{}
	for id, js := range p.Stages {
		if len(js) == 0 {
			continue
		}
		j, err := s.d.Jobs.Get(ctx, p.UserID, js[len(js)-1])
		if apperr.Is(err, apperr.NotFound) {
			continue // deleted
		}
		if err != nil {
			return nil, err
		}
		out[id] = j
	}
	return out, nil
}

// finished tells whether nothing is left to run in a pipeline whose
// stages' latest jobs are js: no stage active, none paused (failed or
// cancelled, waiting for continue or cancel), and every node without a
// job under a short-circuit (an ancestor done with no row).
func finished(p *Pipeline, js map[string]*jobs.Job, now time.Time) bool {
	pred := map[string]string{}
	for _, e := range p.Definition.Edges {
		pred[e.To] = e.From
	}
	for _, n := range p.Definition.Nodes {
		j, ok := js[n.ID]
		if ok {
			if !resolved(p, n.ID, j, now) {
				return false // active, or paused
			}
			continue
		}
		short := false
		for cur := n.ID; ; {
			up, ok := pred[cur]
			if !ok {
				break
			}
			if uj, ok := js[up]; ok && resolved(p, up, uj, now) && (uj.ResultsCount == 0 || !uj.DownloadAvailable) {
				short = true
				break
			}
			cur = up
		}
		if !short {
			return false // still to start
		}
	}
	return true
}

// cancelStops is the rule that a cancelled stage (node) ends its
// pipeline cancelled: it never started (so it has no rows for a
// continue), it was not continued, and no other stage still runs.
func cancelStops(p *Pipeline, js map[string]*jobs.Job, node string) bool {
	j, ok := js[node]
	if !ok || j.Status != jobs.Cancelled || j.StartedAt != nil || slices.Contains(p.Continued, node) {
		return false
	}
	for _, o := range js {
		if o.ID != j.ID && o.Status.Active() {
			return false
		}
	}
	return true
}

// resolved tells whether a node's stage is settled: done, or continued.
func resolved(p *Pipeline, nodeID string, j *jobs.Job, now time.Time) bool {
	return j.Status == jobs.Done || (slices.Contains(p.Continued, nodeID) && j.Status.Terminal() && !salvaging(j, now))
}

// salvaging reports whether a stage stopped while it ran still has its
// partial rows to come (the engine's salvage writes them a moment after
// the cancel): a continue taken then waits for them instead of finding
// none, up to SalvageWait.
func salvaging(j *jobs.Job, now time.Time) bool {
	return j.StartedAt != nil && j.ResultsCount > 0 && !j.DownloadAvailable && j.StoppedFor(now) < SalvageWait
}

// Continue resumes a pipeline paused on a failed or cancelled stage: its
// successors start from the stage's partial rows (none: the branch is
// short-circuited). 400 when the stage is not in a continuable state.
func (s *Service) Continue(ctx context.Context, uid int64, id, nodeID string) error {
	p, err := s.get(ctx, uid, id)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(p.Definition.Nodes, func(n Node) bool { return n.ID == nodeID }) {
		return apperr.Missing()
	}
	notContinuable := apperr.New(apperr.Invalid,
		"Cette étape ne peut pas être continuée : seule une étape échouée ou annulée d'un pipeline en cours le peut.",
		"This stage cannot be continued: only a failed or cancelled stage of a running pipeline can.")
	js, err := s.stageJobs(ctx, p)
	if err != nil {
		return err
	}
	j, ok := js[nodeID]
	if p.Status != Running || !ok || (j.Status != jobs.Failed && j.Status != jobs.Cancelled) || slices.Contains(p.Continued, nodeID) {
		return notContinuable
	}
	// A stage stopped while running has its rows a moment later (the
	// engine's salvage, which then signals the pipeline): the continue is
	// taken now and its successors start when they are there (resolved).
	if _, err := s.update(ctx, id, func(p *Pipeline) bool {
		if slices.Contains(p.Continued, nodeID) {
			return false
		}
		p.Continued = append(p.Continued, nodeID)
		return true
	}); err != nil {
		return err
	}
	// The next step starts the successors from the stage's rows.
	s.signal(ctx, id)
	return nil
}

// SalvageWait is how long continue waits for a stopped stage's partial
// rows; past it, the stage is taken as having none.
const SalvageWait = 2 * time.Minute

// Reasons a node's input is not there yet (spec: input-columns).
const (
	NoPredecessor = "no_predecessor"
	NoDataYet     = "no_data_yet"
	NoCSVFound    = "no_csv_found"
	CSVReadError  = "csv_read_error"
)

// predecessorOutput opens the output of a node's predecessor's latest
// job, or says why it cannot.
func (s *Service) predecessorOutput(ctx context.Context, uid int64, id, nodeID string) (io.ReadCloser, string, string, error) {
	p, err := s.get(ctx, uid, id)
	if err != nil {
		return nil, "", "", err
	}
	if !slices.ContainsFunc(p.Definition.Nodes, func(n Node) bool { return n.ID == nodeID }) {
		return nil, "", "", apperr.Missing()
	}
	from := ""
	for _, e := range p.Definition.Edges {
		if e.To == nodeID {
			from = e.From
		}
	}
	if from == "" {
		return nil, "", NoPredecessor, nil
	}
	js, err := s.stageJobs(ctx, p)
	if err != nil {
		return nil, "", "", err
	}
	j, ok := js[from]
	if !ok || j.Status != jobs.Done {
		return nil, "", NoDataYet, nil
	}
	_, rc, err := s.d.Jobs.OpenOutput(ctx, uid, j.ID)
	if err != nil {
		return nil, j.ID, NoCSVFound, nil
	}
	return rc, j.ID, "", nil
}

// InputColumnsBody is the answer of input-columns.
type InputColumnsBody struct {
	Columns  []ColumnInfo `json:"columns"`
	RowCount *int         `json:"row_count,omitempty"`
	JobID    string       `json:"predecessor_job_id,omitempty"`
	Reason   string       `json:"reason,omitempty"`
}

// InputColumns reports the columns a node receives (its predecessor's
// output, 5,000 rows read).
func (s *Service) InputColumns(ctx context.Context, uid int64, id, nodeID string) (*InputColumnsBody, error) {
	rc, jobID, reason, err := s.predecessorOutput(ctx, uid, id, nodeID)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return &InputColumnsBody{Columns: []ColumnInfo{}, Reason: reason}, nil
	}
	defer rc.Close()
	rep, err := ReportColumns(rc)
	if err != nil {
		return &InputColumnsBody{Columns: []ColumnInfo{}, Reason: CSVReadError}, nil
	}
	n := rep.RowCount
	return &InputColumnsBody{Columns: rep.Columns, RowCount: &n, JobID: jobID}, nil
}

// PreviewBody is the answer of filter-preview.
type PreviewBody struct {
	Preview
	Reason string `json:"reason,omitempty"`
}

// FilterPreview applies rules to a filter node's input without running
// anything (400 for another node type or rules that do not apply).
func (s *Service) FilterPreview(ctx context.Context, uid int64, id, nodeID string, rules Group) (*PreviewBody, error) {
	p, err := s.get(ctx, uid, id)
	if err != nil {
		return nil, err
	}
	if n := node(&p.Definition, nodeID); n.ID == "" {
		return nil, apperr.Missing()
	} else if n.Type != modules.Filter {
		return nil, apperr.New(apperr.Invalid, "Ce node n'est pas un filtre.", "This node is not a filter.")
	}
	rc, jobID, reason, err := s.predecessorOutput(ctx, uid, id, nodeID)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		return &PreviewBody{Preview: Preview{Samples: []map[string]string{}, Fieldnames: []string{}}, Reason: reason}, nil
	}
	defer rc.Close()
	pv, err := PreviewFilter(rc, rules)
	if err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, fmt.Errorf("filter preview of %s: %w", nodeID, err)
	}
	pv.JobID = jobID
	return &PreviewBody{Preview: *pv}, nil
}

// finish moves a running pipeline to a terminal state and tells the feed;
// it returns the pipeline's status after ("" when it could not be
// written).
func (s *Service) finish(ctx context.Context, id, status string) string {
	changed := false
	p, err := s.update(ctx, id, func(p *Pipeline) bool {
		if p.Status != Running {
			return false
		}
		p.Status = status
		t := s.d.Now().UTC().Format(pipeTimeFmt)
		p.CompletedAt = &t
		changed = true
		return true
	})
	if err != nil {
		s.d.Log.ErrorContext(ctx, "pipeline not closed", "pipeline", id, "err", err)
		return ""
	}
	if !changed || s.d.Events == nil {
		return p.Status
	}
	typ := map[string]string{Done: events.PipelineCompleted, Failed: events.PipelineFailed, Cancelled: events.PipelineCancelled}[status]
	if _, err := s.d.Events.Append(ctx, p.UserID, typ, events.PipelineData{ID: p.ID, Name: p.Name, Status: p.Status,
		CreatedAt: p.CreatedAt, CompletedAt: p.CompletedAt}); err != nil {
		s.d.Log.ErrorContext(ctx, "pipeline event not appended", "pipeline", id, "err", err)
	}
	return p.Status
}

// Cancel stops a running pipeline: its active stages are cancelled, the
// rest never starts, partial results stay downloadable (400 when the
// pipeline is already terminal).
func (s *Service) Cancel(ctx context.Context, uid int64, id string) error {
	p, err := s.get(ctx, uid, id)
	if err != nil {
		return err
	}
	if p.Status != Running {
		return apperr.New(apperr.Invalid, "Le pipeline est déjà terminé.", "The pipeline is already finished.")
	}
	s.finish(ctx, id, Cancelled)
	js, err := s.stageJobs(ctx, p)
	if err != nil {
		return err
	}
	for _, j := range js {
		if j.Status.Active() {
			if _, err := s.d.Jobs.Cancel(ctx, uid, j.ID); err != nil && !apperr.Is(err, apperr.Invalid) {
				return err
			}
		}
	}
	// The execution ends (and cancels a stage another step started
	// meanwhile).
	s.signal(ctx, id)
	return nil
}

// StageJob is one job of a pipeline's detail.
type StageJob struct {
	ID             string  `json:"id"`
	JobType        string  `json:"job_type"`
	Status         string  `json:"status"`
	PipelineNodeID string  `json:"pipeline_node_id"`
	ResultsCount   int     `json:"results_count"`
	ErrorMessage   *string `json:"error_message"`
	CreatedAt      string  `json:"created_at"`
	CompletedAt    *string `json:"completed_at"`
}

// OutputJob is the detail's final dataset.
type OutputJob struct {
	ID                string `json:"id"`
	JobType           string `json:"job_type"`
	ResultsCount      int    `json:"results_count"`
	Status            string `json:"status"`
	DownloadAvailable bool   `json:"download_available"`
}

// Detail is the body of GET /api/pipelines/{id}.
type Detail struct {
	ID          string     `json:"id"`
	UserID      int64      `json:"user_id"`
	Name        string     `json:"name"`
	Definition  Definition `json:"definition"`
	Status      string     `json:"status"`
	CreatedAt   string     `json:"created_at"`
	CompletedAt *string    `json:"completed_at"`
	ProgressPct int        `json:"progress_pct"`
	Jobs        []StageJob `json:"jobs"`
	OutputJob   *OutputJob `json:"output_job"`
}

// Summary is one pipeline of the list.
type Summary struct {
	ID           string  `json:"id"`
	Name         string  `json:"name"`
	Status       string  `json:"status"`
	CreatedAt    string  `json:"created_at"`
	CompletedAt  *string `json:"completed_at"`
	NodesCount   int     `json:"nodes_count"`
	DoneCount    int     `json:"done_count"`
	ResultsCount int     `json:"results_count"`
}

// Get is a pipeline's detail with its jobs, its progress and its output.
func (s *Service) Get(ctx context.Context, uid int64, id string) (*Detail, error) {
	p, err := s.get(ctx, uid, id)
	if err != nil {
		return nil, err
	}
	all, err := s.allStageJobs(ctx, uid, p)
	if err != nil {
		return nil, err
	}
	d := &Detail{ID: p.ID, UserID: p.UserID, Name: p.Name, Definition: p.Definition, Status: p.Status,
		CreatedAt: p.CreatedAt, CompletedAt: p.CompletedAt, Jobs: []StageJob{}}
	for nid, js := range all {
		for _, j := range js {
			d.Jobs = append(d.Jobs, StageJob{ID: j.ID, JobType: j.JobType, Status: string(j.Status), PipelineNodeID: nid,
				ResultsCount: j.ResultsCount, ErrorMessage: j.ErrorMessage, CreatedAt: j.CreatedAt, CompletedAt: j.CompletedAt})
		}
	}
	slices.SortFunc(d.Jobs, func(a, b StageJob) int { return strings.Compare(a.CreatedAt+a.ID, b.CreatedAt+b.ID) })
	d.ProgressPct = progress(s.d.Checker.t, p, all)
	if j := outputJob(p, all); j != nil {
		d.OutputJob = &OutputJob{ID: j.ID, JobType: j.JobType, ResultsCount: j.ResultsCount, Status: string(j.Status),
			DownloadAvailable: j.DownloadAvailable}
	}
	return d, nil
}

// Outcome is where one of the user's pipelines stands, for what waits on
// it (a veille's replay, veille.Pipelines): its status, one of the job
// states (spec: a pipeline is running, done, failed or cancelled), and
// its output job so far, the one Get's output_job names (nil while no
// stage has downloadable rows). Its errors are Get's: not found, not the
// owner's.
func (s *Service) Outcome(ctx context.Context, uid int64, id string) (jobs.Status, *jobs.Job, error) {
	p, err := s.get(ctx, uid, id)
	if err != nil {
		return "", nil, err
	}
	all, err := s.allStageJobs(ctx, uid, p)
	if err != nil {
		return "", nil, err
	}
	return jobs.Status(p.Status), outputJob(p, all), nil
}

// allStageJobs are every job of the pipeline's stages by node, in the
// order they started (stageJobs keeps the latest only); a job deleted
// since is left out.
func (s *Service) allStageJobs(ctx context.Context, uid int64, p *Pipeline) (map[string][]*jobs.Job, error) {
	all := map[string][]*jobs.Job{}
	for nid, ids := range p.Stages {
		for _, jid := range ids {
			j, err := s.d.Jobs.Get(ctx, uid, jid)
			if apperr.Is(err, apperr.NotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			all[nid] = append(all[nid], j)
		}
	}
	return all, nil
}

// List is the user's 50 latest pipelines, most recent first.
func (s *Service) List(ctx context.Context, uid int64) ([]Summary, error) {
	ps, err := s.list(ctx, uid, 50)
	if err != nil {
		return nil, err
	}
	out := []Summary{}
	for _, p := range ps {
		out = append(out, Summary{ID: p.ID, Name: p.Name, Status: p.Status, CreatedAt: p.CreatedAt, CompletedAt: p.CompletedAt,
			NodesCount: len(p.Definition.Nodes), DoneCount: p.DoneCount, ResultsCount: p.ResultsCount})
	}
	return out, nil
}

// weight is a stage's share of a pipeline's duration: transforms are
// light, sources and enrichments heavy (spec: progress_pct).
func weight(t *Table, typ string) float64 {
	switch typ {
	case modules.Filter, modules.Sort:
		return 0.05
	case modules.Scrap, modules.Sirene:
		return 3
	}
	if nt, ok := t.Lookup(typ); ok && nt.IsRoot {
		return 0.2
	}
	return 1
}

// progress is the duration-weighted completion: done stages count whole,
// the running stage its own sub-progress.
func progress(t *Table, p *Pipeline, all map[string][]*jobs.Job) int {
	if p.Status == Done {
		return 100
	}
	var total, done float64
	for _, n := range p.Definition.Nodes {
		w := weight(t, n.Type)
		total += w
		js := all[n.ID]
		if len(js) == 0 {
			continue
		}
		j := js[len(js)-1]
		switch {
		case j.Status.Terminal():
			done += w
		case j.GridPointsCount > 0:
			done += w * float64(j.ProcessedPoints) / float64(j.GridPointsCount)
		}
	}
	if total == 0 {
		return 0
	}
	pct := int(100 * done / total)
	return min(pct, 99)
}

// outputJob is the job of the most-downstream stage that produced
// downloadable rows.
func outputJob(p *Pipeline, all map[string][]*jobs.Job) *jobs.Job {
	depth := map[string]int{}
	pred := map[string]string{}
	for _, e := range p.Definition.Edges {
		pred[e.To] = e.From
	}
	for _, n := range p.Definition.Nodes {
		d := 0
		for cur := n.ID; d <= MaxNodes; d++ {
			up, ok := pred[cur]
			if !ok {
				break
			}
			cur = up
		}
		depth[n.ID] = d
	}
	var best *jobs.Job
	bestDepth := -1
	for _, n := range p.Definition.Nodes {
		for _, j := range all[n.ID] {
			if j.ResultsCount == 0 || !j.DownloadAvailable {
				continue
			}
			if depth[n.ID] > bestDepth || (depth[n.ID] == bestDepth && j.CreatedAt > best.CreatedAt) {
				best, bestDepth = j, depth[n.ID]
			}
		}
	}
	return best
}

// Table is the node table.
func (s *Service) Table() *Table { return s.d.Checker.t }

// Check runs the creation checks without creating anything (validate).
func (s *Service) Check(ctx context.Context, u *accounts.User, raw json.RawMessage, structureOnly bool) (*Checked, error) {
	// Validation counts in the limit the estimate counts in (spec: 120
	// per 10 minutes shared by both), every attempt, before any check.
	if err := s.d.Checker.d.Scrape.CountValidation(ctx, u); err != nil {
		return nil, err
	}
	return s.d.Checker.Check(ctx, u, raw, structureOnly)
}

// StageCancelled implements jobs.Stages: a stage was just cancelled (j,
// as read before its cancel), and when that ends its pipeline
// (cancelStops) the pipeline is closed now, so that the cancel can say
// so; the step that the cancel's signal runs later finds it closed.
func (s *Service) StageCancelled(ctx context.Context, j *jobs.Job) bool {
	p, err := s.get(ctx, 0, *j.PipelineID)
	if err != nil || p.Status != Running {
		return false
	}
	js, err := s.stageJobs(ctx, p)
	if err != nil {
		s.d.Log.WarnContext(ctx, "pipeline stages not read at a stage's cancel", "pipeline", p.ID, "err", err)
		return false
	}
	// The cancel has committed; a read that does not show it yet must not
	// keep the stage active.
	c := *j
	c.Status = jobs.Cancelled
	js[j.PipelineNodeID] = &c
	if !cancelStops(p, js, j.PipelineNodeID) {
		return false
	}
	return s.finish(ctx, p.ID, Cancelled) == Cancelled
}
