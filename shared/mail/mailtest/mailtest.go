// Package mailtest is an in-memory mail sender for tests: it keeps the
// messages the services send and reads the tokens of their links.
package mailtest

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/prospectdata/svc/shared/mail"
)

// Outbox keeps the messages sent; safe for concurrent senders.
type Outbox struct {
	mu   sync.Mutex
	msgs []mail.Message
}

// Send keeps the message.
func (o *Outbox) Send(_ context.Context, m mail.Message) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.msgs = append(o.msgs, m)
	return nil
}

// Token is the token of the link in the last message of kind ("verify",
// "reset"...) sent to the address; the test fails when there is none.
func (o *Outbox) Token(t testing.TB, to, kind string) string {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := len(o.msgs) - 1; i >= 0; i-- {
		m := o.msgs[i]
		if m.To != to || m.Kind != kind {
			continue
		}
		_, rest, ok := strings.Cut(m.Text, "token=")
		if !ok {
			break
		}
		tok, _, _ := strings.Cut(rest, "\n")
		v, err := url.QueryUnescape(strings.TrimSpace(tok))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	t.Fatalf("no %s mail with a link to %s", kind, to)
	return ""
}
