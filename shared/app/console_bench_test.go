package app_test

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/prospectdata/svc/shared/app/apptest"
	"github.com/prospectdata/svc/shared/console"
)

// BenchmarkConsoleJobsPage loads the jobs page of a signed-in person with
// 20 jobs in headless Chromium, cache off: each iteration is one load until
// the list is drawn (the time a person waits to use the page); it reports
// the bytes the browser received for the page (transferred, compressed) and
// those of its script. Run it with
// go test -run '^$' -bench ConsoleJobsPage -benchtime 10x ./shared/app.
func BenchmarkConsoleJobsPage(b *testing.B) {
	exe, err := exec.LookPath("chromium")
	if err != nil {
		b.Skip("no Chromium installed")
	}
	if con, err := console.New(console.Options{}); err != nil || !con.Built() {
		b.Skip("the console is not built (make console)")
	}
	e := apptest.Start(b)
	const email, password = "bench-console@example.org", "s3cret-pass"
	c := e.NewClient()
	c.Signup(email, password)
	c.Verify(email)
	// One at a time: a person runs 5 jobs at most at once.
	for range 20 {
		id := c.Do("POST", "/api/jobs", map[string]any{"queries": []string{"boulangerie"}, "zones": []string{"Villeurbanne"}, "scrap_mode": "fast"}).Must(b, 200).JSON()["id"].(string)
		for end := time.Now().Add(time.Minute); c.Do("GET", "/api/jobs/"+id, nil).Must(b, 200).JSON()["status"] != "done"; {
			if time.Now().After(end) {
				b.Fatalf("job %s never done", id)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	var mu sync.Mutex
	var total, script float64
	types := map[network.RequestID]network.ResourceType{}
	ctx, cancel := chromedp.NewContext(alloc, chromedp.WithListener(func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventResponseReceived:
			types[ev.RequestID] = ev.Type
		case *network.EventLoadingFinished:
			total += ev.EncodedDataLength
			if types[ev.RequestID] == network.ResourceTypeScript {
				script += ev.EncodedDataLength
			}
		}
	}))
	defer cancel()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		b.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		b.Fatal(err)
	}
	drawn := chromedp.WaitVisible(chromedp.CSS(`main table tbody tr`))
	login := []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(e.Server.URL + "/login"),
		chromedp.SendKeys(chromedp.CSS(`[name=email]`), email),
		chromedp.SendKeys(chromedp.CSS(`[name=password]`), password),
		chromedp.Click(chromedp.CSS(`main button[type=submit]`)),
		drawn,
	}
	if err := chromedp.Do(ctx, login...); err != nil {
		b.Fatal(err)
	}
	mu.Lock()
	total, script = 0, 0
	mu.Unlock()
	start := time.Now()
	for b.Loop() {
		if err := chromedp.Do(ctx, chromedp.Navigate(e.Server.URL+"/jobs"), drawn); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	b.ReportMetric(float64(elapsed.Milliseconds())/float64(b.N), "ms-to-list")
	b.ReportMetric(total/float64(b.N)/1024, "KB-transferred")
	b.ReportMetric(script/float64(b.N)/1024, "KB-script")
	if os.Getenv("SVC_TEST_LOG") != "" {
		b.Logf("%d loads in %v", b.N, elapsed)
	}
}
