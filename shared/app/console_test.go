package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/console"
)

// browser is a headless Chromium on the console of a test app: every page
// it opens is watched for policy violations and checked by axe-core.
type browser struct {
	t   *testing.T
	e   *apptest.Env
	ctx context.Context
	axe string // axe-core's script, "" when not built

	mu        sync.Mutex
	requested []string
}

func newBrowser(t *testing.T, e *apptest.Env) *browser {
	t.Helper()
	require := os.Getenv("SVC_TEST_REQUIRE_CHROMIUM") == "1"
	exe, err := exec.LookPath("chromium")
	if err != nil {
		if require {
			t.Fatal("no Chromium: make test installs Debian's chromium")
		}
		t.Skip("no Chromium installed")
	}
	if con, err := console.New(console.Options{}); err != nil || !con.Built() {
		if require {
			t.Fatal("the console is not built: make test runs make console first")
		}
		t.Skip("the console is not built (make console)")
	}
	axe, err := os.ReadFile("../console/testdata/axe.min.js")
	if err != nil && require {
		t.Fatal("axe-core is not in shared/console/testdata: make console copies it there")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox, // tests run as root in a container
		chromedp.WindowSize(1280, 900),
		// Only the test server is reachable: a page that reached for
		// another origin would fail, and the test sees the attempt.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	b := &browser{t: t, e: e, axe: string(axe)}
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithListener(func(ev any) {
		if r, ok := ev.(*network.EventRequestWillBeSent); ok {
			b.mu.Lock()
			b.requested = append(b.requested, r.Request.URL)
			b.mu.Unlock()
		}
	}))
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelT)
	b.ctx = ctx
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	// Injected by the browser, not the page: the policy does not apply.
	if _, err := chromedp.Call(ctx, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.__violations = [];
document.addEventListener("securitypolicyviolation", e => window.__violations.push(e.violatedDirective + " " + e.blockedURI));`,
	}); err != nil {
		t.Fatal(err)
	}
	return b
}

// do runs steps, failing the test with the page's text on an error.
func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		text, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		loc, _ := chromedp.Run(b.ctx, chromedp.Location())
		b.t.Fatalf("%v\nat %s:\n%s", err, loc, text)
	}
}

// open loads a path of the console and waits for its title.
func (b *browser) open(path, title string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.e.Server.URL + path))
	b.waitTitle(title)
}

// waitTitle waits for the page whose heading is title.
func (b *browser) waitTitle(title string) {
	b.t.Helper()
	b.waitText("main h1", title)
}

// waitText waits until the element's text contains want.
func (b *browser) waitText(sel, want string) {
	b.t.Helper()
	expr := fmt.Sprintf(`(() => { const e = document.querySelector(%q); return !!e && e.textContent.includes(%q); })()`, sel, want)
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		text, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
		loc, _ := chromedp.Run(b.ctx, chromedp.Location())
		b.t.Fatalf("%q never showed %q (%v)\nat %s:\n%s", sel, want, err, loc, text)
	}
}

// signedIn is a verified account of the app, its API client, and a
// browser signed in to the console as that person.
func signedIn(t *testing.T, e *apptest.Env, email string) (*apptest.Client, *browser) {
	t.Helper()
	const password = "s3cret-pass"
	c := e.NewClient()
	c.Signup(email, password)
	c.Verify(email)
	b := newBrowser(t, e)
	b.login(email, password)
	return c, b
}

// login signs in through the console's login page.
func (b *browser) login(email, password string) {
	b.t.Helper()
	b.open("/login", "Se connecter")
	b.fill("email", email)
	b.fill("password", password)
	b.click(`main button[type=submit]`)
	b.waitTitle("Jobs")
}

// fill types into the field of the form named name.
func (b *browser) fill(name, value string) {
	b.t.Helper()
	sel := fmt.Sprintf(`main [name=%q]`, name)
	// Emptied as a person would (select all, delete), then typed.
	b.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.focus(); e.select(); return ""; })()`, sel))
	b.do(chromedp.SendKeys(chromedp.CSS(sel), "\b"+value))
}

func (b *browser) click(sel string) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(sel)))
}

// press clicks the button within sel whose text is label, as a person
// finds it.
func (b *browser) press(sel, label string) {
	b.t.Helper()
	expr := fmt.Sprintf(`(() => { const b = [...document.querySelectorAll(%q + " button")].find(b => b.textContent.trim() === %q); if (!b) return false; b.click(); return true; })()`, sel, label)
	ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](expr))
	if err != nil || !ok {
		b.t.Fatalf("no button %q in %s (%v)", label, sel, err)
	}
}

func (b *browser) eval(expr string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// check runs axe-core over the page and fails on a serious or critical
// finding; it also fails on any policy violation so far.
func (b *browser) check(page string) {
	b.t.Helper()
	b.shoot(page)
	var violations []string
	if v, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`window.__violations`)); err == nil {
		violations = v
	}
	if len(violations) > 0 {
		b.t.Errorf("%s: policy violations %v", page, violations)
	}
	if b.axe == "" {
		return
	}
	// Injected by the test through the DevTools protocol, not by the
	// page: the page's policy does not apply to it.
	if _, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](b.axe+";true")); err != nil {
		b.t.Fatalf("axe-core: %v", err)
	}
	res, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.html).slice(0, 3)}))))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("axe-core run: %v", err)
	}
	var found []struct {
		ID, Impact, Help string
		Nodes            []string
	}
	if err := json.Unmarshal([]byte(res), &found); err != nil {
		b.t.Fatalf("axe-core result %q: %v", res, err)
	}
	for _, f := range found {
		if f.Impact == "serious" || f.Impact == "critical" {
			b.t.Errorf("%s: axe %s (%s): %s %v", page, f.ID, f.Impact, f.Help, f.Nodes)
		}
	}
}

// phone checks the page at a phone's width (390 px): nothing spills
// sideways (wide tables scroll in their own box), and axe-core again.
func (b *browser) phone(page string) {
	b.t.Helper()
	b.do(chromedp.EmulateViewport(390, 844))
	defer b.do(chromedp.EmulateViewport(1280, 900))
	b.do(chromedp.Sleep(200 * time.Millisecond))
	if w := b.eval(`String(document.documentElement.scrollWidth - window.innerWidth)`); w != "0" {
		b.t.Errorf("%s: %s px wider than a phone", page, w)
	}
	b.check(page + " on a phone")
}

// shoot saves a screenshot of the page into SVC_CONSOLE_SHOTS, when set
// (docs/console.md's pictures: SVC_CONSOLE_SHOTS=docs/console go test
// -run TestConsole ./shared/app).
func (b *browser) shoot(page string) {
	b.t.Helper()
	dir := os.Getenv("SVC_CONSOLE_SHOTS")
	if dir == "" {
		return
	}
	// Let the map's canvas settle before the picture.
	b.do(chromedp.Sleep(300 * time.Millisecond))
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot of %s: %v", page, err)
	}
	name := strings.NewReplacer(" ", "-").Replace(page) + ".png"
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// TestConsoleAccountJourney: a person signs up in the console, opens the
// mailed link, creates an API key (shown once, with its copy button) and
// revokes it, changes language, logs out and in again; no page has a
// serious accessibility finding or breaks its policy, nothing but the
// language is kept in the browser's storage, the session cookie is out of
// the page's reach, and the browser asks nothing of another origin; the
// account's export downloads, and the account is deleted.
func TestConsoleAccountJourney(t *testing.T) {
	e := apptest.Start(t)
	b := newBrowser(t, e)
	const email, password = "console@example.org", "s3cret-pass"

	b.open("/", "Se connecter")
	b.check("login")
	b.click(`a[href="/signup"]`)
	b.waitTitle("Créer un compte")
	b.fill("email", email)
	b.fill("password", "short")
	b.fill("invitation_code", apptest.Code)
	b.click(`main button[type=submit]`)
	// The API's message shows where it applies.
	b.waitText("main", "Le mot de passe doit contenir")
	b.check("signup with an error")
	b.fill("password", password)
	b.click(`main [name=accept_responsibility]`)
	b.click(`main button[type=submit]`)
	b.waitTitle("Compte")
	b.waitText("main", "pas encore vérifiée")
	b.check("account")
	b.phone("account")

	b.open("/verify-email?token="+e.Token(email, "verify-email"), "Vérification de l'e-mail")
	b.waitText("main", "Adresse vérifiée")
	b.check("verify")

	b.open("/keys", "Clés d'API")
	b.waitText("main", "Aucune clé")
	b.fill("name", "mon script")
	b.click(`main form button[type=submit]`)
	b.waitText("main", "ne sera plus jamais affichée")
	key := b.eval(`document.querySelector("[data-secret=key]").textContent`)
	if !regexp.MustCompile(`^sk_[0-9a-f]{40}$`).MatchString(key) {
		t.Fatalf("key shown %q", key)
	}
	b.check("keys with a new key")
	// The key works for the API, then stops once revoked.
	k := e.NewClient()
	k.Key = key
	k.Do("GET", "/api/auth/me", nil).Must(t, 200)
	b.press("main .secret", "Fermer")
	b.waitText("main table", "mon script")
	if strings.Contains(b.eval(`document.body.innerHTML`), key) {
		t.Error("the key is still in the page once closed")
	}
	b.click(`main table button[aria-label^="Révoquer"]`)
	b.waitText("main table", "Révoquée")
	k.Do("GET", "/api/auth/me", nil).Must(t, 401)

	// Nothing but the language in the browser's storage; the session
	// cookie is not readable by the page.
	b.click(`header button.link`)
	b.waitText("header", "Log out")
	b.waitTitle("API keys")
	if got := b.eval(`JSON.stringify({l: Object.keys(localStorage), s: Object.keys(sessionStorage), c: document.cookie})`); got != `{"l":["svc-lang"],"s":[],"c":""}` {
		t.Errorf("browser storage %s", got)
	}
	b.check("keys in English")
	b.click(`header button.secondary`)
	b.waitTitle("Log in")
	b.click(`main a[href="/reset-password"]`)
	b.waitTitle("Reset the password")
	b.check("reset password")
	b.click(`main a[href="/login"]`)
	b.waitTitle("Log in")
	b.fill("email", email)
	b.fill("password", password)
	b.click(`main button[type=submit]`)
	b.waitTitle("Jobs")
	b.check("jobs")

	// The account's export, then its deletion, confirmed by the email
	// (the console is in English since the switch).
	b.open("/account", "Account")
	got := b.eval(`(async () => { const r = await fetch(document.querySelector('a[href="/api/auth/me/export"]').href); return r.status + " " + r.headers.get("Content-Type"); })()`)
	if got != "200 application/zip" {
		t.Errorf("export: %s", got)
	}
	b.fill("confirm_email", email)
	b.press("main section.danger", "Delete for good")
	b.waitTitle("Sign up")
	e.NewClient().Do("POST", "/api/auth/login", map[string]any{"email": email, "password": password}).Must(t, 401)

	b.mu.Lock()
	defer b.mu.Unlock()
	for _, u := range b.requested {
		if !strings.HasPrefix(u, e.Server.URL+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the console requested %s", u)
		}
	}
}

// TestConsoleJobJourney: a person signs up and verifies the address in the
// browser, estimates a scrape on the map (a query,
// a zone picked from the completions with the keyboard, the estimate and
// the tiles drawn), launches it, watches it reach done and downloads its
// CSV; the new-job and job pages pass axe-core.
func TestConsoleJobJourney(t *testing.T) {
	e := apptest.Start(t)
	const email = "jobs@example.org"
	b := newBrowser(t, e)
	// From the signup, in the browser only: the person signs up, opens
	// the mailed link, and goes on to a scrape and its enrichment.
	b.open("/signup", "Créer un compte")
	b.fill("email", email)
	b.fill("password", "s3cret-pass")
	b.fill("invitation_code", apptest.Code)
	b.click(`main [name=accept_responsibility]`)
	b.click(`main button[type=submit]`)
	b.waitTitle("Compte")
	b.open("/verify-email?token="+e.Token(email, "verify-email"), "Vérification de l'e-mail")
	b.waitText("main", "Adresse vérifiée")

	b.click(`header a[href="/new"]`)
	b.waitTitle("Nouveau job")
	b.fill("queries", "boulangerie")
	b.fill("zone", "villeurb")
	b.waitText("#zone-options", "Villeurbanne (69)")
	b.do(chromedp.KeyEvent("\r"))
	b.waitText("main .chips", "Villeurbanne (69)")
	b.waitText(`main [data-fact="tiles"]`, "")
	tiles := b.eval(`document.querySelector('[data-fact="tiles"]').textContent`)
	if tiles == "" || tiles == "0" {
		t.Fatalf("estimate tiles %q", tiles)
	}
	// The map draws the zone's outline and the tiles (Leaflet's canvas).
	b.waitText(".map figcaption", tiles+" tuiles")
	if n := b.eval(`String(document.querySelectorAll(".map-canvas canvas").length)`); n == "0" {
		t.Error("the map drew nothing")
	}
	b.check("new job")
	b.phone("new job")
	b.press("main form", "Lancer le job")
	b.waitText(`main [data-fact="status"]`, "terminé")
	// The list: the job done, its bar full, kept live by its stream.
	b.click(`header a[href="/jobs"]`)
	b.waitTitle("Jobs")
	b.waitText(`main table tbody tr [data-fact="status"]`, "terminé")
	if v := b.eval(`(() => { const p = document.querySelector("main table tbody tr progress"); return p ? p.value + "/" + p.max : ""; })()`); v == "" || strings.Split(v, "/")[0] != strings.Split(v, "/")[1] {
		t.Errorf("progress bar %q", v)
	}
	b.check("jobs with one done")
	b.do(chromedp.NavigateBack())
	b.waitText(`main [data-fact="status"]`, "terminé")
	b.waitText("main .downloads", "CSV")
	csv := b.eval(`(async () => { const r = await fetch(document.querySelector(".downloads a").href); return r.status + " " + (await r.text()).split("\n")[0]; })()`)
	if !strings.HasPrefix(csv, "200 ") || !strings.Contains(csv, "place_id") {
		t.Errorf("download: %.200s", csv)
	}
	// The places found, on the map.
	b.waitText(".map figcaption", "lieux sur la carte")
	// The breakdown by query and zone.
	b.waitText("main #breakdown + .columns", "Villeurbanne")
	// The rows, a page at a time, numbers aligned.
	b.waitText("main .pager", "1–")
	if n := b.eval(`String(document.querySelectorAll("table.rows tbody tr").length)`); n == "0" {
		t.Error("the rows table is empty")
	}
	if n := b.eval(`String(document.querySelectorAll("table.rows td.num").length)`); n == "0" {
		t.Error("no number is shown as one")
	}
	b.waitText("main .log", "")
	b.check("job")
	b.phone("job")

	// A module's options: the reviews' count and period.
	pick := func(module string) {
		t.Helper()
		b.do(chromedp.SetValue(chromedp.CSS(`main select[name=module]`), module))
		b.eval(`(() => { document.querySelector("main select[name=module]").dispatchEvent(new Event("change", {bubbles: true})); return ""; })()`)
	}
	pick("reviews")
	b.waitText(`main [data-fact="enrich-cost"]`, "EF")
	if n := b.eval(`String(document.querySelectorAll("main [name=max_reviews], main [name=period_months]").length)`); n != "2" {
		t.Errorf("%s review options shown, want 2", n)
	}
	// Enrich the rows with emails: the cost shows before the start.
	pick("emails")
	b.waitText(`main [data-fact="enrich-cost"]`, "EF")
	b.check("enrich")
	src := b.eval(`location.pathname`)
	b.press("main", "Lancer l'enrichissement")
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](fmt.Sprintf(`location.pathname !== %q && !!document.querySelector('main [data-fact="status"]')`, src),
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("the enrichment did not open its job: %v\n%s", err, b.eval(`document.body.innerText`))
	}
	b.waitText(`main [data-fact="status"]`, "terminé")
	b.waitText("main .downloads", "CSV")
	csv = b.eval(`(async () => { const r = await fetch(document.querySelector(".downloads a").href); return r.status + " " + (await r.text()).split("\n")[0]; })()`)
	if !strings.HasPrefix(csv, "200 ") || !strings.Contains(csv, "email") || !strings.Contains(csv, "place_id") {
		t.Errorf("enriched download: %.300s", csv)
	}
}

// TestConsoleWebhooks: a person adds a webhook in the console (its secret
// shown once), an internal address is refused with the API's reason, a
// finished job's delivery shows with its attempts, and the endpoint is
// deleted.
func TestConsoleWebhooks(t *testing.T) {
	e, rc := startWithReceiver(t, true)
	c, b := signedIn(t, e, "hooks-console@example.org")
	b.click(`header a[href="/webhooks"]`)
	b.waitTitle("Webhooks")
	b.waitText("main", "Aucun webhook")
	b.fill("url", "https://intranet.example.com/hook")
	b.press("main form", "Créer le webhook")
	b.waitText("main .notice.error", "privée")
	b.check("webhooks with a refusal")
	b.fill("url", rc.srv.URL+"/hook")
	b.press("main form", "Créer le webhook")
	b.waitText("main .secret", "ne sera plus jamais affiché")
	if secret := b.eval(`document.querySelector("[data-secret=webhook]").textContent`); !strings.HasPrefix(secret, "whsec_") {
		t.Errorf("secret shown %q", secret)
	}
	b.press("main .secret", "Fermer")
	b.waitText("main table", rc.srv.URL)
	// A job that completes is delivered.
	id := c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Villeurbanne"}, "scrap_mode": "fast"}).Must(t, 200).JSON()["id"].(string)
	waitJob(t, c, id, isDone)
	for end := time.Now().Add(time.Minute); len(rc.got()) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("no delivery reached the receiver")
		}
	}
	b.click(`main table button[aria-label^="Envois"]`)
	b.waitText("main #deliveries + *, main section", "job.completed")
	b.check("webhook deliveries")
	b.click(`main table button[aria-label^="Supprimer"]`)
	b.waitText("main", "Aucun webhook")
}

// TestConsolePipeline: a person checks a pipeline's envelope in the
// console (text that is not JSON, then a misspelt zone, each refused where
// it applies), creates it, sees its stages drawn, pauses it by cancelling
// its running scrape from the stage's job page, continues it, and it ends
// done with its result to download.
func TestConsolePipeline(t *testing.T) {
	e := apptest.Start(t)
	_, b := signedIn(t, e, "pipes-console@example.org")
	b.click(`header a[href="/pipelines"]`)
	b.waitTitle("Pipelines")
	b.waitText("main", "Aucun pipeline")
	b.check("pipelines")

	envelope := func(zone string) string {
		return `{"schema_version":1,"name":"Boulangers et plombiers","meta":{"exported_from":"test","kind":"pipeline"},"definition":{"nodes":[
{"id":"s","type":"scrap","config":{"queries":["boulangerie","plombier"],"zones":["` + zone + `"],"scrap_mode":"ultra"}},
{"id":"o","type":"sort","config":{"sort_by":"rating","direction":"desc","top_n":10}}],"edges":[{"from":"s","to":"o"}]}}`
	}
	setText := func(v string) {
		t.Helper()
		b.eval(fmt.Sprintf(`(() => { const e = document.querySelector("#envelope"); e.value = %q; e.dispatchEvent(new Event("input", {bubbles: true})); return ""; })()`, v))
	}
	setText("pas du json")
	b.press("main form", "Vérifier")
	b.waitText("#envelope-check", "pas du JSON")
	setText(envelope("Villeurbane"))
	b.press("main form", "Vérifier")
	b.waitText("#envelope-check", "Zones")
	b.check("pipeline refused")
	setText(envelope("France"))
	b.press("main form", "Vérifier")
	b.waitText("#envelope-check", "Pipeline valide")
	b.press("main form", "Créer et lancer")
	b.waitTitle("Boulangers et plombiers")
	if n := b.eval(`String(document.querySelectorAll("svg.dag g.node").length)`); n != "2" {
		t.Errorf("%s stages drawn, want 2", n)
	}
	b.check("pipeline")
	b.phone("pipeline")
	pipelinePage := b.eval(`location.pathname`)
	// The jobs list follows the running scrape live: its count of rows
	// grows on the page, which is not read again.
	b.click(`header a[href="/jobs"]`)
	b.waitTitle("Jobs")
	b.waitText(`main table tbody tr [data-fact="status"]`, "en cours")
	b.eval(`(() => { window.__listLoads = performance.getEntriesByType("resource").filter(r => r.name.endsWith("/api/jobs")).length;
  window.__rows0 = Number(document.querySelector('main table tbody tr [data-fact="results"]').textContent); return ""; })()`)
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`Number(document.querySelector('main table tbody tr [data-fact="results"]').textContent) > window.__rows0`,
		chromedp.WithPollingTimeout(time.Minute))); err != nil {
		t.Fatalf("the list never showed the running job's rows: %v", err)
	}
	if again := b.eval(`String(performance.getEntriesByType("resource").filter(r => r.name.endsWith("/api/jobs")).length - window.__listLoads)`); again != "0" {
		t.Errorf("the list was read again %s times: the stream should carry the progress", again)
	}
	b.check("jobs while one runs")
	b.open(pipelinePage, "Boulangers et plombiers")
	// The scrape stage's job, cancelled once it has rows: the pipeline
	// pauses on it.
	b.waitText(`main .stages li[data-node="s"]`, "Job")
	b.do(chromedp.Click(chromedp.CSS(`main .stages li[data-node="s"] a`)))
	b.waitText(`main [data-fact="results"]`, "")
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`Number(document.querySelector('main [data-fact="results"]').textContent) > 0`,
		chromedp.WithPollingTimeout(time.Minute))); err != nil {
		t.Fatalf("no row: %v", err)
	}
	b.press("main .actions", "Annuler")
	b.waitText(`main [data-fact="status"]`, "annulé")
	b.do(chromedp.NavigateBack())
	b.waitTitle("Boulangers et plombiers")
	b.waitText(`main .stages li[data-node="s"]`, "Continuer")
	b.press(`main .stages li[data-node="s"]`, "Continuer")
	b.waitText(`main [data-fact="pipeline-status"]`, "terminé")
	b.waitText("main .actions", "Télécharger le résultat")
}

// TestConsoleVeille: a person watches a done scrape from its page; after
// the world moved a month and a run was computed, the watch's page shows
// the run's counts, its samples of changes side by side and its reputation
// signals with their downloads; the list pauses and resumes the watch.
func TestConsoleVeille(t *testing.T) {
	e := apptest.Start(t)
	c, b := signedIn(t, e, "veille-console@example.org")
	admin := e.NewClient()
	admin.Signup(apptest.AdminEmail, fixturePassword)
	src := scrapeDone(t, c, "Villeurbanne")
	b.open("/jobs/"+src, "boulangerie")
	b.fill("veille_name", "Boulangeries de Villeurbanne")
	b.fill("frequency_days", "1")
	b.press("main form.watch", "Surveiller")
	b.waitTitle("Boulangeries de Villeurbanne")
	b.waitText("main table", "référence")
	id := strings.TrimPrefix(b.eval(`location.pathname`), "/veille/")

	admin.Do("POST", "/api/admin/sim/advance", map[string]any{"days": 30}).Must(t, 200)
	admin.Do("POST", "/api/admin/veille/"+id+"/run", nil).Must(t, 200)
	run := tickUntilRun(t, e, c, id)
	b.open("/veille/"+id, "Boulangeries de Villeurbanne")
	b.waitText("main #run", "Changements")
	if n := b.eval(`String(document.querySelectorAll('[data-bucket="new"] li').length)`); n == "0" {
		t.Errorf("no new place shown (run %v)", run)
	}
	if n := b.eval(`String(document.querySelectorAll("table.changes tbody tr").length)`); n == "0" {
		t.Error("no change shown side by side")
	}
	b.check("veille run")
	b.phone("veille run")
	got := b.eval(`(async () => { const a = [...document.querySelectorAll(".downloads a")].find(a => a.textContent === "CSV"); const r = await fetch(a.href); return r.status + " " + r.headers.get("Content-Type"); })()`)
	if !strings.HasPrefix(got, "200 text/csv") {
		t.Errorf("signals download: %s", got)
	}
	b.click(`header a[href="/veille"]`)
	b.waitTitle("Veille")
	b.click(`main table button[aria-label^="Mettre en pause"]`)
	b.waitText("main table", "en pause")
	b.check("veille list")
	b.click(`main table button[aria-label^="Reprendre"]`)
	b.waitText("main table", "active")
}

// TestConsoleCaptcha: with a captcha configured, the signup page loads the
// provider's widget (here a stand-in speaking Turnstile's render API, and
// its siteverify), allowed by the page's policy; the person can sign up
// once the widget gives its token, which the service verifies.
func TestConsoleCaptcha(t *testing.T) {
	var mu sync.Mutex
	var verified []string
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api.js":
			w.Header().Set("Content-Type", "text/javascript")
			io.WriteString(w, `window.turnstile = {render(el, o) {
  const b = document.createElement("button"); b.type = "button"; b.textContent = "Je suis humain";
  b.onclick = () => o.callback("token-" + o.sitekey); el.appendChild(b); return "w1"; }};`)
		case "/siteverify":
			r.ParseForm()
			mu.Lock()
			verified = append(verified, r.Form.Get("response"))
			mu.Unlock()
			io.WriteString(w, fmt.Sprintf(`{"success": %v}`, r.Form.Get("response") == "token-site-key-1"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer provider.Close()
	e := apptest.Start(t, apptest.WithCaptcha(provider.URL+"/siteverify", "secret-1"), apptest.WithConfig(func(c *config.Config) {
		c.CaptchaSiteKey, c.CaptchaScript = "site-key-1", provider.URL+"/api.js"
	}))
	b := newBrowser(t, e)
	b.open("/signup", "Créer un compte")
	b.fill("email", "human@example.org")
	b.fill("password", "s3cret-pass")
	b.fill("invitation_code", apptest.Code)
	b.click(`main [name=accept_responsibility]`)
	b.waitText("main form", "Je suis humain")
	if d := b.eval(`String(document.querySelector("main button[type=submit]").disabled)`); d != "true" {
		t.Error("signup open before the captcha's token")
	}
	b.press("main form", "Je suis humain")
	b.click(`main button[type=submit]`)
	b.waitTitle("Compte")
	b.check("signup with a captcha")
	mu.Lock()
	defer mu.Unlock()
	if len(verified) != 1 || verified[0] != "token-site-key-1" {
		t.Errorf("siteverify saw %v", verified)
	}
}
