package app_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/engine"
)

// TestSweepMessageIsTheEngines: the schedule's body is the one the engine
// reads (app keeps its own copy so that the account functions link no
// engine).
func TestSweepMessageIsTheEngines(t *testing.T) {
	if app.SweepMessage != engine.SweepMessage {
		t.Fatalf("app.SweepMessage %s, engine.SweepMessage %s", app.SweepMessage, engine.SweepMessage)
	}
}

// heavy are the packages an account function must not link: the scrape
// engine, the headless browser driver of screenshots, the techstack
// fingerprint database and the embedded gazetteer.
var heavy = []string{
	"github.com/prospectdata/svc/shared/engine",
	"github.com/chromedp/chromedp",
	"github.com/projectdiscovery/wappalyzergo",
	"github.com/prospectdata/svc/shared/gazetteer/data",
}

// TestAccountFunctionsLinkNoWork: the account functions, built as make
// build builds them (the "account" tag), link none of heavy; the others,
// built without it, still have what they run (item 8 of the AWS issue:
// each function carries what it needs).
func TestAccountFunctionsLinkNoWork(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, line := range strings.Split(string(mk), "\n") {
		if v, ok := strings.CutPrefix(line, "ACCOUNT_FUNCTIONS := "); ok {
			listed = strings.Fields(v)
		}
	}
	if !slices.Equal(listed, app.AccountFunctions()) {
		t.Errorf("Makefile ACCOUNT_FUNCTIONS %q, app.AccountFunctions %q", listed, app.AccountFunctions())
	}
	for _, tt := range []struct {
		fn      string
		account bool
		must    []string
	}{
		{"api-auth", true, nil},
		{"api-events", true, nil},
		{"api-registry", true, nil},
		{"webhook-sender", true, nil},
		{"api-jobs", false, heavy[:1]},
		{"worker-tasks", false, heavy[:1]},
		{"worker-enrich", false, heavy},
	} {
		t.Run(tt.fn, func(t *testing.T) {
			args := []string{"list", "-deps"}
			if tt.account {
				args = append(args, "-tags", app.AccountTag)
			}
			out, err := exec.Command("go", append(args, "github.com/prospectdata/svc/functions/"+tt.fn)...).CombinedOutput()
			if err != nil {
				t.Fatalf("go list: %v\n%s", err, out)
			}
			deps := strings.Fields(string(out))
			for _, h := range heavy {
				if tt.account && slices.Contains(deps, h) {
					t.Errorf("%s links %s", tt.fn, h)
				}
			}
			for _, m := range tt.must {
				if !slices.Contains(deps, m) {
					t.Errorf("%s does not link %s", tt.fn, m)
				}
			}
		})
	}
}
