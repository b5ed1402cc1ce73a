// Command webhook-receiver is a development receiver of the service's
// webhooks: it listens HTTPS on a loopback address with a self-signed
// certificate made at start, verifies each delivery's signature as
// docs/webhooks.md tells receivers to (webhooks.Verify), prints each event
// and answers 204; a delivery whose signature does not verify is printed
// and answered 401. The local server delivers to it only under its
// development switch (SVC_DEV_LOOPBACK_WEBHOOKS=1; docs/webhooks.md,
// "Seeing a signed delivery locally").
//
//	go run ./tools/webhook-receiver -secret whsec_…
package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/prospectdata/svc/shared/webhooks"
)

// SecretEnv is the variable read when -secret is not given.
const SecretEnv = "SVC_WEBHOOK_SECRET"

// maxBody bounds a delivery's body, as docs/webhooks.md suggests receivers
// do (events are far smaller).
const maxBody = 1 << 20

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "webhook-receiver:", err)
		os.Exit(2)
	}
}

// run parses the flags, listens and serves until ctx ends.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("webhook-receiver", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8443", "loopback address and port to listen on (127.0.0.0/8, [::1] or localhost)")
	secret := fs.String("secret", "", "the endpoint's secret, shown once when the webhook is created (default $"+SecretEnv+")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *secret == "" {
		*secret = getenv(SecretEnv)
	}
	if *secret == "" {
		return fmt.Errorf("no secret: pass -secret or set %s to the secret the webhook's creation answered", SecretEnv)
	}
	if err := checkLoopback(*addr); err != nil {
		return err
	}
	cert, err := selfSigned(time.Now())
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "webhook-receiver: listening on https://%s/ (self-signed certificate for 127.0.0.1, ::1 and localhost)\n", ln.Addr())
	fmt.Fprintf(stdout, "webhook-receiver: create the webhook with {\"url\":\"https://%s/hook\", ...}; Ctrl-C stops\n", ln.Addr())
	return serve(ctx, ln, cert, newReceiver(*secret, stdout), stderr)
}

// checkLoopback refuses an address off the loopback interface: the
// receiver is a development tool and its certificate is trusted by
// nobody, so it listens where only this machine reaches it.
func checkLoopback(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %w", addr, err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil || port == "" {
		return fmt.Errorf("-addr %q: no valid port", addr)
	}
	if host == "localhost" {
		return nil
	}
	a, err := netip.ParseAddr(host)
	if err != nil || !a.IsLoopback() || a.Is4In6() {
		return fmt.Errorf("-addr %q: not a loopback address (127.0.0.0/8, [::1] or localhost)", addr)
	}
	return nil
}

// selfSigned makes the receiver's certificate: ECDSA P-256, for the
// loopback addresses and localhost, valid from an hour ago for 30 days.
func selfSigned(now time.Time) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certificate serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "webhook-receiver (development)"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(30 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// serve answers HTTPS on ln until ctx ends, then lets requests in flight
// finish (5 s at most).
func serve(ctx context.Context, ln net.Listener, cert tls.Certificate, h http.Handler, stderr io.Writer) error {
	srv := &http.Server{
		Handler:           h,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(slog.NewTextHandler(stderr, nil).WithGroup("http"), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeTLS(ln, "", "") }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return err
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// receiver verifies and prints deliveries. It remembers the delivery ids
// it handled, as a real receiver should (deliveries are at least once), to
// say when one comes again.
type receiver struct {
	secret string
	mu     sync.Mutex
	out    io.Writer
	seen   map[string]bool
}

func newReceiver(secret string, out io.Writer) *receiver {
	return &receiver{secret: secret, out: out, seen: map[string]bool{}}
}

// event is a delivery's body (docs/webhooks.md, "What a receiver gets").
type event struct {
	ID        int64          `json:"id"`
	Type      string         `json:"type"`
	CreatedAt string         `json:"created_at"`
	Data      map[string]any `json:"data"`
}

func (rc *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "deliveries are POSTed", http.StatusMethodNotAllowed)
		return
	}
	delivery := r.Header.Get("X-Svc-Delivery")
	// The raw bytes, as received: the signature is over them, not over a
	// re-encoding of the parsed JSON.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		rc.printf("REJECTED %s: unreadable body (%v)\n", or(delivery, "(no X-Svc-Delivery)"), err)
		http.Error(w, "unreadable body", http.StatusBadRequest)
		return
	}
	if !webhooks.Verify(rc.secret, body, r.Header.Get("X-Svc-Signature")) {
		rc.printf("REJECTED %s: bad signature (X-Svc-Signature %q does not match the body under this secret)\n",
			or(delivery, "(no X-Svc-Delivery)"), r.Header.Get("X-Svc-Signature"))
		http.Error(w, "bad signature", http.StatusUnauthorized)
		return
	}
	var ev event
	if err := json.Unmarshal(body, &ev); err != nil {
		// Signed by the service yet unreadable here: answered 2xx all the
		// same, or the service would retry it in vain.
		rc.printf("event (unreadable JSON: %v) %s, signature verified\n", err, delivery)
		w.WriteHeader(http.StatusNoContent)
		return
	}
	rc.mu.Lock()
	again := rc.seen[delivery]
	rc.seen[delivery] = true
	rc.mu.Unlock()
	repeat := ""
	if again {
		repeat = " (again: already handled, deduplicated by X-Svc-Delivery)"
	}
	rc.printf("event %d %s %s at %s, signature verified%s\n  %s\n", ev.ID, ev.Type, delivery, ev.CreatedAt, repeat, summary(ev.Data))
	w.WriteHeader(http.StatusNoContent)
}

func (rc *receiver) printf(format string, args ...any) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	fmt.Fprintf(rc.out, time.Now().Format("15:04:05 ")+format, args...)
}

// summaryKeys are the data fields worth a glance, in the order shown
// (the spec's event data shapes: job.*, pipeline.*, veille.run_completed).
var summaryKeys = []string{
	"id", "run_id", "veille_id", "name", "veille_name", "job_type", "status", "job_id", "results_count", "error_count",
	"total_count", "new_count", "removed_count", "modified_count", "error_message", "download_url",
}

// summary is one line of an event's data: its notable fields present and
// not null, key=value.
func summary(data map[string]any) string {
	var parts []string
	for _, k := range summaryKeys {
		v, ok := data[k]
		if !ok || v == nil || v == "" {
			continue
		}
		s := fmt.Sprint(v)
		if f, isNum := v.(float64); isNum {
			s = fmt.Sprint(int64(f))
			if float64(int64(f)) != f {
				s = fmt.Sprint(f)
			}
		}
		parts = append(parts, k+"="+s)
	}
	if len(parts) == 0 {
		return "(no data)"
	}
	return strings.Join(parts, " ")
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
