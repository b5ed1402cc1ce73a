package accounts

import (
	"strings"
	"testing"
)

func TestPasswordPolicy(t *testing.T) {
	tests := []struct {
		pw   string
		max  int
		want bool
	}{
		{"abcdefg1", 128, true},
		{"abcdefg!", 128, true},
		{"abcdéfg€", 128, true},
		{"abcdefgh", 128, false}, // letters only
		{"12345678", 128, false}, // no letter
		{"abc1", 128, false},     // too short
		{"a1" + strings.Repeat("x", 126), 128, true},
		{"a1" + strings.Repeat("x", 127), 128, false}, // 129 characters
		{"a1" + strings.Repeat("x", 198), 200, true},  // password change allows 200
		{"éééééé1é", 128, true},                       // counted in characters, not bytes
	}
	for _, tt := range tests {
		t.Run(tt.pw, func(t *testing.T) {
			if got := checkPolicy("password", tt.pw, tt.max) == nil; got != tt.want {
				t.Errorf("checkPolicy(%q, %d) accepted=%v, want %v", tt.pw, tt.max, got, tt.want)
			}
		})
	}
}

func TestHashAndCheck(t *testing.T) {
	h, err := HashPassword("s3cret-pass")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Errorf("hash %q is not an argon2id PHC string", h)
	}
	h2, _ := HashPassword("s3cret-pass")
	if h == h2 {
		t.Error("two hashes of one password are equal: no salt")
	}
	tests := []struct {
		hash, pw string
		want     bool
	}{
		{h, "s3cret-pass", true},
		{h, "s3cret-pasS", false},
		{h, "", false},
		{"", "s3cret-pass", false},
		{"$argon2id$v=19$m=x$y$z", "s3cret-pass", false},
		{dummyHash, "anything1", false},
	}
	for _, tt := range tests {
		if got := CheckPassword(tt.hash, tt.pw); got != tt.want {
			t.Errorf("CheckPassword(%.20q, %q) = %v", tt.hash, tt.pw, got)
		}
	}
}

func TestValidEmail(t *testing.T) {
	tests := map[string]bool{
		"a@example.org":                    true,
		"first.last+tag@sub.example.fr":    true,
		"no-at-sign":                       false,
		"a@localhost":                      false,
		"A <a@example.org>":                false,
		"a@example.org\r\nBcc: x":          false,
		"":                                 false,
		strings.Repeat("a", 250) + "@x.fr": false,
	}
	for in, want := range tests {
		if got := validEmail(in); got != want {
			t.Errorf("validEmail(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestSessionTokenMAC(t *testing.T) {
	s := &Service{sessionSecret: []byte(strings.Repeat("k", 32))}
	ref := "42.0123456789abcdef0123456789abcdef"
	tok := ref + "." + s.sign(ref)
	if uid, sid, ok := s.ParseSessionToken(tok); !ok || uid != 42 || sid != "0123456789abcdef0123456789abcdef" {
		t.Fatalf("valid token refused: %d %s %v", uid, sid, ok)
	}
	other := &Service{sessionSecret: []byte(strings.Repeat("z", 32))}
	forged := []string{
		"43.0123456789abcdef0123456789abcdef." + s.sign(ref), // another user, same MAC
		ref + "." + other.sign(ref),                          // signed with another key
		ref,                                                  // no MAC
		"",
		strings.Repeat("9", 300),
	}
	for _, f := range forged {
		if _, _, ok := s.ParseSessionToken(f); ok {
			t.Errorf("forged token %.40q accepted", f)
		}
	}
}
