// Package mail is the port through which the service sends mail (welcome,
// verification, password reset), and the RFC 5322 formatting every sender
// shares. Locally mail lands as .eml files (mail/outbox); on AWS it goes
// through SES.
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"time"
)

// Message is one plain-text mail.
type Message struct {
	From    string
	To      string
	Subject string
	Text    string
	// Kind names the mail for logs and file names (welcome, verify, reset).
	Kind string
}

// Sender delivers messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// Format renders m as an RFC 5322 message with a UTF-8 quoted-printable body.
func Format(m Message, now time.Time) ([]byte, error) {
	from, err := mail.ParseAddress(m.From)
	if err != nil {
		return nil, fmt.Errorf("mail: from %q: %w", m.From, err)
	}
	to, err := mail.ParseAddress(m.To)
	if err != nil {
		return nil, fmt.Errorf("mail: to %q: %w", m.To, err)
	}
	var id [12]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("mail: message id: %w", err)
	}
	domain := from.Address[strings.LastIndexByte(from.Address, '@')+1:]
	var b bytes.Buffer
	header := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	header("From", from.String())
	header("To", to.String())
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Date", now.UTC().Format(time.RFC1123Z))
	header("Message-ID", fmt.Sprintf("<%s@%s>", hex.EncodeToString(id[:]), domain))
	header("MIME-Version", "1.0")
	header("Content-Type", `text/plain; charset="utf-8"`)
	body := strings.ReplaceAll(strings.ReplaceAll(m.Text, "\r\n", "\n"), "\n", "\r\n")
	// 8bit keeps links verbatim in the raw message (a person reading an .eml
	// copies them as they are); quoted-printable only when a line is too long
	// for 8bit (RFC 5322 caps lines at 998 octets).
	if maxLine(body) <= 998 {
		header("Content-Transfer-Encoding", "8bit")
		b.WriteString("\r\n")
		b.WriteString(body)
		return b.Bytes(), nil
	}
	header("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(body)); err != nil {
		return nil, fmt.Errorf("mail: body: %w", err)
	}
	if err := qp.Close(); err != nil {
		return nil, fmt.Errorf("mail: body: %w", err)
	}
	return b.Bytes(), nil
}

func maxLine(s string) int {
	longest := 0
	for line := range strings.SplitSeq(s, "\r\n") {
		longest = max(longest, len(line))
	}
	return longest
}
