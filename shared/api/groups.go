package api

import (
	"path"
	"strings"
)

// Group is a route group: the routes one Lambda serves behind API Gateway
// (functions/<Name>), and what that Lambda may touch. The CDK app builds the
// gateway routes and the grants from this list, and each Lambda mounts only
// its group's routes, so the three can never disagree.
type Group struct {
	Name string
	// Prefixes are the path prefixes of the group: "/api/keys" covers
	// "/api/keys" and "/api/keys/...".
	Prefixes []string
	// Tables the group reads and writes (names of store schemas).
	Tables []string
	// SendsMail: the group sends mail (SES on AWS).
	SendsMail bool
	// Default: the group also answers every path no group claims (404s).
	Default bool
	// Gazetteer: the group resolves zones, so its Lambda loads the
	// gazetteer during init rather than on its first request.
	Gazetteer bool
	// SendsTo are the queues the group sends to (names of app.Queues()):
	// job creation sends the job's start to the task queue.
	SendsTo []string
	// Files: the group reads and writes the file store (job outputs).
	Files bool
	// MemoryMB is the Lambda's memory when the default (256 MB) is not
	// enough; Lambda gives CPU in proportion to memory.
	MemoryMB int
	// DataSources: the group calls the data sources (company lookup) or
	// checks their configuration (delivery_check's seed mailboxes), so it
	// gets their secrets (the stack's DataSourceSecrets).
	DataSources bool
}

// Groups lists every route group.
func Groups() []Group {
	return []Group{
		{
			Name:     "api-auth",
			Prefixes: []string{"/api/auth", "/api/keys", "/api/admin", "/verify-email", "/reset-password", "/healthz"},
			// Account deletion and export reach every concept's records.
			Tables: []string{"accounts", "limits", "events", "jobs", "pipelines", "veille", "densities", "webhooks"},
			// The export is built by the finalize queue's worker.
			SendsTo:   []string{"finalize"},
			Files:     true,
			SendsMail: true,
			Default:   true,
		},
		{
			// Scrape jobs, estimates and their reference data. It loads the
			// gazetteer at init (onaws), which no other group pays.
			Name:     "api-jobs",
			Prefixes: []string{"/api/jobs", "/api/estimate", "/api/ef", "/api/countries", "/api/zones", "/api/modules", "/api/brand-assets", "/api/pipelines", "/api/veille"},
			Tables:   []string{"accounts", "limits", "jobs", "pipelines", "veille", "densities", "events"},
			// A job's start goes to the tasks queue; a cancelled job's
			// salvage and a missing JSON or XLSX to the finalize queue.
			SendsTo:     []string{"tasks", "finalize"},
			Files:       true,
			Gazetteer:   true,
			DataSources: true,
			// Loading the gazetteer (13 MiB) and gridding a whole country
			// are CPU-bound: 1,024 MB buys over half a vCPU, four times the
			// default's share.
			MemoryMB: 1024,
		},
		{
			// The account's event feed and its webhook endpoints (which
			// resolve names: no table beyond their own).
			Name:     "api-events",
			Prefixes: []string{"/api/events", "/api/webhooks"},
			Tables:   []string{"accounts", "events", "webhooks"},
		},
		{
			Name:        "api-registry",
			Prefixes:    []string{"/api/modules-registry", "/api/features", "/api/openapi.json", "/api/reference", "/api/company"},
			Tables:      []string{"accounts"},
			DataSources: true,
		},
	}
}

// GroupOf returns the name of the group serving a path.
func GroupOf(p string) string {
	p = path.Clean("/" + p)
	def := ""
	for _, g := range Groups() {
		for _, pre := range g.Prefixes {
			if p == pre || strings.HasPrefix(p, pre+"/") {
				return g.Name
			}
		}
		if g.Default {
			def = g.Name
		}
	}
	return def
}
