// Package outbox is the local mail sender: each message becomes an RFC 5322
// .eml file in a directory ($SVC_DATA_DIR/outbox), and a log line says where.
package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prospectdata/svc/shared/mail"
)

// Outbox writes messages to Dir.
type Outbox struct {
	Dir string
	Log *slog.Logger
	Now func() time.Time

	seq atomic.Int64 // orders messages written within one clock tick
}

var unsafeName = regexp.MustCompile(`[^a-zA-Z0-9._-]+`)

// Send writes m as <time>-<seq>-<kind>-<recipient>.eml. The file is written under a
// temporary name and renamed so a reader never sees half a message.
func (o *Outbox) Send(ctx context.Context, m mail.Message) error {
	now := o.Now()
	raw, err := mail.Format(m, now)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	name := fmt.Sprintf("%s-%06d-%s-%s.eml", now.UTC().Format("20060102T150405.000000000"), o.seq.Add(1),
		unsafeName.ReplaceAllString(m.Kind, "_"), unsafeName.ReplaceAllString(strings.ToLower(m.To), "_"))
	tmp, err := os.CreateTemp(o.Dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	if _, err := tmp.Write(raw); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("outbox: write: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("outbox: close: %w", err)
	}
	path := filepath.Join(o.Dir, name)
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("outbox: rename: %w", err)
	}
	o.Log.InfoContext(ctx, "mail written to outbox", "kind", m.Kind, "to", m.To, "file", path)
	return nil
}
