package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/pricing"
	"github.com/prospectdata/svc/shared/scrape"
)

// itemRequest is a request over raw JSON items.
func itemRequest(raws ...string) jobs.ItemRequest {
	r := jobs.ItemRequest{}
	for _, s := range raws {
		r.Items = append(r.Items, json.RawMessage(s))
	}
	return r
}

// manyItems is n items with a website each.
func manyItems(n int) jobs.ItemRequest {
	raws := make([]string, n)
	for i := range raws {
		raws[i] = fmt.Sprintf(`{"site_web":"https://s%d.example"}`, i)
	}
	return itemRequest(raws...)
}

// TestItemModules: only the registry's item modules take items; a job
// type without items (the scrape, the pipeline tools, the single-run
// diagnostics) or an unknown one is a 404.
func TestItemModules(t *testing.T) {
	for _, tt := range []struct {
		module string
		ok     bool
	}{
		{"emails", true}, {"socials", true}, {"reviews", true}, {"verify_emails", true}, {"phone_info", true},
		{"brand_assets", true}, {"legal_data", true},
		{"scrap", false}, {"sirene", false}, {"filter", false}, {"sort", false}, {"import", false},
		{"viewport_test", false}, {"teleport", false}, {"", false},
	} {
		t.Run(tt.module, func(t *testing.T) {
			if got := jobs.ItemModule(tt.module); got != tt.ok {
				t.Fatalf("ItemModule %v, want %v", got, tt.ok)
			}
			if tt.ok {
				return
			}
			e := newEnv(t)
			_, err := e.svc.CreateItems(context.Background(), user(1), tt.module, manyItems(1))
			wantCode(t, err, apperr.NotFound)
		})
	}
}

// TestItemsRules: 1 to 10,000 items, each an object holding the keys the
// module needs; the first bad entry named by its index; nothing written
// on a refusal.
func TestItemsRules(t *testing.T) {
	tests := []struct {
		name   string
		module string
		req    jobs.ItemRequest
		field  string
		msg    string // part of the English message
	}{
		{"no items", "emails", itemRequest(), "items", "items is empty"},
		{"10,001 items", "emails", manyItems(jobs.MaxItems + 1), "items", "at most 10000"},
		{"an item that is not an object", "emails", itemRequest(`{"site_web":"a.example"}`, `"b.example"`), "items[1]", "an item is an object"},
		{"an item with trailing data", "emails", itemRequest(`{"site_web":"a"} {}`), "items[0]", ""},
		{"a needed key missing", "emails", itemRequest(`{"site_web":"a"}`, `{"nom":"B"}`, `{"nom":"C"}`), "items",
			`2 item(s) lack the key "site_web" this module requires (items 1, 2)`},
		{"reviews need lien_maps", "reviews", itemRequest(`{"site_web":"a"}`), "items", `"lien_maps"`},
		{"verify_emails need email", "verify_emails", itemRequest(`{"site_web":"a"}`), "items", `"email"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			_, err := e.svc.CreateItems(context.Background(), user(1), tt.module, tt.req)
			ae := wantField(t, err, tt.field)
			if !strings.Contains(ae.Fields[0].EN, tt.msg) {
				t.Fatalf("message %q, want %q", ae.Fields[0].EN, tt.msg)
			}
			if e.active(1) != 0 || len(e.inputFiles()) != 0 || e.spent(1) != 0 {
				t.Fatal("a refused creation left something behind")
			}
		})
	}
}

// TestItemsMissingKeysListed: at most five indexes are listed.
func TestItemsMissingKeysListed(t *testing.T) {
	raws := make([]string, 8)
	for i := range raws {
		raws[i] = `{"nom":"x"}`
	}
	e := newEnv(t)
	_, err := e.svc.CreateItems(context.Background(), user(1), "emails", itemRequest(raws...))
	ae := wantField(t, err, "items")
	if !strings.Contains(ae.Fields[0].EN, "8 item(s)") || !strings.Contains(ae.Fields[0].EN, "(items 0, 1, 2, 3, 4, …)") {
		t.Fatalf("message %q", ae.Fields[0].EN)
	}
}

// TestItemOptions: each module's overrides, only on that module (a 422
// elsewhere, not silently ignored), within their bounds, with their
// defaults; reviews-only fields null on other types.
func TestItemOptions(t *testing.T) {
	site := `{"site_web":"https://a.example","lien_maps":"https://maps.example/?cid=1","telephone":"+33478000001"}`
	type want struct {
		emailMode        string // "" for null
		maxReviews       int    // -1 for null
		period           int    // -1 for null
		screenshotFactor float64
	}
	tests := []struct {
		name   string
		module string
		set    string // the body's option fields
		field  string // 422 naming it; "" for success
		want   want
	}{
		{"emails: mode defaults to normal", "emails", ``, "", want{"normal", -1, -1, 1}},
		{"emails: deep", "emails", `"mode":"deep"`, "", want{"deep", -1, -1, 5}},
		{"emails: another mode", "emails", `"mode":"turbo"`, "mode", want{}},
		{"mode on another module", "socials", `"mode":"normal"`, "mode", want{}},
		{"brand_assets: screenshot", "brand_assets", `"capture_screenshot":true`, "",
			want{"", -1, -1, 5}},
		{"brand_assets: no screenshot", "brand_assets", `"capture_screenshot":false`, "",
			want{"", -1, -1, 1}},
		{"capture_screenshot on another module", "emails", `"capture_screenshot":true`,
			"capture_screenshot", want{}},
		{"reviews: defaults 10 and 0", "reviews", ``, "", want{"", 10, 0, 1}},
		{"reviews: 100 over 120 months", "reviews", `"max_reviews":100,"period_months":120`, "",
			want{"", 100, 120, 1}},
		{"reviews: max_reviews 0", "reviews", `"max_reviews":0`, "max_reviews", want{}},
		{"reviews: max_reviews 101", "reviews", `"max_reviews":101`, "max_reviews", want{}},
		{"reviews: period_months -1", "reviews", `"period_months":-1`, "period_months", want{}},
		{"reviews: period_months 121", "reviews", `"period_months":121`, "period_months", want{}},
		{"max_reviews on another module", "emails", `"max_reviews":5`, "max_reviews", want{}},
		{"period_months on another module", "socials", `"period_months":0`, "period_months", want{}},
		{"phone_info: cache_only", "phone_info", `"live_mode":"cache_only"`, "", want{"", -1, -1, 1}},
		{"phone_info: another live_mode", "phone_info", `"live_mode":"live"`, "live_mode", want{}},
		{"a mode of the wrong type", "emails", `"mode":1`, "mode", want{}},
		{"capture_screenshot of the wrong type", "brand_assets", `"capture_screenshot":"yes"`, "capture_screenshot", want{}},
		{"max_reviews not an integer", "reviews", `"max_reviews":2.5`, "max_reviews", want{}},
		{"a null option is not set", "socials", `"mode":null`, "", want{"", -1, -1, 1}},
		{"a field that is no option is ignored", "socials", `"colour":"blue"`, "", want{"", -1, -1, 1}},
		{"live_mode on another module", "emails", `"live_mode":"cache_only"`, "live_mode", want{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			body := `{"items":[` + site + `,` + site + `,` + site + `]`
			if tt.set != "" {
				body += "," + tt.set
			}
			var req jobs.ItemRequest
			if err := json.Unmarshal([]byte(body+"}"), &req); err != nil {
				t.Fatal(err)
			}
			j, err := e.svc.CreateItems(context.Background(), user(1), tt.module, req)
			if tt.field != "" {
				wantField(t, err, tt.field)
				if e.active(1) != 0 || len(e.inputFiles()) != 0 {
					t.Fatal("a refused creation left something behind")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			j = e.get(1, j.ID)
			if got := str(j.EmailMode); (tt.want.emailMode == "" && j.EmailMode != nil) || (tt.want.emailMode != "" && got != `"`+tt.want.emailMode+`"`) {
				t.Fatalf("email_mode %s, want %q", got, tt.want.emailMode)
			}
			for _, f := range []struct {
				name string
				got  *int
				want int
			}{{"max_reviews", j.MaxReviews, tt.want.maxReviews}, {"period_months", j.PeriodMonths, tt.want.period}} {
				if (f.want == -1) != (f.got == nil) || (f.got != nil && *f.got != f.want) {
					t.Fatalf("%s %v, want %d", f.name, f.got, f.want)
				}
			}
			mod, _ := modules.Lookup(tt.module)
			per := mod.EFPerItem
			if want := float64(int(per*3*tt.want.screenshotFactor*100+0.5)) / 100; j.EFCost != want {
				t.Fatalf("EF %v, want %v", j.EFCost, want)
			}
			est, err := jobs.ItemPrice(tt.module, 3, req)
			if err != nil || est != j.EFCost {
				t.Fatalf("ItemPrice %v (%v), want the job's %v", est, err, j.EFCost)
			}
		})
	}
}

// TestItemJob: the job counts its items as grid points, is charged per
// item, and stores them as its input with every key in the order sent.
func TestItemJob(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	j := e.items(user(1), "socials",
		`{"nom":"A","site_web":"https://a.example","note":4.5}`,
		`{"site_web":"https://b.example","ville":"Lyon","nom":null,"tags":["x","y"]}`)
	if j.JobType != "socials" || j.Status != jobs.Pending || j.GridPointsCount != 2 || j.EFCost != 0.02 || j.Country != "FRA" {
		t.Fatalf("job %+v", j)
	}
	if j.MaxReviews != nil || j.PeriodMonths != nil || j.EmailMode != nil || j.SourceJobID != nil {
		t.Fatalf("options on a socials job: %+v", j)
	}
	if e.spent(1) != 0.02 {
		t.Fatalf("spent %v", e.spent(1))
	}
	rc, _, err := e.files.Open(ctx, jobs.InputKey(j.ID))
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	in, err := jobs.NewInputReader(rc)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.Columns, []string{"nom", "site_web", "note", "ville", "tags"}) {
		t.Fatalf("columns %v", in.Columns)
	}
	var rows [][]string
	for {
		row, err := in.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, slices.Clone(row))
	}
	want := [][]string{{"A", "https://a.example", "4.5", "", ""}, {"", "https://b.example", "", "Lyon", `["x","y"]`}}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("rows %q, want %q", rows, want)
	}
}

// TestItemSourceJob: source_job_id must be one of the caller's jobs; the
// job then carries its country and names it.
func TestItemSourceJob(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	src := e.create(user(1), scrape.Request{Queries: []string{"bakker"}, Country: "BEL", Zones: []string{"Bruxelles"}})
	for _, tt := range []struct {
		name string
		uid  int64
		id   string
		ok   bool
	}{
		{"own job", 1, src.ID, true},
		{"another account's job", 2, src.ID, false},
		{"unknown", 1, "nosuchjobatall", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := manyItems(1)
			req.SourceJobID = ptr(tt.id)
			j, err := e.svc.CreateItems(ctx, user(tt.uid), "emails", req)
			if !tt.ok {
				ae := wantCode(t, err, apperr.NotFound)
				if !strings.Contains(ae.EN, "source_job_id") {
					t.Fatalf("message %q", ae.EN)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if j.Country != "BEL" || j.SourceJobID == nil || *j.SourceJobID != src.ID {
				t.Fatalf("country %s, source %s", j.Country, str(j.SourceJobID))
			}
		})
	}
}

// TestItemsRefusedAfterInput: a refusal once the input was written (the
// month's EF, the concurrent limit) deletes the input.
func TestItemsRefusedAfterInput(t *testing.T) {
	e := newEnv(t, withQuota(0.05))
	ctx := context.Background()
	_, err := e.svc.CreateItems(ctx, user(1), "emails", manyItems(10)) // 0.2 EF
	wantCode(t, err, apperr.Invalid)
	if files := e.inputFiles(); len(files) != 0 {
		t.Fatalf("input left: %v", files)
	}
	for range jobs.MaxActive {
		e.items(user(2), "phone_info", `{"telephone":"+33478000001"}`)
	}
	_, err = e.svc.CreateItems(ctx, user(2), "phone_info", itemRequest(`{"telephone":"+33478000001"}`))
	wantCode(t, err, apperr.TooMany)
	if files := e.inputFiles(); len(files) != jobs.MaxActive {
		t.Fatalf("%d inputs, want the %d jobs' only", len(files), jobs.MaxActive)
	}
}

// TestItemsAdmission: an unverified account is refused before anything
// else; a runtime without a file store cannot take item jobs.
func TestItemsAdmission(t *testing.T) {
	e := newEnv(t)
	_, err := e.svc.CreateItems(context.Background(), &accounts.User{ID: 1}, "emails", manyItems(1))
	wantCode(t, err, apperr.Forbidden)
	nf := newEnv(t, withoutFiles())
	_, err = nf.svc.CreateItems(context.Background(), user(1), "emails", manyItems(1))
	wantCode(t, err, apperr.Unavailable)
}

// rows is an ItemSource over fixed rows.
type rows struct {
	cols []string
	data [][]string
	i    int
}

func (r *rows) Columns() []string { return r.cols }

func (r *rows) Next() ([]string, error) {
	if r.i == len(r.data) {
		return nil, io.EOF
	}
	r.i++
	return r.data[r.i-1], nil
}

// TestCreateItemsFrom: a pipeline stage takes every row of its source,
// beyond a request's 10,000, as long as the rows have the columns the
// module needs and there is at least one.
func TestCreateItemsFrom(t *testing.T) {
	big := &rows{cols: []string{"nom", "site_web"}}
	for i := range jobs.MaxItems + 5 {
		big.data = append(big.data, []string{"n", fmt.Sprintf("https://s%d.example", i)})
	}
	tests := []struct {
		name  string
		src   *rows
		n     int
		field string
	}{
		{"more rows than a request may send", big, jobs.MaxItems + 5, ""},
		{"a needed column missing", &rows{cols: []string{"nom"}, data: [][]string{{"a"}}}, 0, "items"},
		{"no rows", &rows{cols: []string{"site_web"}}, 0, "items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			j, err := e.svc.CreateItemsFrom(context.Background(), user(1), "socials", jobs.ItemRequest{}, tt.src)
			if tt.field != "" {
				wantField(t, err, tt.field)
				if len(e.inputFiles()) != 0 || e.active(1) != 0 {
					t.Fatal("a refused stage left something behind")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			mod, _ := modules.Lookup("socials")
			want, _ := pricing.ItemEF(mod, tt.n, nil)
			if j.GridPointsCount != tt.n || j.EFCost != want {
				t.Fatalf("%d items at %v EF, want %d at %v", j.GridPointsCount, j.EFCost, tt.n, want)
			}
		})
	}
}

// TestItemPrice: the estimate refuses what the creation refuses.
func TestItemPrice(t *testing.T) {
	for _, tt := range []struct {
		name   string
		module string
		n      int
		req    jobs.ItemRequest
		field  string
		want   float64
	}{
		{"emails normal", "emails", 100, jobs.ItemRequest{}, "", 2},
		{"emails deep", "emails", 100, jobs.ItemRequest{Options: map[string]any{"mode": "deep"}}, "", 10},
		{"a module without items", "scrap", 1, jobs.ItemRequest{}, "module", 0},
		{"no item", "emails", 0, jobs.ItemRequest{}, "count", 0},
		{"10,001 items", "emails", jobs.MaxItems + 1, jobs.ItemRequest{}, "count", 0},
		{"a misplaced option", "socials", 1, jobs.ItemRequest{Options: map[string]any{"mode": "deep"}}, "mode", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ef, err := jobs.ItemPrice(tt.module, tt.n, tt.req)
			if tt.field != "" {
				wantField(t, err, tt.field)
				return
			}
			if err != nil || ef != tt.want {
				t.Fatalf("%v EF (%v), want %v", ef, err, tt.want)
			}
		})
	}
}
