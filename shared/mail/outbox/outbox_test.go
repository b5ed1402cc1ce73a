package outbox_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	mailpkg "github.com/prospectdata/svc/shared/mail"
	"github.com/prospectdata/svc/shared/mail/outbox"
)

// TestSend: each message is one RFC 5322 file named by time, sequence,
// kind and recipient (made safe for a file name), in order within a clock
// tick; no temporary file is left; the log says where.
func TestSend(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox") // made by the first Send
	var logs bytes.Buffer
	at := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	o := &outbox.Outbox{Dir: dir, Log: slog.New(slog.NewTextHandler(&logs, nil)), Now: func() time.Time { return at }}
	msgs := []mailpkg.Message{
		{From: "Prospect <noreply@example.org>", To: "Alice@Example.org", Subject: "Bienvenue", Text: "Bonjour Alice", Kind: "welcome"},
		{From: "noreply@example.org", To: "bob+tag@example.org", Subject: "Vérifie ton adresse", Text: "token: abc", Kind: "verify/email"},
	}
	for _, m := range msgs {
		if err := o.Send(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"20261128T093000.000000000-000001-welcome-alice_example.org.eml",
		"20261128T093000.000000000-000002-verify_email-bob_tag_example.org.eml",
	}
	if len(entries) != len(want) {
		t.Fatalf("files %v, want %v", entries, want)
	}
	for i, e := range entries {
		if e.Name() != want[i] {
			t.Errorf("file %d is %q, want %q", i, e.Name(), want[i])
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m, err := mail.ReadMessage(f)
		if err != nil {
			t.Fatalf("%s is not a mail: %v", e.Name(), err)
		}
		body, _ := io.ReadAll(m.Body)
		f.Close()
		if to, _ := mail.ParseAddress(m.Header.Get("To")); to == nil || !strings.EqualFold(to.Address, msgs[i].To) {
			t.Errorf("%s: To %q", e.Name(), m.Header.Get("To"))
		}
		if !strings.Contains(string(body), msgs[i].Text) {
			t.Errorf("%s: body %q", e.Name(), body)
		}
	}
	if !strings.Contains(logs.String(), "mail written to outbox") || !strings.Contains(logs.String(), want[1]) {
		t.Errorf("log %q", logs.String())
	}
}

// TestSendRefusesBadAddresses: a message that cannot be formatted writes
// no file.
func TestSendRefusesBadAddresses(t *testing.T) {
	dir := t.TempDir()
	o := &outbox.Outbox{Dir: dir, Log: slog.New(slog.DiscardHandler), Now: time.Now}
	for _, m := range []mailpkg.Message{
		{From: "not an address", To: "a@example.org", Kind: "welcome"},
		{From: "noreply@example.org", To: "", Kind: "welcome"},
	} {
		if err := o.Send(context.Background(), m); err == nil {
			t.Errorf("%+v was sent", m)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
}
