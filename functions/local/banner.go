package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/prospectdata/svc/shared/config"
)

// banner is what the local server prints once it listens: what to do
// next, every value read from the configuration it runs with (so it cannot
// say what the server does not do). listen is the address it listens on.
func banner(cfg config.Config, dev config.LocalDev, listen string) string {
	var b strings.Builder
	line := func(label, format string, args ...any) {
		fmt.Fprintf(&b, "  %-13s %s\n", label, fmt.Sprintf(format, args...))
	}
	b.WriteString("\n  The service is running. Next steps:\n\n")
	if cfg.BaseURL == "http://"+listen {
		line("URL", "%s", cfg.BaseURL)
	} else {
		line("URL", "%s (listening on %s)", cfg.BaseURL, listen)
	}
	if len(cfg.InvitationCodes) == 0 {
		line("Sign up", "closed: no invitation code (set SVC_INVITATION_CODES)")
	} else {
		codes := make([]string, len(cfg.InvitationCodes))
		for i, c := range cfg.InvitationCodes {
			codes[i] = fmt.Sprintf("%q", c)
		}
		line("Sign up", "in the console at %s/signup, or POST %s/api/auth/signup, with the invitation code %s",
			cfg.BaseURL, cfg.BaseURL, strings.Join(codes, " or "))
	}
	if len(cfg.AdminEmails) == 0 {
		line("Admin", "none (set SVC_ADMIN_EMAILS)")
	} else {
		line("Admin", "%s (sign up with this email to be admin)", strings.Join(cfg.AdminEmails, ", "))
	}
	outbox := filepath.Join(cfg.DataDir, "outbox")
	if abs, err := filepath.Abs(outbox); err == nil {
		outbox = abs
	}
	line("Mail", "not sent: written as .eml files to %s (the verification link is there)", outbox)
	switch cfg.MapProvider {
	case "sim":
		line("Map provider", "the SIMULATED world (SVC_MAP_PROVIDER=sim): generated places, *.sim.test sites, nothing real")
	default:
		line("Map provider", "Google Places API (SVC_MAP_PROVIDER=%s): real places, billed to the key's project", cfg.MapProvider)
	}
	if cfg.Sources.Mode == "sim" {
		line("Data sources", "simulated twins of every source (SVC_DATA_SOURCES=sim)")
	} else {
		line("Data sources", "the real upstreams (SVC_DATA_SOURCES=%s)", cfg.Sources.Mode)
	}
	if dev.LoopbackWebhooks {
		line("Webhooks", "DEVELOPMENT SWITCH ON (%s): https receivers on loopback accepted, certificates unverified",
			config.DevLoopbackWebhooksEnv)
	} else {
		line("Webhooks", "public https receivers only (%s=1 accepts a loopback receiver: docs/webhooks.md)",
			config.DevLoopbackWebhooksEnv)
	}
	line("Docs", "README.md, docs/getting-started.md, and the API reference at %s/api/reference", cfg.BaseURL)
	b.WriteString("\n")
	return b.String()
}
