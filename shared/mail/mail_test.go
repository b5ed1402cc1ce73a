package mail

import (
	"bytes"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"
	"time"
)

func TestFormatIsRFC5322(t *testing.T) {
	m := Message{
		From: "Service <no-reply@svc.test>", To: "élodie@example.org", Subject: "Confirme ton adresse é",
		Text: "Bonjour,\nvoici un lien : https://svc.test/verify-email?token=abc=def " + strings.Repeat("x", 120) + "\n",
	}
	raw, err := Format(m, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > 998 {
			t.Fatalf("line over 998 octets")
		}
	}
	parsed, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
	if err != nil || subject != m.Subject {
		t.Errorf("subject %q (%v)", subject, err)
	}
	if d, err := parsed.Header.Date(); err != nil || d.Year() != 2026 {
		t.Errorf("date %v (%v)", d, err)
	}
	body, err := io.ReadAll(parsed.Body)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ReplaceAll(string(body), "\r\n", "\n"); got != m.Text {
		t.Errorf("body round trip:\n%q\n%q", got, m.Text)
	}
	if !strings.Contains(string(raw), "https://svc.test/verify-email?token=abc=def") {
		t.Error("the link is not verbatim in the raw message")
	}

	// A line too long for 8bit goes out quoted-printable and decodes back.
	long := Message{From: m.From, To: m.To, Subject: "x", Text: strings.Repeat("é", 600) + "\n"}
	raw, err = Format(long, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	parsed, _ = mail.ReadMessage(bytes.NewReader(raw))
	if parsed.Header.Get("Content-Transfer-Encoding") != "quoted-printable" {
		t.Fatalf("encoding %q", parsed.Header.Get("Content-Transfer-Encoding"))
	}
	body, _ = io.ReadAll(quotedprintable.NewReader(parsed.Body))
	if strings.ReplaceAll(string(body), "\r\n", "\n") != long.Text {
		t.Error("quoted-printable body does not round trip")
	}
	if !strings.HasSuffix(parsed.Header.Get("Message-Id"), "@svc.test>") {
		t.Errorf("message id %q", parsed.Header.Get("Message-Id"))
	}
}

func TestFormatRefusesBadAddresses(t *testing.T) {
	for _, m := range []Message{{From: "nope", To: "a@b.c"}, {From: "a@b.c", To: "x\r\nBcc: evil@b.c"}} {
		if _, err := Format(m, time.Now()); err == nil {
			t.Errorf("%+v accepted", m)
		}
	}
}
