//go:build account

package app

import (
	"errors"
	"net/http"

	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/gazetteer"
)

// The account functions' stand-in for work.go: no engine, no browser, no
// fingerprint database, no gazetteer. These functions create no job and run none; the
// routes they serve read and delete what the workers wrote.

func newEngine(engineWiring) Engine { return nil }

func newScreenshotter(config.Config, http.RoundTripper, string) enrich.Screenshotter { return nil }

func techstackModules() []enrich.Module { return nil }

// errNoGazetteer: no route of an account function resolves a zone.
var errNoGazetteer = errors.New("app: the gazetteer is not linked into the account functions")

func loadGazetteer() (*gazetteer.Gazetteer, error) { return nil, errNoGazetteer }
