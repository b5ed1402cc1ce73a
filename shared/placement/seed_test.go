package placement

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestParseSeeds(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		n       int
		errHas  string
		check   func(t *testing.T, s []Seed)
		noLeaks bool
	}{
		{name: "empty means no seeds", config: "  ", n: 0},
		{
			name: "defaults from the provider", n: 1,
			config: `[{"provider":"Gmail","address":"seed1@gmail.com","password":"app-pw"}]`,
			check: func(t *testing.T, s []Seed) {
				if s[0].Host != "imap.gmail.com:993" || s[0].TLS != TLSImplicit || s[0].Username != "seed1@gmail.com" ||
					s[0].Provider != "gmail" {
					t.Errorf("%+v", s[0])
				}
			},
		},
		{
			name: "object form, starttls port and folders", n: 2,
			config: `{"seeds":[{"provider":"custom","address":"a@x.test","host":"imap.x.test","tls":"starttls","username":"a","password":"p",
				"folders":{"spam":["INBOX.Junk"],"promotions":["INBOX.Promos"]},"authserv_id":"mx.x.test"},
				{"provider":"outlook","address":"b@outlook.com","password":"p"}]}`,
			check: func(t *testing.T, s []Seed) {
				if s[0].Host != "imap.x.test:143" || s[0].Folders.Spam[0] != "INBOX.Junk" || s[0].AuthservID != "mx.x.test" {
					t.Errorf("%+v", s[0])
				}
				if s[1].Host != "outlook.office365.com:993" {
					t.Errorf("%+v", s[1])
				}
			},
		},
		{name: "plain on loopback", n: 1, config: `[{"address":"a@x.test","host":"127.0.0.1:1143","tls":"plain","password":"p"}]`},
		{name: "plain off loopback", config: `[{"address":"a@x.test","host":"imap.x.test:143","tls":"plain","password":"p"}]`,
			errHas: "seed 0: tls: plain is for loopback"},
		{name: "unknown provider without host", config: `[{"provider":"acme","address":"a@x.test","password":"p"}]`,
			errHas: "host: required"},
		{name: "missing password", config: `[{"provider":"gmail","address":"a@gmail.com"}]`, errHas: "password: required"},
		{name: "bad address", config: `[{"provider":"gmail","address":"gmail.com","password":"p"}]`, errHas: "address"},
		{name: "bad tls", config: `[{"provider":"gmail","address":"a@gmail.com","password":"p","tls":"ssl"}]`, errHas: "tls"},
		{name: "bad port", config: `[{"address":"a@x.test","host":"imap.x.test:99999","password":"p"}]`, errHas: "port"},
		{name: "bad host", config: `[{"address":"a@x.test","host":"imap x.test:993","password":"p"}]`, errHas: "host"},
		{name: "unknown field", config: `[{"provider":"gmail","address":"a@gmail.com","password":"p","pasword":"q"}]`,
			errHas: `unknown field "pasword"`},
		{name: "duplicate address", config: `[{"provider":"gmail","address":"a@gmail.com","password":"p"},
			{"provider":"gmail","address":"A@gmail.com","password":"q"}]`, errHas: "seed 1: address"},
		{name: "invalid JSON never quotes the input", config: `[{"provider":"gmail","address":"a@gmail.com","password":"hunter2-secret"`,
			errHas: "invalid JSON", noLeaks: true},
		{name: "wrong type", config: `[{"provider":"gmail","address":"a@gmail.com","password":42}]`, errHas: "password"},
		{name: "trailing data", config: `[] []`, errHas: "trailing"},
		{name: "too many folder names", config: `[{"provider":"gmail","address":"a@gmail.com","password":"p","folders":{"spam":[` +
			strings.Repeat(`"x",`, MaxFolderNames) + `"y"]}}]`, errHas: "folders.spam"},
		{name: "too many seeds", config: "[" + strings.TrimSuffix(strings.Repeat(`{"provider":"gmail","address":"a@gmail.com","password":"p"},`,
			MaxSeeds+1), ",") + "]", errHas: "at most 50"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seeds, err := ParseSeeds(tc.config)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want ~%q", err, tc.errHas)
				}
				if strings.Contains(err.Error(), "hunter2") {
					t.Errorf("the error quotes the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(seeds) != tc.n {
				t.Fatalf("%d seeds, want %d", len(seeds), tc.n)
			}
			if tc.check != nil {
				tc.check(t, seeds)
			}
		})
	}
}

// TestSeedHidesPassword: a seed printed or marshalled shows no password.
func TestSeedHidesPassword(t *testing.T) {
	s := Seed{Provider: "gmail", Address: "a@gmail.com", Host: "imap.gmail.com:993", Password: "hunter2-secret"}
	b, _ := json.Marshal(s)
	for _, out := range []string{string(b), s.String(), fmt.Sprintf("%v %+v %#v", s, s, s), fmt.Sprint([]Seed{s})} {
		if strings.Contains(out, "hunter2") {
			t.Errorf("password shown: %s", out)
		}
	}
	if redact("NO [AUTHENTICATIONFAILED] bad password hunter2-secret", s.Password) != "NO [AUTHENTICATIONFAILED] bad password ***" {
		t.Error("redact")
	}
}

// FuzzParseSeeds: the configuration parser never panics, and a seed it
// accepts is complete.
func FuzzParseSeeds(f *testing.F) {
	f.Add(`[{"provider":"gmail","address":"a@gmail.com","password":"p"}]`)
	f.Add(`{"seeds":[{"address":"a@x.test","host":"[::1]:143","tls":"plain","password":"p","folders":{"inbox":["Boîte"]}}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		seeds, err := ParseSeeds(s)
		if err != nil {
			return
		}
		for _, sd := range seeds {
			if sd.Host == "" || sd.Password == "" || sd.Username == "" || sd.TLS == "" || !strings.Contains(sd.Address, "@") {
				t.Fatalf("incomplete seed %+v", sd)
			}
		}
	})
}
