package webhooks_test

import (
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/webhooks"
)

// TestVerify: the exported check agrees with the documentation's snippet
// on every case a receiver meets: the signature of the exact bytes under
// the right secret verifies, anything else does not.
func TestVerify(t *testing.T) {
	const secret = "whsec_0123456789abcdef"
	body := []byte(`{"id":41,"type":"job.completed","created_at":"2026-11-24 10:14:00","data":{"id":"lj4kkc7hv66vg7gy"}}`)
	good := webhooks.Sign(secret, body)
	for _, tt := range []struct {
		name   string
		secret string
		body   []byte
		header string
		want   bool
	}{
		{"good", secret, body, good, true},
		{"other secret", secret + "x", body, good, false},
		{"body re-encoded", secret, []byte(strings.ReplaceAll(string(body), ",", ", ")), good, false},
		{"body with a trailing newline", secret, append(append([]byte{}, body...), '\n'), good, false},
		{"no header", secret, body, "", false},
		{"hex without its prefix", secret, body, strings.TrimPrefix(good, "sha256="), false},
		{"upper-case hex", secret, body, "sha256=" + strings.ToUpper(strings.TrimPrefix(good, "sha256=")), false},
		{"truncated", secret, body, good[:len(good)-2], false},
		{"another scheme", secret, body, strings.Replace(good, "sha256=", "sha1=", 1), false},
		{"empty body, its own signature", secret, nil, webhooks.Sign(secret, nil), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := webhooks.Verify(tt.secret, tt.body, tt.header); got != tt.want {
				t.Errorf("Verify = %v, want %v", got, tt.want)
			}
			if doc := verified(tt.secret, tt.body, tt.header); doc != tt.want {
				t.Errorf("the documentation's snippet says %v, want %v", doc, tt.want)
			}
		})
	}
}
