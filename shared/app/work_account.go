//go:build account

package app

import (
	"net/http"

	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/enrich"
)

// The account functions' stand-in for work.go: no engine, no browser, no
// fingerprint database. These functions create no job and run none; the
// routes they serve read and delete what the workers wrote.

func newEngine(engineWiring) Engine { return nil }

func newScreenshotter(config.Config, http.RoundTripper, string) enrich.Screenshotter { return nil }

func techstackModules() []enrich.Module { return nil }
