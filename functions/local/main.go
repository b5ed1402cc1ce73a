// Command local is the all-in-one local server: every route group on one
// net/http server, embedded bbolt storage and mail written to the outbox.
// It only wires adapters; the service lives in shared/.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/blob/dir"
	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/console"
	"github.com/prospectdata/svc/shared/mail/outbox"
	qbolt "github.com/prospectdata/svc/shared/queue/bolt"
	"github.com/prospectdata/svc/shared/store/bolt"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "local:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	cfg, err := config.FromEnv(os.Getenv)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		return fmt.Errorf("SVC_LOG_LEVEL: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return err
	}
	secret, err := cfg.SessionKey()
	if err != nil {
		return err
	}
	db, err := bolt.Open(filepath.Join(cfg.DataDir, "tables.db"), app.Schemas())
	if err != nil {
		return err
	}
	defer db.Close()
	q, err := qbolt.Open(filepath.Join(cfg.DataDir, "queue.db"), app.Queues())
	if err != nil {
		return err
	}
	defer q.Close()
	files, err := dir.New(filepath.Join(cfg.DataDir, "files"))
	if err != nil {
		return err
	}
	guard, err := testGuard()
	if err != nil {
		return err
	}
	dev, err := config.LocalDevFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	// Listening before the app is built lets the webhook guard of the
	// development switch refuse the port actually bound (SVC_ADDR may say
	// :0); connections wait in the backlog until Serve.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	a, err := app.New(cfg, app.Adapters{
		Guard:         guard,
		WebhookGuard:  webhookGuard(cfg, dev, ln.Addr(), log),
		DB:            db,
		Mail:          &outbox.Outbox{Dir: filepath.Join(cfg.DataDir, "outbox"), Log: log, Now: time.Now},
		SessionSecret: secret,
		Now:           time.Now,
		Log:           log,
		HTTPClient:    &http.Client{Timeout: 10 * time.Second},
		Queue:         q,
		Files:         files,
		// Short, so that the tasks of a killed server come back soon after
		// it starts again (a graceful stop hands them back at once).
		TaskVisibility: 30 * time.Second,
		// A delivery's post takes 10 s at most: a killed server's
		// deliveries come back 20 s after it stopped.
		DeliveryVisibility: 20 * time.Second,
	})
	if err != nil {
		return err
	}
	// The job engine's workers run beside the server until shutdown.
	workCtx, stopWork := context.WithCancel(context.Background())
	defer stopWork()
	workDone := make(chan error, 1)
	go func() { workDone <- a.Work(workCtx) }()
	to, err := serverTimeouts(os.Getenv)
	if err != nil {
		return err
	}
	con, err := console.New(console.Options{Tiles: cfg.ConsoleTiles, CaptchaSiteKey: cfg.CaptchaSiteKey, CaptchaScript: cfg.CaptchaScript})
	if err != nil {
		return fmt.Errorf("the console (SVC_CONSOLE_TILES, SVC_CAPTCHA_SITE_KEY, SVC_CAPTCHA_SCRIPT): %w", err)
	}
	srv := newServer(console.WithAPI(a.Server, con), to, log)
	log.Info("listening", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "data_dir", cfg.DataDir,
		"invitation_codes", len(cfg.InvitationCodes))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprint(os.Stderr, banner(cfg, dev, ln.Addr().String()))
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	shutCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	// In-flight tasks go back to the queue: the next start finishes them.
	stopWork()
	if err := <-workDone; err != nil && !errors.Is(err, context.Canceled) {
		log.Warn("job workers stopped", "err", err)
	}
	if err := q.Close(); err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}
