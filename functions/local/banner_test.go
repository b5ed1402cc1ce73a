package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/config"
)

// TestBanner: the start banner says what the configuration says, and
// nothing it does not: the URL, the invitation codes or that signup is
// closed, the admins, the outbox, the map provider, the data sources, the
// webhook switch, the docs.
func TestBanner(t *testing.T) {
	outbox, _ := filepath.Abs(filepath.Join("/srv/svc-data", "outbox"))
	for _, tt := range []struct {
		name         string
		env          map[string]string
		dev          config.LocalDev
		listen       string
		want, absent []string
	}{
		{
			name: "make run",
			env: map[string]string{"SVC_INVITATION_CODES": "bienvenue", "SVC_ADMIN_EMAILS": "admin@example.org",
				"SVC_DATA_DIR": "/srv/svc-data"},
			listen: "127.0.0.1:8080",
			want: []string{
				"URL           http://127.0.0.1:8080\n",
				`Sign up       in the console at http://127.0.0.1:8080/signup, or POST http://127.0.0.1:8080/api/auth/signup, with the invitation code "bienvenue"`,
				"Admin         admin@example.org",
				"written as .eml files to " + outbox,
				"the SIMULATED world (SVC_MAP_PROVIDER=sim)",
				"simulated twins of every source (SVC_DATA_SOURCES=sim)",
				"public https receivers only (SVC_DEV_LOOPBACK_WEBHOOKS=1 accepts a loopback receiver",
				"README.md, docs/getting-started.md, and the API reference at http://127.0.0.1:8080/api/reference",
			},
			absent: []string{"closed", "DEVELOPMENT", "Google", "listening on"},
		},
		{
			name:   "signup closed, no admin",
			env:    map[string]string{"SVC_DATA_DIR": "/srv/svc-data"},
			listen: "127.0.0.1:8080",
			want:   []string{"Sign up       closed: no invitation code (set SVC_INVITATION_CODES)", "Admin         none (set SVC_ADMIN_EMAILS)"},
			absent: []string{"bienvenue", "admin@example.org"},
		},
		{
			name: "two codes, two admins, Google, real sources, the switch, a base URL of its own",
			env: map[string]string{"SVC_INVITATION_CODES": "a,b", "SVC_ADMIN_EMAILS": "x@example.org, y@example.org",
				"SVC_MAP_PROVIDER": "google", "SVC_GOOGLE_PLACES_KEY": "k", "SVC_ADDR": "0.0.0.0:9000",
				"SVC_BASE_URL": "https://svc.example.org/", "SVC_DATA_DIR": "/srv/svc-data"},
			dev:    config.LocalDev{LoopbackWebhooks: true},
			listen: "[::]:9000",
			want: []string{
				"URL           https://svc.example.org (listening on [::]:9000)",
				`with the invitation code "a" or "b"`,
				"x@example.org, y@example.org",
				"Google Places API (SVC_MAP_PROVIDER=google)",
				"the real upstreams (SVC_DATA_SOURCES=real)",
				"DEVELOPMENT SWITCH ON (SVC_DEV_LOOPBACK_WEBHOOKS)",
				"API reference at https://svc.example.org/api/reference",
			},
			absent: []string{"SIMULATED", "closed", "public https receivers only"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.FromEnv(func(k string) string { return tt.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			got := banner(cfg, tt.dev, tt.listen)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("banner lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tt.absent {
				if strings.Contains(got, n) {
					t.Errorf("banner says %q:\n%s", n, got)
				}
			}
		})
	}
}
