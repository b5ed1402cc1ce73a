package onaws_test

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
)

// BenchmarkInit measures each function's init: from the start of its
// bootstrap binary (built as make build builds it, for this machine) to
// its first poll of the Runtime API for an event, which Lambda reports as
// the Init Duration. The environment is the stack's, every resource
// named (nothing is called during init but the secrets, and none is
// given here). One cold start per iteration; init-ms is the median.
//
//	go test -run '^$' -bench Init -benchtime 5x ./shared/app/onaws
func BenchmarkInit(b *testing.B) {
	var fns []string
	for _, g := range api.Groups() {
		fns = append(fns, g.Name)
	}
	for _, w := range app.Workers() {
		fns = append(fns, w.Name)
	}
	slices.Sort(fns)
	for _, fn := range fns {
		b.Run(fn, func(b *testing.B) {
			bin := buildBootstrap(b, fn)
			var inits []float64
			for b.Loop() {
				inits = append(inits, coldStart(b, bin).Seconds()*1000)
			}
			sort.Float64s(inits)
			b.ReportMetric(inits[len(inits)/2], "init-ms")
			if fi, err := os.Stat(bin); err == nil {
				b.ReportMetric(float64(fi.Size())/(1<<20), "binary-MiB")
			}
		})
	}
}

// coldStart runs bin until its first poll for an event and returns how
// long that took.
func coldStart(b *testing.B, bin string) time.Duration {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	polled := make(chan time.Time, 1)
	initErr := make(chan string, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", func(w http.ResponseWriter, r *http.Request) {
		select {
		case polled <- time.Now():
		default:
		}
		<-r.Context().Done()
	})
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", func(w http.ResponseWriter, r *http.Request) {
		var buf [512]byte
		n, _ := r.Body.Read(buf[:])
		initErr <- string(buf[:n])
		w.WriteHeader(http.StatusAccepted)
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()

	env := append(os.Environ(), "AWS_LAMBDA_RUNTIME_API="+ln.Addr().String(),
		"AWS_LAMBDA_FUNCTION_NAME=bench", "AWS_LAMBDA_FUNCTION_MEMORY_SIZE=1024",
		"AWS_REGION=eu-west-3", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test",
		"SVC_SESSION_SECRET=0123456789abcdef0123456789abcdefXYZ", "SVC_BASE_URL=https://api.example.test",
		"SVC_BUCKET=files", onaws.StateMachineEnv+"=arn:aws:states:eu-west-3:000000000000:stateMachine:svc-pipelines")
	for _, s := range app.Schemas() {
		env = append(env, onaws.EnvName("TABLE", s.Name)+"="+s.Name)
	}
	for _, q := range app.Queues() {
		env = append(env, onaws.EnvName("QUEUE", q.Name)+"=http://127.0.0.1:1/000000000000/"+q.Name)
	}
	cmd := exec.Command(bin)
	cmd.Env = env
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	select {
	case at := <-polled:
		return at.Sub(start)
	case msg := <-initErr:
		b.Fatalf("%s: init error %s", bin, msg)
	case <-time.After(60 * time.Second):
		b.Fatalf("%s: no poll within 60 s", bin)
	}
	return 0
}
