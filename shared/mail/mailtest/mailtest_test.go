package mailtest

import (
	"context"
	"testing"

	"github.com/prospectdata/svc/shared/mail"
)

// TestToken: the token of the last link of the kind to the address, its
// escapes undone.
func TestToken(t *testing.T) {
	o := &Outbox{}
	ctx := context.Background()
	for _, m := range []mail.Message{
		{To: "a@example.org", Kind: "verify", Text: "Open https://x/verify?token=old\n"},
		{To: "b@example.org", Kind: "verify", Text: "Open https://x/verify?token=other\n"},
		{To: "a@example.org", Kind: "reset", Text: "Open https://x/reset?token=reset\n"},
		{To: "a@example.org", Kind: "verify", Text: "Open https://x/verify?token=a%2Bb\nThanks"},
	} {
		if err := o.Send(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ to, kind, want string }{
		{"a@example.org", "verify", "a+b"},
		{"a@example.org", "reset", "reset"},
		{"b@example.org", "verify", "other"},
	} {
		if got := o.Token(t, tt.to, tt.kind); got != tt.want {
			t.Errorf("Token(%s, %s) = %q, want %q", tt.to, tt.kind, got, tt.want)
		}
	}
}
