package pipelines_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/pipelines"
)

func parse(t *testing.T, tab *pipelines.Table, doc string) *pipelines.Definition {
	t.Helper()
	d, _, err := pipelines.ParseDefinition(json.RawMessage(doc))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	tab.Normalize(d)
	return d
}

const scrapNode = `{"id":"s","type":"scrap","config":{"queries":["plombier"],"zones":["Lyon"]}}`

// TestValidationRules pins each rule of the spec's table with its exact
// French message, and the rules this service adds.
func TestValidationRules(t *testing.T) {
	tab := pipelines.NewTable()
	many := make([]string, 21)
	for i := range many {
		many[i] = fmt.Sprintf(`{"id":"n%d","type":"scrap","config":{"queries":["a"],"zones":["Lyon"]}}`, i)
	}
	tests := []struct {
		name, doc, fr string
	}{
		{"nodes list empty", `{"nodes":[],"edges":[]}`, "Pipeline vide"},
		{"more than 20 nodes", `{"nodes":[` + strings.Join(many, ",") + `],"edges":[]}`, "Trop de nodes (max 20)"},
		{"duplicate node id", `{"nodes":[` + scrapNode + `,` + scrapNode + `],"edges":[]}`, "IDs de nodes en doublon"},
		{"unknown type", `{"nodes":[{"id":"x","type":"teleport"}],"edges":[]}`, "Type de node inconnu : teleport"},
		{"edge references a missing node", `{"nodes":[` + scrapNode + `],"edges":[{"from":"s","to":"ghost"}]}`, "Edge référence un node inexistant"},
		{"self-loop", `{"nodes":[` + scrapNode + `,{"id":"e","type":"emails"}],"edges":[{"from":"s","to":"e"},{"from":"e","to":"e"}]}`, "Edge vers soi-même interdit"},
		{"root type used as a successor", `{"nodes":[` + scrapNode + `,{"id":"i","type":"import","config":{"text":"nom\nA"}}],"edges":[{"from":"s","to":"i"}]}`,
			"Le node 'i' ne peut pas avoir de prédécesseur"},
		{"incompatible output to input", `{"nodes":[` + scrapNode + `,{"id":"v","type":"verify"}],"edges":[{"from":"s","to":"v"}]}`,
			"Connexion scrap → verify incompatible"},
		{"reviews feed nothing", `{"nodes":[` + scrapNode + `,{"id":"r","type":"reviews"},{"id":"e","type":"emails"}],"edges":[{"from":"s","to":"r"},{"from":"r","to":"e"}]}`,
			"Connexion reviews → emails incompatible"},
		{"node with more than one predecessor", `{"nodes":[` + scrapNode + `,{"id":"s2","type":"sirene","config":{"activites":["boulangerie"],"zones":["Lyon"]}},{"id":"e","type":"emails"}],"edges":[{"from":"s","to":"e"},{"from":"s2","to":"e"}]}`,
			"Le node e a plusieurs prédécesseurs"},
		{"missing required config field", `{"nodes":[{"id":"s","type":"scrap","config":{"zones":["Lyon"]}}],"edges":[]}`,
			"Node 's' : champ requis manquant « queries »"},
		{"an empty required list", `{"nodes":[{"id":"s","type":"scrap","config":{"queries":[],"zones":["Lyon"]}}],"edges":[]}`,
			"Node 's' : champ requis manquant « queries »"},
		{"wrong config field type", `{"nodes":[{"id":"s","type":"scrap","config":{"queries":["a"],"zones":["Lyon"],"stop_at":"beaucoup"}}],"edges":[]}`,
			"Node 's', champ « stop_at » : doit être un entier"},
		{"bad enum value", `{"nodes":[` + scrapNode + `,{"id":"e","type":"emails","config":{"mode":"turbo"}}],"edges":[{"from":"s","to":"e"}]}`,
			"Node 'e', champ « mode » : doit valoir normal, deep"},
		{"an int out of its bounds", `{"nodes":[{"id":"s","type":"sirene","config":{"activites":["boulangerie"],"zones":["Lyon"],"stop_at":50001}}],"edges":[]}`,
			"Node 's', champ « stop_at » : entre 1 et 50000"},
		{"a node that follows nothing", `{"nodes":[` + scrapNode + `,{"id":"e","type":"emails"}],"edges":[]}`,
			"Le node 'e' n'a pas de prédécesseur : il doit suivre une source (scrap, import, sirene)"},
		{"a cycle", `{"nodes":[` + scrapNode + `,{"id":"a","type":"socials"},{"id":"b","type":"techstack"}],"edges":[{"from":"a","to":"b"},{"from":"b","to":"a"}]}`,
			"Le pipeline contient un cycle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tab.Validate(parse(t, tab, tt.doc))
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.Invalid || ae.FR != tt.fr || ae.EN == "" {
				t.Fatalf("err %v, want 400 %q", err, tt.fr)
			}
		})
	}
}

// TestValidPipelines: what the rules allow, fan-out and passthrough
// included.
func TestValidPipelines(t *testing.T) {
	tab := pipelines.NewTable()
	for _, tt := range []struct{ name, doc string }{
		{"scrape, emails, verify, filter, sort", `{"nodes":[` + scrapNode + `,{"id":"e","type":"emails"},{"id":"v","type":"verify"},
			{"id":"f","type":"filter","config":{"rules":{"logic":"AND","conditions":[{"column":"status","op":"=","value":"valid"}]}}},
			{"id":"o","type":"sort","config":{"sort_by":"rating"}}],
			"edges":[{"from":"s","to":"e"},{"from":"e","to":"v"},{"from":"v","to":"f"},{"from":"f","to":"o"}]}`},
		{"verify after enrichments that follow emails", `{"nodes":[` + scrapNode + `,{"id":"e","type":"emails"},{"id":"t","type":"techstack"},{"id":"v","type":"verify"}],
			"edges":[{"from":"s","to":"e"},{"from":"e","to":"t"},{"from":"t","to":"v"}]}`},
		{"verify after an import", `{"nodes":[{"id":"i","type":"import","config":{"source":"paste","text":"nom;email\nA;a@b.fr"}},{"id":"v","type":"verify"}],
			"edges":[{"from":"i","to":"v"}]}`},
		{"a filter passes its upstream type on", `{"nodes":[` + scrapNode + `,{"id":"e","type":"emails"},{"id":"f","type":"filter"},{"id":"v","type":"verify"}],
			"edges":[{"from":"s","to":"e"},{"from":"e","to":"f"},{"from":"f","to":"v"}]}`},
		{"fan-out", `{"nodes":[` + scrapNode + `,{"id":"a","type":"socials"},{"id":"b","type":"techstack"}],"edges":[{"from":"s","to":"a"},{"from":"s","to":"b"}]}`},
		{"two roots", `{"nodes":[` + scrapNode + `,{"id":"r","type":"sirene","config":{"activites":"boulangerie\n10.71C","zones":"Lyon"}}],"edges":[]}`},
		{"the envelope", `{"schema_version":1,"name":"Plombiers","definition":{"nodes":[` + scrapNode + `],"edges":[]},"meta":{"exported_from":"app","kind":"pipeline"}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tab.Validate(parse(t, tab, tt.doc)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestNormalize: the spec's list, on a minimal definition.
func TestNormalize(t *testing.T) {
	tab := pipelines.NewTable()
	d := parse(t, tab, `{"nodes":[
		{"id":"s","type":"scrap","config":{"queries":"plombier\n  chauffagiste \n\n","zones":["Lyon"],"colour":"red"}},
		{"id":"e","type":"emails","x":500,"y":40},
		{"id":"f","type":"filter","config":{"rules":{"logic":"OR"},"note":"kept"}}],
		"edges":[{"from":"s","to":"e"},{"id":"mine","from":"e","to":"f"}]}`)
	s := d.Nodes[0]
	if q, _ := json.Marshal(s.Config["queries"]); string(q) != `["plombier","chauffagiste"]` {
		t.Errorf("newline-separated string: %s", q)
	}
	if _, ok := s.Config["colour"]; ok {
		t.Error("an unknown config field was kept")
	}
	if s.Config["country"] != "FRA" || s.Config["max_per_phone"] != 0 {
		t.Errorf("defaults: %v", s.Config)
	}
	if _, ok := s.Config["stop_at"]; ok {
		t.Error("stop_at has no default and was set")
	}
	if d.Nodes[1].Config["mode"] != "normal" || *d.Nodes[1].X != 500 || *d.Nodes[1].Y != 40 {
		t.Errorf("emails: %v at %v,%v", d.Nodes[1].Config, *d.Nodes[1].X, *d.Nodes[1].Y)
	}
	if *s.X != 0 || *s.Y != 0 || *d.Nodes[2].X <= 0 {
		t.Errorf("layout: s at %v,%v, f at %v", *s.X, *s.Y, *d.Nodes[2].X)
	}
	if d.Nodes[2].Config["note"] != "kept" {
		t.Error("a free-form config lost a field")
	}
	if d.Edges[0].ID == "" || d.Edges[1].ID != "mine" {
		t.Errorf("edge ids: %+v", d.Edges)
	}
}

// TestSchema: the schema is the node table; every pipelinable module of
// the registry is a node type, with the registry's needs and produces.
func TestSchema(t *testing.T) {
	sc := pipelines.NewTable().Schema()
	if sc.SchemaVersion != 1 || !slices.Equal(sc.RootTypes, []string{"scrap", "import", "sirene"}) {
		t.Fatalf("schema: %v %v", sc.SchemaVersion, sc.RootTypes)
	}
	for _, e := range modules.Entries() {
		if !e.Pipelinable || e.ComingSoon || e.AlphaUnavailable {
			continue
		}
		n, ok := sc.Nodes[e.Type()]
		if !ok {
			t.Errorf("no node type for %s", e.Slug)
			continue
		}
		if e.Slug != "scrap" && e.Slug != "import" && e.Slug != "filter" && e.Slug != "sort" &&
			(!slices.Equal(n.Produces, e.Produces) || !slices.Equal(n.Needs, e.Needs)) {
			t.Errorf("%s: needs %v produces %v, registry %v %v", e.Slug, n.Needs, n.Produces, e.Needs, e.Produces)
		}
	}
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"compat":{"any_pois":["pois","pois_email","verified"]`, `"config_freeform":true`,
		`"mode":{"type":"enum","default":"normal","enum":["normal","deep"],"label":"Mode"}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s", want)
		}
	}
}

// FuzzDefinition: any posted bytes are parsed, normalised and validated
// without a panic.
func FuzzDefinition(f *testing.F) {
	f.Add(`{"nodes":[` + scrapNode + `,{"id":"e","type":"emails"}],"edges":[{"from":"s","to":"e"}]}`)
	f.Add(`{"definition":{"nodes":[{"id":"a","type":"filter","config":null}],"edges":[{"from":"a","to":"a"}]}}`)
	f.Add(`{"nodes":[{"id":"a","type":"sort","config":{"sort_by":1,"top_n":1e309}}],"edges":[{}]}`)
	tab := pipelines.NewTable()
	f.Fuzz(func(t *testing.T, doc string) {
		d, _, err := pipelines.ParseDefinition(json.RawMessage(doc))
		if err != nil {
			return
		}
		tab.Normalize(d)
		_ = tab.Validate(d)
	})
}

// containsFR tells whether err is a 400 whose French message holds s.
func containsFR(err error, s string) bool {
	var ae *apperr.Error
	return errors.As(err, &ae) && strings.Contains(ae.FR, s)
}
