package placement

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/apperr"
)

// TestValidateRequest: "domain a valid hostname, at most 253 chars, no
// scheme; subject_filter 1 to 200 chars", each failure a 422 naming its
// field.
func TestValidateRequest(t *testing.T) {
	label63 := strings.Repeat("a", 63)
	long := strings.Join([]string{label63, label63, label63, strings.Repeat("b", 61)}, ".") // 253
	tests := []struct {
		name, domain, subject string
		fields                []string // invalid fields, in order
		enHas                 string
		normalized            string
	}{
		{"valid", "example.com", "Newsletter", nil, "", "example.com"},
		{"case and trailing dot", " Mail.Example.COM. ", "x", nil, "", "mail.example.com"},
		{"IDN to punycode", "pâtisserie.fr", "x", nil, "", "xn--ptisserie-b2a.fr"},
		{"253 characters", long, "x", nil, "", long},
		{"254 characters", long + "c", "x", []string{"domain"}, "at most 253", ""},
		{"scheme", "https://example.com", "x", []string{"domain"}, "without a scheme", ""},
		{"scheme without slashes", "http:example.com", "x", []string{"domain"}, "without a scheme", ""},
		{"address", "contact@example.com", "x", []string{"domain"}, "not an address", ""},
		{"path", "example.com/news", "x", []string{"domain"}, "without a path", ""},
		{"port", "example.com:25", "x", []string{"domain"}, "without a path or port", ""},
		{"IP", "192.0.2.1", "x", []string{"domain"}, "not an IP", ""},
		{"single label", "localhost", "x", []string{"domain"}, "fully qualified", ""},
		{"empty domain", "", "x", []string{"domain"}, "required", ""},
		{"label too long", label63 + "a.com", "x", []string{"domain"}, "valid host name", ""},
		{"leading hyphen", "-example.com", "x", []string{"domain"}, "valid host name", ""},
		{"underscore", "my_site.com", "x", []string{"domain"}, "valid host name", ""},
		{"space", "exa mple.com", "x", []string{"domain"}, "valid host name", ""},
		{"empty label", "example..com", "x", []string{"domain"}, "valid host name", ""},
		{"empty subject", "example.com", "  ", []string{"subject_filter"}, "1 to 200", ""},
		{"200 characters", "example.com", strings.Repeat("é", 200), nil, "", "example.com"},
		{"201 characters", "example.com", strings.Repeat("é", 201), []string{"subject_filter"}, "1 to 200", ""},
		{"line break", "example.com", "a\r\nb", []string{"subject_filter"}, "one line", ""},
		{"both fields", "", "", []string{"domain", "subject_filter"}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateRequest(tc.domain, tc.subject)
			if len(tc.fields) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				r, _ := NormalizeRequest(Request{Domain: tc.domain, SubjectFilter: tc.subject})
				if r.Domain != tc.normalized {
					t.Errorf("normalized %q, want %q", r.Domain, tc.normalized)
				}
				return
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.Unprocessable {
				t.Fatalf("error %v, want a 422", err)
			}
			if len(ae.Fields) != len(tc.fields) {
				t.Fatalf("fields %+v, want %v", ae.Fields, tc.fields)
			}
			for i, f := range ae.Fields {
				if f.Field != tc.fields[i] || !strings.HasPrefix(f.EN, f.Field+": ") || !strings.HasPrefix(f.FR, f.Field+" : ") {
					t.Errorf("field %d: %+v, want %s", i, f, tc.fields[i])
				}
			}
			if tc.enHas != "" && !strings.Contains(ae.Fields[0].EN, tc.enHas) {
				t.Errorf("message %q, want ~%q", ae.Fields[0].EN, tc.enHas)
			}
		})
	}
}

// FuzzValidateRequest: user input never panics the validator, and what
// it accepts is a lower-case ASCII host name and a one-line subject.
func FuzzValidateRequest(f *testing.F) {
	f.Add("example.com", "Newsletter")
	f.Add("https://xn--ptisserie-b2a.fr", "Été")
	f.Add("a.b", "\x00")
	f.Fuzz(func(t *testing.T, domain, subject string) {
		r, err := NormalizeRequest(Request{Domain: domain, SubjectFilter: subject})
		if err != nil {
			return
		}
		if len(r.Domain) > MaxDomainLen || r.Domain != strings.ToLower(r.Domain) || !strings.Contains(r.Domain, ".") {
			t.Fatalf("domain %q", r.Domain)
		}
		for i := 0; i < len(r.Domain); i++ {
			if r.Domain[i] >= utf8.RuneSelf {
				t.Fatalf("domain %q is not ASCII", r.Domain)
			}
		}
		if n := utf8.RuneCountInString(r.SubjectFilter); n == 0 || n > MaxSubjectLen || strings.ContainsAny(r.SubjectFilter, "\r\n") {
			t.Fatalf("subject %q", r.SubjectFilter)
		}
	})
}
