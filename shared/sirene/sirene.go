// Package sirene is the sirene source: the establishments of activities
// (French trade names or NAF codes) in French zones, from the registers
// (registers.Client.Establishments), as rows with the node's Produces
// columns (spec: node table, sirene). It is a root of pipelines; it runs
// as a single-run job whose output is a CSV (docs/data-sources.md).
package sirene

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/export"
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/registers"
	"github.com/prospectdata/svc/shared/zones"
)

// Columns are the node's Produces list, in order.
var Columns = []string{"nom", "adresse", "code_postal", "commune", "siret", "siren", "naf", "naf_libelle",
	"tranche_effectif", "date_creation", "is_siege"}

// Limits of the node's configuration.
const (
	MaxActivites = 20
	MaxZones     = 50
)

// Values of etablissements.
const (
	Tous    = "tous"
	Sieges  = "sieges"
	dateFmt = "2006-01-02"
)

// Config is the sirene node's configuration.
type Config struct {
	Activites      []string `json:"activites"`
	Zones          []string `json:"zones"`
	Etablissements string   `json:"etablissements,omitempty"`
	CreeApres      string   `json:"cree_apres,omitempty"`
	EffectifMin    string   `json:"effectif_min,omitempty"`
	StopAt         int      `json:"stop_at,omitempty"`
}

// Places reads zones and their places (scrape.Service).
type Places interface {
	Resolve(country, zone string) (zones.Zone, error)
	Gazetteer() (*gazetteer.Gazetteer, error)
}

// Validate checks the configuration (422 naming the field) and fills its
// defaults; the zones must be French places the registers can filter on.
func (c *Config) Validate(resolve Places) error {
	if err := c.CheckFields(); err != nil {
		return err
	}
	_, err := c.zones(resolve)
	return err
}

// CheckFields checks and defaults every field without resolving the
// zones (a pipeline's definition step; the zones are its next).
func (c *Config) CheckFields() error {
	if len(c.Activites) == 0 || len(c.Activites) > MaxActivites {
		return field("activites", fmt.Sprintf("activites : 1 à %d activités (nom de métier ou code NAF).", MaxActivites),
			fmt.Sprintf("activites: 1 to %d activities (trade name or NAF code).", MaxActivites))
	}
	for i, a := range c.Activites {
		c.Activites[i] = strings.TrimSpace(a)
		if _, err := registers.ResolveActivity(c.Activites[i]); err != nil {
			return field("activites", fmt.Sprintf("Activité inconnue : %q (un métier comme « boulangerie » ou un code NAF comme 10.71C).", a),
				fmt.Sprintf("Unknown activity %q (a trade such as \"boulangerie\" or a NAF code such as 10.71C).", a))
		}
	}
	if len(c.Zones) == 0 || len(c.Zones) > MaxZones {
		return field("zones", fmt.Sprintf("zones : 1 à %d zones en France.", MaxZones), fmt.Sprintf("zones: 1 to %d zones in France.", MaxZones))
	}
	switch c.Etablissements {
	case "":
		c.Etablissements = Tous
	case Tous, Sieges:
	default:
		return field("etablissements", "etablissements vaut tous ou sieges.", "etablissements is tous or sieges.")
	}
	if c.CreeApres != "" {
		if _, err := time.Parse(dateFmt, c.CreeApres); err != nil {
			return field("cree_apres", "cree_apres : une date AAAA-MM-JJ.", "cree_apres: a YYYY-MM-DD date.")
		}
	}
	if c.EffectifMin != "" && !registers.ValidTranche(c.EffectifMin) {
		return field("effectif_min", "effectif_min : une tranche d'effectif INSEE (NN, 00, 01, 02, 03, 11, 12, ...).",
			"effectif_min: an INSEE headcount band (NN, 00, 01, 02, 03, 11, 12, ...).")
	}
	switch {
	case c.StopAt == 0:
		c.StopAt = registers.DefaultStopAt
	case c.StopAt < 1 || c.StopAt > registers.MaxStopAt:
		return field("stop_at", fmt.Sprintf("stop_at va de 1 à %d.", registers.MaxStopAt), fmt.Sprintf("stop_at is 1 to %d.", registers.MaxStopAt))
	}
	return nil
}

// zones reads the zones into the registers' INSEE codes. A radius zone
// has no code to filter on and is refused; the whole country is its
// regions.
func (c *Config) zones(places Places) (registers.Zones, error) {
	var out registers.Zones
	g, err := places.Gazetteer()
	if err != nil {
		return out, err
	}
	for _, raw := range c.Zones {
		z, err := places.Resolve("FRA", raw)
		if err != nil {
			return out, err
		}
		if z.RadiusKm > 0 {
			return out, field("zones", fmt.Sprintf("%q : un rayon ne se cherche pas dans SIRENE ; donnez des communes, départements ou régions.", raw),
				fmt.Sprintf("%q: a radius cannot be searched in SIRENE; give communes, departments or regions.", raw))
		}
		switch {
		case z.Form == zones.FormPostcode:
			out.Postcodes = append(out.Postcodes, strings.TrimSpace(raw))
		case z.Kind == gazetteer.Country:
			// The registers search by area: the whole country is its
			// regions (a search without one is refused upstream).
			for _, id := range z.Places {
				for _, r := range g.Children(id) {
					if g.Place(r).Kind == gazetteer.Region {
						out.Regions = append(out.Regions, g.Place(r).Code)
					}
				}
			}
		default:
			for _, id := range z.Places {
				code := g.Place(id).Code
				switch z.Kind {
				case gazetteer.Region:
					out.Regions = append(out.Regions, code)
				case gazetteer.Department:
					out.Departements = append(out.Departements, code)
				default:
					out.Communes = append(out.Communes, code)
				}
			}
		}
	}
	return out, nil
}

func field(name, fr, en string) error { return apperr.Fields(apperr.Field(name, fr, en)) }

// Create validates the configuration and creates the user's sirene job
// (the pipelines' root node calls it): 422 before anything is written.
func Create(ctx context.Context, js *jobs.Service, u *accounts.User, places Places, c Config) (*jobs.Job, error) {
	if err := c.Validate(places); err != nil {
		return nil, err
	}
	return js.CreateSingle(ctx, u, jobs.TypeSirene, c, float64(c.StopAt)*EFPerRow)
}

// EFPerRow is the price of a row, charged at stop_at at creation (the
// most a job returns): one API page holds 25 rows.
const EFPerRow = 0.001

// Runner runs sirene jobs over the registers.
type Runner struct {
	Registers *registers.Client
	Places    Places
	// Budget bounds one job's run (the worker's timeout): a search still
	// going when it ends keeps what it found and says so in its log.
	Budget time.Duration
}

// RunCSV is the engine's CSV runner: the establishments, one row each.
func (r *Runner) RunCSV(ctx context.Context, j *jobs.Job, w io.Writer, warn func(en, fr string)) (int, error) {
	var c Config
	if err := json.Unmarshal(j.Params, &c); err != nil {
		return 0, fmt.Errorf("sirene parameters: %w", err)
	}
	z, err := c.zones(r.Places)
	if err != nil {
		return 0, err
	}
	out, err := export.NewCSV(w, Columns)
	if err != nil {
		return 0, err
	}
	rows := 0
	f := registers.Filter{Activites: c.Activites, Zones: z, SiegesOnly: c.Etablissements == Sieges,
		EffectifMin: c.EffectifMin, StopAt: c.StopAt,
		Warn: func(msg string) { warn(msg, msg) }}
	if c.CreeApres != "" {
		f.CreeApres, _ = time.Parse(dateFmt, c.CreeApres)
	}
	rctx := ctx
	if r.Budget > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, r.Budget)
		defer cancel()
	}
	err = r.Registers.Establishments(rctx, f, func(e registers.Establishment) error {
		rows++
		return out.Write(e.Values())
	})
	if err != nil && rctx.Err() != nil && ctx.Err() == nil {
		warn("Stopped at the run's time limit: the rows found so far are kept.",
			"Arrêt à la limite de durée : les lignes trouvées sont gardées.")
		err = nil
	}
	if err != nil {
		return 0, err
	}
	return rows, out.Flush()
}
