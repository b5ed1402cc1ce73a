package config

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFromEnv(t *testing.T) {
	env := map[string]string{
		"SVC_ADDR":             "127.0.0.1:9000",
		"SVC_INVITATION_CODES": " a, b ,,c",
		"SVC_ADMIN_EMAILS":     "boss@example.org",
		"SVC_TRUSTED_PROXIES":  "10.0.0.0/8, 127.0.0.9",
	}
	c, err := FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "http://127.0.0.1:9000" || c.DataDir != "./.data" {
		t.Errorf("defaults: %+v", c)
	}
	if len(c.InvitationCodes) != 3 || c.InvitationCodes[1] != "b" {
		t.Errorf("codes %q", c.InvitationCodes)
	}
	if len(c.TrustedProxies) != 2 || c.TrustedProxies[1].Bits() != 32 {
		t.Errorf("proxies %v", c.TrustedProxies)
	}
	env["SVC_TRUSTED_PROXIES"] = "not-an-ip"
	if _, err := FromEnv(func(k string) string { return env[k] }); err == nil {
		t.Error("bad proxy accepted")
	}
}

func TestSessionKeyPersists(t *testing.T) {
	dir := t.TempDir()
	c := Config{DataDir: dir}
	k1, err := c.SessionKey()
	if err != nil {
		t.Fatal(err)
	}
	k2, err := c.SessionKey()
	if err != nil || string(k1) != string(k2) || len(k1) != 32 {
		t.Fatalf("key not kept across starts: %v", err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "session.key")); fi.Mode().Perm() != 0o600 {
		t.Errorf("session.key mode %v", fi.Mode())
	}
	if _, err := (Config{SessionSecret: "abcd"}).SessionKey(); err == nil {
		t.Error("short SVC_SESSION_SECRET accepted")
	}
}

func TestEFSettings(t *testing.T) {
	tests := []struct {
		quota, threshold string
		wantQ, wantT     *float64
		bad              bool
	}{
		{"", "", nil, nil, false},
		{"5000", "250.5", ptr(5000), ptr(250.5), false},
		{"0", "", ptr(0), nil, false},
		{"-1", "", nil, nil, true},
		{"", "lots", nil, nil, true},
		{"Inf", "", nil, nil, true},
	}
	for _, tt := range tests {
		env := map[string]string{"SVC_EF_QUOTA": tt.quota, "SVC_EF_COST_THRESHOLD": tt.threshold}
		c, err := FromEnv(func(k string) string { return env[k] })
		if (err != nil) != tt.bad {
			t.Errorf("%q %q: err %v", tt.quota, tt.threshold, err)
			continue
		}
		if !tt.bad && (!same(c.EFQuota, tt.wantQ) || !same(c.EFCostThreshold, tt.wantT)) {
			t.Errorf("%q %q: got %v %v", tt.quota, tt.threshold, c.EFQuota, c.EFCostThreshold)
		}
	}
}

func ptr(f float64) *float64 { return &f }

func same(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func TestMapProvider(t *testing.T) {
	tests := []struct {
		env     map[string]string
		want    string
		latency time.Duration
		bad     bool
	}{
		{map[string]string{}, "sim", 20 * time.Millisecond, false},
		{map[string]string{"SVC_SIM_LATENCY_MS": "50"}, "sim", 50 * time.Millisecond, false},
		{map[string]string{"SVC_SIM_LATENCY_MS": "0"}, "sim", 0, false},
		{map[string]string{"SVC_SIM_LATENCY_MS": "-3"}, "", 0, true},
		{map[string]string{"SVC_MAP_PROVIDER": "Google", "SVC_GOOGLE_PLACES_KEY": "k"}, "google", 20 * time.Millisecond, false},
		{map[string]string{"SVC_MAP_PROVIDER": "google"}, "", 0, true},
		{map[string]string{"SVC_MAP_PROVIDER": "bing"}, "", 0, true},
	}
	for _, tt := range tests {
		c, err := FromEnv(func(k string) string { return tt.env[k] })
		if (err != nil) != tt.bad || (!tt.bad && (c.MapProvider != tt.want || c.SimLatency != tt.latency)) {
			t.Errorf("%v: %q %v %v", tt.env, c.MapProvider, c.SimLatency, err)
		}
	}
}

// TestProviderLoad: the provider's load limits default to the Places
// quota's under google, to none under sim, and refuse what is not a count.
func TestProviderLoad(t *testing.T) {
	google := map[string]string{"SVC_MAP_PROVIDER": "google", "SVC_GOOGLE_PLACES_KEY": "k"}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name                string
		env                 map[string]string
		inFlight, perSecond int
		bad                 bool
	}{
		{"google defaults", google, GoogleMaxInFlight, GoogleMaxPerSecond, false},
		{"google set", with(google, "SVC_PROVIDER_MAX_IN_FLIGHT", "4", "SVC_PROVIDER_MAX_PER_SECOND", "25"), 4, 25, false},
		{"google 0 is the default", with(google, "SVC_PROVIDER_MAX_IN_FLIGHT", "0"), GoogleMaxInFlight, GoogleMaxPerSecond, false},
		{"sim unbounded", nil, 0, 0, false},
		{"sim set", with(nil, "SVC_PROVIDER_MAX_IN_FLIGHT", "10", "SVC_PROVIDER_MAX_PER_SECOND", "50"), 10, 50, false},
		{"negative", with(nil, "SVC_PROVIDER_MAX_IN_FLIGHT", "-1"), 0, 0, true},
		{"not a number", with(google, "SVC_PROVIDER_MAX_PER_SECOND", "ten"), 0, 0, true},
		{"above the bound", with(nil, "SVC_PROVIDER_MAX_PER_SECOND", "1001"), 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(func(k string) string { return tt.env[k] })
			if (err != nil) != tt.bad {
				t.Fatalf("err = %v, want error %v", err, tt.bad)
			}
			if !tt.bad && (c.ProviderMaxInFlight != tt.inFlight || c.ProviderMaxPerSecond != tt.perSecond) {
				t.Errorf("limits %d in flight, %d per second; want %d, %d", c.ProviderMaxInFlight, c.ProviderMaxPerSecond, tt.inFlight, tt.perSecond)
			}
		})
	}
}

// TestLocalDevFromEnv: the development switch is off unless set to an "on"
// word, and a value that is neither on nor off is refused.
func TestLocalDevFromEnv(t *testing.T) {
	for _, tt := range []struct {
		v       string
		on, bad bool
	}{
		{"", false, false}, {"0", false, false}, {"off", false, false}, {"false", false, false}, {"no", false, false},
		{"1", true, false}, {"on", true, false}, {" TRUE ", true, false}, {"yes", true, false},
		{"2", false, true}, {"enabled", false, true},
	} {
		d, err := LocalDevFromEnv(func(k string) string {
			if k == DevLoopbackWebhooksEnv {
				return tt.v
			}
			return ""
		})
		if (err != nil) != tt.bad || d.LoopbackWebhooks != tt.on {
			t.Errorf("%s=%q: %+v, %v", DevLoopbackWebhooksEnv, tt.v, d, err)
		}
	}
}
