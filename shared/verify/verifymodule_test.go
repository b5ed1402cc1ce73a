package verify_test

import (
	"context"
	"slices"
	"testing"

	"github.com/prospectdata/svc/shared/enrich"
	"github.com/prospectdata/svc/shared/verify"
)

func TestModule(t *testing.T) {
	m := enrich.VerifyModule(verify.LabChecker(t, verify.Options{}), "dns+smtp")
	if m.Slug() != "verify_emails" || !slices.Equal(m.Columns(), []string{"status", "category"}) ||
		!slices.Equal(m.Reads(), []string{"email"}) || enrich.SourceOf(m) != "dns+smtp" {
		t.Fatalf("module %s %v %v %s", m.Slug(), m.Columns(), m.Reads(), enrich.SourceOf(m))
	}
	tests := []struct {
		email        string
		values       []string
		found, unrch bool
	}{
		{"", []string{"", ""}, false, false},
		{"   ", []string{"", ""}, false, false},
		{"alice@known.test", []string{"valid", "deliverable"}, true, false},
		{"contact@known.test", []string{"valid", "role"}, true, false},
		{"nobody@known.test", []string{"invalid", "undeliverable"}, true, false},
		{"x@catchall.test", []string{"risky", "catch_all"}, true, false},
		{"not an email", []string{"invalid", "syntax"}, true, false},
		// unknown is a verdict: a value, neither found nor unreachable.
		{"x@grey.test", []string{"unknown", "greylisted"}, false, false},
		{"x@hang.test", []string{"unknown", "timeout"}, false, false},
		{"x@servfail.test", []string{"unknown", "dns_error"}, false, false},
	}
	for _, tt := range tests {
		r, err := m.Run(context.Background(), &enrich.Env{}, enrich.Input{"email": tt.email, "nom": "x"})
		if err != nil {
			t.Fatalf("%q: %v", tt.email, err)
		}
		if !slices.Equal(r.Values, tt.values) || r.Found != tt.found || r.Unreachable != tt.unrch {
			t.Errorf("%q: %+v, want %v found=%v", tt.email, r, tt.values, tt.found)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Run(ctx, &enrich.Env{}, enrich.Input{"email": "b@known.test"}); err == nil {
		t.Error("a cancelled context gave no error")
	}
	if enrich.VerifyModule(verify.New(verify.Options{SkipSMTP: true}), "dns").(enrich.Sourced).Source() != "dns" {
		t.Error("source")
	}
}

func TestProxyDialer(t *testing.T) {
	if _, err := verify.ProxyDialer("socks5://user:pw@127.0.0.1:1080"); err != nil {
		t.Errorf("socks5: %v", err)
	}
	for _, bad := range []string{"http://127.0.0.1:3128", "socks5://", "::"} {
		if _, err := verify.ProxyDialer(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
