package app_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/config"
)

// TestPipelineSchemaAndValidate: the schema is public and the same for
// every caller; validate runs its four checks in order and answers 200
// with the first refusal's reason, in French for a session and English
// for a key, creating nothing.
func TestPipelineSchemaAndValidate(t *testing.T) {
	threshold := 5000.0
	e := apptest.Start(t, apptest.WithConfig(func(c *config.Config) { c.EFCostThreshold = &threshold }))
	anon := e.NewClient()
	schema := anon.Do("GET", "/api/pipelines/schema", nil).Must(t, 200)
	c := e.NewClient()
	c.Signup("pipes@example.org", fixturePassword)
	c.Verify("pipes@example.org")
	if again := c.Do("GET", "/api/pipelines/schema", nil).Must(t, 200); string(again.Body) != string(schema.Body) {
		t.Error("the schema differs between callers")
	}
	sj := schema.JSON()
	if sj["schema_version"] != 1.0 || len(sj["nodes"].(map[string]any)) != 22 {
		t.Fatalf("schema: %v nodes", len(sj["nodes"].(map[string]any)))
	}
	key := c.Do("POST", "/api/keys", map[string]any{"name": "pipes"}).Must(t, 201).JSON()["key"].(string)
	k := e.NewClient()
	k.Key = key

	scrap := func(id, zone string) string {
		return fmt.Sprintf(`{"id":%q,"type":"scrap","config":{"queries":["plombier"],"zones":[%q]}}`, id, zone)
	}
	def := func(nodes []string, edges string) map[string]any {
		return map[string]any{"schema_version": 1, "definition": jsonRaw(`{"nodes":[` + strings.Join(nodes, ",") + `],"edges":[` + edges + `]}`)}
	}
	roots := make([]string, 6)
	for i := range roots {
		roots[i] = scrap(fmt.Sprint("s", i), "Villeurbanne")
	}
	for _, tt := range []struct {
		name           string
		body           map[string]any
		reason, fr, en string
	}{
		{"structure", def([]string{scrap("s", "Lyon"), `{"id":"v","type":"verify"}`}, `{"from":"s","to":"v"}`),
			"definition", "Connexion scrap → verify incompatible", "Connection scrap → verify is incompatible"},
		{"an unknown zone, with a suggestion", def([]string{scrap("s", "Pari")}, ""), "zones", "Paris", "Paris"},
		{"a cost over the threshold", def([]string{`{"id":"s","type":"scrap","config":{"queries":["plombier","boulangerie","coiffeur"],"zones":["France"],"scrap_mode":"ultra"}}`,
			`{"id":"e","type":"emails","config":{"mode":"deep"}}`}, `{"from":"s","to":"e"}`), "cost", "au-dessus du seuil de 5000 EF", "above the account's threshold of 5000 EF"},
		{"more root jobs than the 5 concurrent", def(roots, ""), "busy", "au plus 5", "at most 5"},
		// Every definition fault comes before any zone: an empty paste
		// after a scrap with an unknown zone is a definition refusal.
		{"a definition fault after an unknown zone", def([]string{scrap("s", "Pari"),
			`{"id":"i","type":"import","config":{"source":"paste","text":""}}`}, ""), "definition", "text est vide", "text is empty"},
		{"a sirene field", def([]string{scrap("s", "Pari"),
			`{"id":"r","type":"sirene","config":{"activites":["boulangerie"],"zones":["Lyon"],"cree_apres":"hier"}}`}, ""),
			"definition", "AAAA-MM-JJ", "YYYY-MM-DD"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, who := range []struct {
				cl   *apptest.Client
				want string
			}{{c, tt.fr}, {k, tt.en}} {
				got := who.cl.Do("POST", "/api/pipelines/validate", tt.body).Must(t, 200).JSON()
				if got["ok"] != false || got["reason"] != tt.reason || !strings.Contains(fmt.Sprint(got["error"]), who.want) {
					t.Errorf("got %v, want %s %q", got, tt.reason, who.want)
				}
			}
		})
	}
	// structure_only stops after the definition step: zones unchecked,
	// every node's settings checked.
	got := c.Do("POST", "/api/pipelines/validate", map[string]any{"definition": jsonRaw(`{"nodes":[` + scrap("s", "Pari") + `],"edges":[]}`),
		"structure_only": true}).Must(t, 200).JSON()
	if got["ok"] != true {
		t.Errorf("structure_only: %v", got)
	}
	got = c.Do("POST", "/api/pipelines/validate", map[string]any{"definition": jsonRaw(`{"nodes":[{"id":"s","type":"scrap","config":{"queries":["` +
		strings.Repeat("x", 201) + `"],"zones":["Lyon"]}}],"edges":[]}`), "structure_only": true}).Must(t, 200).JSON()
	if got["ok"] != false || got["reason"] != "definition" {
		t.Errorf("structure_only with a query over 200 characters: %v", got)
	}
	// A valid pipeline, posted bare: normalised and summed up.
	got = k.Do("POST", "/api/pipelines/validate", def([]string{scrap("s", "Villeurbanne"), `{"id":"e","type":"emails"}`,
		`{"id":"v","type":"verify"}`, `{"id":"f","type":"filter","config":{"rules":{"logic":"AND","conditions":[]}}}`,
		`{"id":"o","type":"sort","config":{"sort_by":"rating","top_n":10}}`},
		`{"from":"s","to":"e"},{"from":"e","to":"v"},{"from":"v","to":"f"},{"from":"f","to":"o"}`)).Must(t, 200).JSON()
	sum, _ := got["summary"].(map[string]any)
	if got["ok"] != true || sum["n_nodes"] != 5.0 || sum["n_edges"] != 4.0 {
		t.Fatalf("valid: %v", got)
	}
	d := got["definition"].(map[string]any)
	if n := d["nodes"].([]any)[1].(map[string]any); n["config"].(map[string]any)["mode"] != "normal" || n["x"] == nil {
		t.Errorf("not normalised: %v", n)
	}
	if list := strings.TrimSpace(string(c.Do("GET", "/api/jobs", nil).Must(t, 200).Body)); list != "[]" {
		t.Errorf("validate created jobs: %s", list)
	}
	anon.Do("POST", "/api/pipelines/validate", def([]string{scrap("s", "Lyon")}, "")).Must(t, 401)
}

// jsonRaw embeds a JSON document as is in a request body.
func jsonRaw(s string) json.RawMessage { return json.RawMessage(s) }
