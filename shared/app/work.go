//go:build !account

package app

import (
	"context"
	"net/http"
	"sync"

	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/crawl"
	"github.com/prospectdata/svc/shared/engine"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/enrich/screenshot"
	"github.com/prospectdata/svc/shared/enrich/techstack"
	"github.com/prospectdata/svc/shared/gazetteer"
	"github.com/prospectdata/svc/shared/gazetteer/data"
	"github.com/prospectdata/svc/shared/imports"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/pipelines"
	"github.com/prospectdata/svc/shared/sirene"
	"github.com/prospectdata/svc/shared/viewport"
)

// The work side of the wiring: the scrape engine, the headless browser of
// screenshots, the fingerprint database of techstack and the embedded
// gazetteer. The account
// functions (api-auth, api-events, api-registry, webhook-sender) are built
// with the "account" tag, which leaves this file out (work_account.go
// stands in), so that they link none of it (docs/aws.md, "What each
// function links").

// loadGazetteer decodes the embedded gazetteer (7 MB: the zones, the
// grid, the sim world), which only the functions that resolve zones need.
func loadGazetteer() (*gazetteer.Gazetteer, error) { return data.Load() }

// newEngine builds the engine where the runtime gives queues and files:
// everywhere locally, in the Lambdas that send work or run it on AWS.
func newEngine(w engineWiring) Engine {
	if w.ad.Queue == nil || w.ad.Files == nil {
		return nil
	}
	return engine.New(engine.Deps{
		DB: w.ad.DB, Queue: w.ad.Queue, QueueName: QueueTasks, ItemQueue: QueueEnrich, SingleQueue: QueueSources, FinalizeQueue: QueueFinalize,
		Files: w.ad.Files, Provider: w.prov, Scrape: w.sc, Densities: w.dens,
		Now: w.ad.Now, Log: w.ad.Log, Visibility: w.ad.TaskVisibility,
		Modules: w.mods,
		Runners: map[string]engine.Runner{
			jobs.TypeViewportTest:  &viewport.Runner{Provider: w.prov, Now: w.ad.Now},
			jobs.TypeDeliveryCheck: w.srcs.delivery,
		},
		CSVRunners: w.srcs.csvRunners(w.sc, w.js, w.mods.Fetcher()),
		OnTerminal: w.js.Ended,
		OnPartial:  w.ps.JobEnded,
		OnOvertime: w.js.Overtime,
		OnSweep:    func(ctx context.Context) error { return w.js.Promote(ctx, jobs.PoolMultiProxy) },
		OnExport:   w.xs.Build,
		// One source for the give-up and the queues' redrive
		// (MaxReceives = GiveUpAfter+1); the sweep's bounds and the
		// local deadlines come from the same queues and workers.
		GiveUpAfter: GiveUpAfter, Redelivery: redelivery(), Deadlines: deadlines(),
	})
}

// newScreenshotter: screenshots need a Chromium: one installed on the
// machine (make test installs Debian's), else the serverless pack of the
// AWS enrichment worker's layer (SVC_CHROMIUM_PACK); without either the
// column stays empty. Its requests go through the same transport.
func newScreenshotter(cfg config.Config, tr http.RoundTripper, ua string) enrich.Screenshotter {
	switch exe := screenshot.Find(); {
	case exe != "":
		return screenshot.New(exe, tr, ua)
	case cfg.ChromiumPack != "":
		return screenshot.New("", tr, ua, screenshot.Pack(cfg.ChromiumPack))
	}
	return nil
}

// techstackModules is the techstack module over the fingerprint database,
// loaded on its first run.
func techstackModules() []enrich.Module {
	load := sync.OnceValues(techstack.New)
	return []enrich.Module{enrich.TechstackModule(techstack.Columns, func() (enrich.TechDetector, error) { return load() })}
}

// csvRunners are the single-run jobs whose result is rows.
func (s *sources) csvRunners(places sirene.Places, outputs pipelines.Outputs, fetch *crawl.Fetcher) map[string]engine.CSVRunner {
	rs := map[string]engine.CSVRunner{
		jobs.TypeImport: &pipelines.ImportStage{Deps: imports.Deps{Fetch: fetch.FetchFile, Jobs: outputs, Now: s.now, Hosts: s.importHosts}},
		jobs.TypeFilter: &pipelines.FilterStage{Jobs: outputs},
		jobs.TypeSort:   &pipelines.SortStage{Jobs: outputs},
	}
	if c, err := s.registers(); err == nil {
		rs[jobs.TypeSirene] = &sirene.Runner{Registers: c, Places: places, Budget: SireneBudget}
	}
	return rs
}
