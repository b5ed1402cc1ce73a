package api_test

import (
	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/events"
	"github.com/prospectdata/svc/shared/exports"
	"github.com/prospectdata/svc/shared/features"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/keys"
	"github.com/prospectdata/svc/shared/pipelines"
	"github.com/prospectdata/svc/shared/scrape"
	"github.com/prospectdata/svc/shared/veille"
	"github.com/prospectdata/svc/shared/webhooks"
)

// The services shared/app wires satisfy the ports the routes declare: a
// port that asks for a method its service lost, or changed, fails here
// rather than in the wiring.
var (
	_ api.Accounts  = (*accounts.Service)(nil)
	_ api.Keys      = (*keys.Service)(nil)
	_ api.Features  = (*features.Service)(nil)
	_ api.Scrape    = (*scrape.Service)(nil)
	_ api.Jobs      = (*jobs.Service)(nil)
	_ api.Events    = (*events.Service)(nil)
	_ api.Webhooks  = (*webhooks.Service)(nil)
	_ api.Pipelines = (*pipelines.Service)(nil)
	_ api.Veille    = (*veille.Service)(nil)
	_ api.Exports   = (*exports.Service)(nil)
)
