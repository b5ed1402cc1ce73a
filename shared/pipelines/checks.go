package pipelines

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/imports"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/sirene"
)

// Reasons of a refused validation, in the spec's order of the checks.
const (
	ReasonDefinition = "definition"
	ReasonZones      = "zones"
	ReasonCost       = "cost"
	ReasonBusy       = "busy"
)

// Refusal is a definition a check refused: its reason and its message.
type Refusal struct {
	Reason string
	Err    *apperr.Error
}

func (r *Refusal) Error() string { return r.Reason + ": " + r.Err.EN }

// Deps are what the checks read.
type Deps struct {
	Scrape *scrape.Service
	Jobs   *jobs.Service
	// Hosts checks an import's spreadsheet address before the launch
	// (imports.CheckURL); nil checks its form only.
	Hosts imports.Hosts
}

// Checker runs the creation checks of a definition.
type Checker struct {
	t *Table
	d Deps
}

// NewChecker returns the checks over the node table.
func NewChecker(t *Table, d Deps) *Checker { return &Checker{t: t, d: d} }

// Table is the node table the checks read.
func (c *Checker) Table() *Table { return c.t }

// Checked is a definition that passed the checks.
type Checked struct {
	Definition *Definition
	Name       string
	// Cost is the worst-case EF of the whole pipeline.
	Cost float64
	// Roots are the root nodes, each a first job.
	Roots []string
}

// nodeChecks are what the definition checks resolve per node, for the
// cost checks that follow.
type nodeChecks struct {
	rows    map[string]float64 // worst-case rows leaving each node
	scrapes map[string]scrape.Settings
	sirenes map[string]sirene.Config
}

// Check runs, in order, the structure rules, the zones of the scrap and
// sirene nodes (resolved as at launch), the worst-case cost against the
// account's threshold and the room for the root jobs in the 5 concurrent
// jobs; structureOnly stops after the first (spec: POST
// /api/pipelines/validate). A refusal is a *Refusal; other errors are the
// infrastructure's.
func (c *Checker) Check(ctx context.Context, u *accounts.User, raw json.RawMessage, structureOnly bool) (*Checked, error) {
	d, name, err := ParseDefinition(raw)
	if err != nil {
		return nil, refusal(ReasonDefinition, err)
	}
	c.t.Normalize(d)
	if err := c.t.Validate(d); err != nil {
		return nil, refusal(ReasonDefinition, err)
	}
	out := &Checked{Definition: d, Name: name}
	for _, n := range d.Nodes {
		if nt, _ := c.t.Lookup(n.Type); nt.IsRoot {
			out.Roots = append(out.Roots, n.ID)
		}
	}
	// Every definition check of every node comes first, so that a
	// definition fault is reported as such whatever follows it, and
	// structure_only sees them all.
	order := c.t.topo(d)
	nc, err := c.checkNodes(ctx, u, d, order)
	if err != nil {
		return nil, err
	}
	if structureOnly {
		return out, nil
	}
	if err := c.priceSources(ctx, d, order, nc, out); err != nil {
		return nil, err
	}
	c.priceStages(d, order, nc.rows, out)
	out.Cost = math.Round(out.Cost*100) / 100
	if err := c.checkCost(out); err != nil {
		return nil, err
	}
	if err := c.checkRoom(ctx, u, out); err != nil {
		return nil, err
	}
	return out, nil
}

// checkNodes runs the definition checks of the scrap, sirene and import
// nodes, in order, and keeps what they resolve.
func (c *Checker) checkNodes(ctx context.Context, u *accounts.User, d *Definition, order []string) (*nodeChecks, error) {
	nc := &nodeChecks{
		rows:    map[string]float64{},
		scrapes: map[string]scrape.Settings{},
		sirenes: map[string]sirene.Config{},
	}
	for _, id := range order {
		n := node(d, id)
		switch n.Type {
		case modules.Scrap:
			set, err := scrapeSettings(n)
			if err != nil {
				return nil, err
			}
			nc.scrapes[id] = set
		case modules.Sirene:
			cfg, err := sireneConfig(n)
			if err == nil {
				if ferr := cfg.CheckFields(); ferr != nil {
					err = nodeErr(n.ID, ferr)
				}
			}
			if err != nil {
				return nil, refusal(ReasonDefinition, err)
			}
			nc.sirenes[id] = cfg
		case modules.Import:
			r, err := c.importRows(ctx, u, n)
			if err != nil {
				return nil, err
			}
			nc.rows[id] = r
		}
	}
	return nc, nil
}

// priceSources resolves the zones of the scrap and sirene nodes, adds
// their worst-case cost to out and sets the rows they may list.
func (c *Checker) priceSources(ctx context.Context, d *Definition, order []string, nc *nodeChecks, out *Checked) error {
	for _, id := range order {
		n := node(d, id)
		switch n.Type {
		case modules.Scrap:
			set := nc.scrapes[id]
			plan, err := c.scrapePlan(n, set)
			if err != nil {
				return err
			}
			if err := c.d.Scrape.Price(ctx, plan, nil); err != nil {
				return err
			}
			out.Cost += plan.Estimate.EF
			// The places it is expected to list, at most stop_at.
			nc.rows[id] = math.Ceil(plan.Estimate.ExpectedPlaces)
		case modules.Sirene:
			cfg := nc.sirenes[id]
			if err := cfg.Validate(c.d.Scrape); err != nil {
				return refusal(zonesOr(err), nodeErr(n.ID, err))
			}
			out.Cost += float64(cfg.StopAt) * sirene.EFPerRow
			nc.rows[id] = float64(cfg.StopAt)
		}
	}
	return nil
}

// priceStages adds the worst-case cost of the nodes that follow another
// to out, passing the rows down from each node's predecessor.
func (c *Checker) priceStages(d *Definition, order []string, rows map[string]float64, out *Checked) {
	pred := map[string]string{}
	for _, e := range d.Edges {
		pred[e.To] = e.From
	}
	for _, id := range order {
		n := node(d, id)
		p, ok := pred[id]
		if !ok {
			continue
		}
		in := rows[p]
		nt, _ := c.t.Lookup(n.Type)
		switch n.Type {
		case modules.Filter:
			rows[id] = in
		case modules.Sort:
			rows[id] = in
			if top, ok := number(n.Config["top_n"]); ok && top < in {
				rows[id] = top
			}
		default:
			// A stage takes every row of its predecessor (docs/pipelines.md),
			// so the worst case counts them all; the config was checked.
			e, _ := modules.Lookup(nt.Module)
			v, _ := e.Read(settings(e, n.Config))
			ef, _ := pricing.ItemEF(e, int(in), v)
			out.Cost += ef
			rows[id] = in
		}
	}
}

// checkCost refuses a worst-case cost above the account's threshold.
func (c *Checker) checkCost(out *Checked) error {
	if th := c.d.Scrape.CostThreshold(); out.Cost > th {
		return &Refusal{Reason: ReasonCost, Err: apperr.New(apperr.Invalid,
			fmt.Sprintf("Coût estimé au pire de %s EF, au-dessus du seuil de %s EF du compte : réduisez les zones, les requêtes ou stop_at.",
				pricing.FormatEF(out.Cost), pricing.FormatEF(th)),
			fmt.Sprintf("Worst-case estimated cost of %s EF, above the account's threshold of %s EF: reduce the zones, the queries or stop_at.",
				pricing.FormatEF(out.Cost), pricing.FormatEF(th)))}
	}
	return nil
}

// checkRoom refuses a pipeline whose root jobs do not fit in the
// account's concurrent jobs.
func (c *Checker) checkRoom(ctx context.Context, u *accounts.User, out *Checked) error {
	active, err := c.d.Jobs.Active(ctx, u.ID)
	if err != nil {
		return err
	}
	if active+len(out.Roots) > jobs.MaxActive {
		return &Refusal{Reason: ReasonBusy, Err: apperr.New(apperr.Invalid,
			fmt.Sprintf("Trop de jobs en cours : %d en attente ou en cours, ce pipeline en lance %d, au plus %d. Réessayez quand un job sera terminé.",
				active, len(out.Roots), jobs.MaxActive),
			fmt.Sprintf("Too many jobs running: %d pending or running, this pipeline starts %d, at most %d. Retry when a job has finished.",
				active, len(out.Roots), jobs.MaxActive))}
	}
	return nil
}

// scrapeSettings cleans a scrap node's settings as POST /api/jobs does.
func scrapeSettings(n Node) (scrape.Settings, error) {
	var r scrape.Request
	b, _ := json.Marshal(n.Config)
	if err := json.Unmarshal(b, &r); err != nil {
		return scrape.Settings{}, refusal(ReasonDefinition, nodeErr(n.ID, apperr.New(apperr.Invalid, err.Error(), err.Error())))
	}
	set, err := scrape.Clean(r, true)
	if err != nil {
		return set, refusal(ReasonDefinition, nodeErr(n.ID, err))
	}
	return set, nil
}

// scrapePlan resolves a scrap node's zones as at launch.
func (c *Checker) scrapePlan(n Node, set scrape.Settings) (*scrape.Plan, error) {
	plan, err := c.d.Scrape.Plan(set)
	if err != nil {
		return nil, err
	}
	if len(plan.Problems) > 0 {
		p := plan.Problems[0]
		reason := ReasonDefinition
		if strings.HasPrefix(p.Field, "zones") || strings.HasPrefix(p.Field, "country") {
			reason = ReasonZones
		}
		return nil, &Refusal{Reason: reason, Err: apperr.New(apperr.Invalid,
			fmt.Sprintf("Node '%s' : %s", n.ID, p.FR), fmt.Sprintf("Node '%s': %s", n.ID, p.EN))}
	}
	return plan, nil
}

// importRows checks an import node's source where it can be before the
// launch (a paste is parsed, a job must be the user's and recent) and
// returns its worst-case rows; a spreadsheet address is checked (no
// network) and read at launch.
func (c *Checker) importRows(ctx context.Context, u *accounts.User, n Node) (float64, error) {
	var cfg imports.Config
	b, _ := json.Marshal(n.Config)
	_ = json.Unmarshal(b, &cfg)
	switch cfg.Source {
	case imports.URL:
		if strings.TrimSpace(cfg.URL) == "" {
			return 0, refusal(ReasonDefinition, nodeErr(n.ID, apperr.New(apperr.Invalid, "url est vide.", "url is empty.")))
		}
		// The address is read at launch, but what it may be is known now:
		// the rules the fetch would apply, with their reason.
		if _, err := imports.CheckURL(c.d.Hosts, cfg.URL); err != nil {
			return 0, refusal(ReasonDefinition, nodeErr(n.ID, err))
		}
		return imports.MaxRows, nil
	case imports.FromJob:
		if cfg.FromJobID == "" {
			return 0, refusal(ReasonDefinition, nodeErr(n.ID, apperr.New(apperr.Invalid, "from_job_id est vide.", "from_job_id is empty.")))
		}
		j, err := c.d.Jobs.Get(ctx, u.ID, cfg.FromJobID)
		if err != nil {
			return 0, refusal(ReasonDefinition, nodeErr(n.ID, apperr.New(apperr.Invalid,
				"from_job_id : job introuvable.", "from_job_id: no such job.")))
		}
		return float64(j.ResultsCount), nil
	}
	t, err := imports.Load(ctx, imports.Deps{}, u.ID, cfg)
	if err != nil {
		return 0, refusal(ReasonDefinition, nodeErr(n.ID, err))
	}
	return float64(len(t.Rows)), nil
}

func sireneConfig(n Node) (sirene.Config, error) {
	var cfg sirene.Config
	b, _ := json.Marshal(n.Config)
	if err := json.Unmarshal(b, &cfg); err != nil {
		return cfg, nodeErr(n.ID, apperr.New(apperr.Invalid, err.Error(), err.Error()))
	}
	return cfg, nil
}

// zonesOr is the reason of a sirene refusal: zones when it names them.
func zonesOr(err error) string {
	var ae *apperr.Error
	if errors.As(err, &ae) && len(ae.Fields) > 0 && ae.Fields[0].Field == "zones" {
		return ReasonZones
	}
	if errors.As(err, &ae) && ae.Code == apperr.Invalid && len(ae.Fields) == 0 {
		return ReasonZones // the zone resolver's refusal
	}
	return ReasonDefinition
}

// nodeErr prefixes a node's error with its id.
func nodeErr(id string, err error) *apperr.Error {
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		return apperr.New(apperr.Invalid, fmt.Sprintf("Node '%s' : %v", id, err), fmt.Sprintf("Node '%s': %v", id, err))
	}
	fr, en := ae.FR, ae.EN
	if len(ae.Fields) > 0 {
		fr, en = ae.Fields[0].Field+" : "+ae.Fields[0].FR, ae.Fields[0].Field+": "+ae.Fields[0].EN
	}
	return apperr.New(apperr.Invalid, fmt.Sprintf("Node '%s' : %s", id, fr), fmt.Sprintf("Node '%s': %s", id, en))
}

func refusal(reason string, err error) error {
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		ae = apperr.New(apperr.Invalid, err.Error(), err.Error())
	}
	return &Refusal{Reason: reason, Err: ae}
}

func node(d *Definition, id string) Node {
	for _, n := range d.Nodes {
		if n.ID == id {
			return n
		}
	}
	return Node{}
}

// topo lists a valid definition's nodes from the roots down (each node
// after its predecessor).
func (t *Table) topo(d *Definition) []string {
	next := map[string][]string{}
	for _, e := range d.Edges {
		next[e.From] = append(next[e.From], e.To)
	}
	var out []string
	var walk func(id string)
	walk = func(id string) {
		out = append(out, id)
		for _, c := range next[id] {
			walk(c)
		}
	}
	for _, n := range d.Nodes {
		if nt, _ := t.Lookup(n.Type); nt.IsRoot {
			walk(n.ID)
		}
	}
	return out
}
