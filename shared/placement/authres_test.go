package placement

import (
	"strings"
	"testing"
)

// gmailAR is an Authentication-Results header as Gmail writes it.
const gmailAR = "mx.google.com; dkim=pass header.i=@example.com header.s=s1 header.b=AbCd; " +
	"spf=pass (google.com: domain of bounce@example.com designates 192.0.2.1 as permitted sender) " +
	"smtp.mailfrom=bounce@example.com; dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=example.com"

func TestParseAuthResults(t *testing.T) {
	tests := []struct {
		name             string
		value            string
		ok               bool
		id               string
		spf, dkim, dmarc string
	}{
		{"gmail", gmailAR, true, "mx.google.com", "pass", "pass", "pass"},
		{"outlook: no authserv-id", "spf=none (sender IP is 192.0.2.1) smtp.mailfrom=example.com; dkim=none (message not signed) " +
			"header.d=none;dmarc=none action=none header.from=example.com;compauth=pass reason=100", true, "", "none", "none", "none"},
		{"version after the authserv-id", "mx.example.org 1; spf/1=pass smtp.mailfrom=a.example; dkim/1 = fail (bad sig) header.d=a.example",
			true, "mx.example.org", "pass", "fail", ""},
		{"no result", "mx.example.org; none", true, "mx.example.org", "", "", ""},
		{"upper case", "MX.EXAMPLE.ORG; SPF=PASS; DKIM=Pass; DMARC=FAIL", true, "MX.EXAMPLE.ORG", "pass", "pass", "fail"},
		{"several dkim: a pass wins", "mx.test; dkim=fail header.d=x.test; dkim=pass header.d=example.com; dkim=neutral",
			true, "mx.test", "", "pass", ""},
		{"first spf counts", "mx.test; spf=softfail; spf=pass", true, "mx.test", "softfail", "", ""},
		{"semicolon inside a comment", "mx.test; spf=fail (reason; spf=pass); dmarc=pass", true, "mx.test", "fail", "", "pass"},
		{"nested comments", "mx.test (a (b; dkim=pass) c); dkim=fail", true, "mx.test", "", "fail", ""},
		{"semicolon inside a quoted string", `mx.test; dkim=pass header.b="a;spf=pass"; dmarc=fail`, true, "mx.test", "", "pass", "fail"},
		{"comment in a quoted string", `mx.test; spf=pass reason="(x"; dmarc=pass`, true, "mx.test", "pass", "", "pass"},
		{"folded", "mx.test;\r\n\tspf=pass\r\n smtp.mailfrom=example.com;\r\n\tdmarc=pass", true, "mx.test", "pass", "", "pass"},
		{"hardfail is fail", "mx.test; spf=hardfail", true, "mx.test", "fail", "", ""},
		{"unknown result ignored", "mx.test; spf=maybe; dkim=pass", true, "mx.test", "", "pass", ""},
		{"other methods ignored", "mx.test; arc=pass; iprev=pass; auth=pass", true, "mx.test", "", "", ""},
		{"quoted authserv-id", `"mx.test"; spf=pass`, true, "mx.test", "pass", "", ""},
		{"empty", "", false, "", "", "", ""},
		{"only a comment", "(nothing)", false, "", "", "", ""},
		{"unterminated comment", "mx.test; spf=pass (oops; dkim=pass", true, "mx.test", "pass", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ar, ok := ParseAuthResults(tc.value)
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v (%+v)", ok, tc.ok, ar)
			}
			if !ok {
				return
			}
			if ar.AuthservID != tc.id || ar.SPF != tc.spf || ar.DKIM != tc.dkim || ar.DMARC != tc.dmarc {
				t.Errorf("%+v, want %s %q/%q/%q", ar, tc.id, tc.spf, tc.dkim, tc.dmarc)
			}
		})
	}
}

func TestPickAuthResults(t *testing.T) {
	values := []string{"mx.receiver.test; spf=fail", "mx.google.com; spf=pass"}
	if ar, _ := PickAuthResults(values, ""); ar.SPF != "fail" {
		t.Errorf("topmost: %+v", ar)
	}
	if ar, _ := PickAuthResults(values, "MX.GOOGLE.COM"); ar.SPF != "pass" {
		t.Errorf("by authserv-id: %+v", ar)
	}
	if _, ok := PickAuthResults(values, "mx.other.test"); ok {
		t.Error("an absent authserv-id was found")
	}
}

func TestHeaderValues(t *testing.T) {
	block := "Authentication-Results: mx.a; spf=pass\r\n\t smtp.mailfrom=x\r\nX-Other: 1\r\n" +
		"authentication-results: mx.b; dkim=fail\r\n\r\nAuthentication-Results: body, not header\r\n"
	got := headerValues([]byte(block), "Authentication-Results", 8)
	want := []string{"mx.a; spf=pass smtp.mailfrom=x", "mx.b; dkim=fail"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%q, want %q", got, want)
	}
	// A block cut by a partial FETCH keeps its last field.
	if got := headerValues([]byte("Authentication-Results: mx.a; spf=pa"), "Authentication-Results", 8); len(got) != 1 {
		t.Errorf("cut block: %q", got)
	}
	if got := headerValues([]byte(strings.Repeat("Authentication-Results: x\r\n", 50)), "Authentication-Results", 8); len(got) != 8 {
		t.Errorf("bounded: %d values", len(got))
	}
}

// FuzzParseAuthResults: the header comes from anyone's message; the
// parser never panics and only ever reports registered results.
func FuzzParseAuthResults(f *testing.F) {
	for _, s := range []string{gmailAR, "mx; spf=pass", `a; dkim=pass header.b="(;"`, "x (((((((((( ;", "\\", `"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ar, _ := ParseAuthResults(s)
		for _, r := range []string{ar.SPF, ar.DKIM, ar.DMARC} {
			if _, ok := authResults[r]; r != "" && !ok {
				t.Fatalf("result %q", r)
			}
		}
		_ = headerValues([]byte(s), "Authentication-Results", 8)
	})
}
