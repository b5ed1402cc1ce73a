package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Mailinator.COM", "mailinator.com", true},
		{" yopmail.fr. ", "yopmail.fr", true},
		{"*.33mail.com", "33mail.com", true},
		{"jetable.café", "jetable.xn--caf-dma", true},
		{"localhost", "", false},
		{"bad_domain.com", "", false},
		{"-bad.com", "", false},
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := normalize(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("normalize(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestRun generates from a small package and reads the result back.
func TestRun(t *testing.T) {
	src, out := t.TempDir(), t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"name": "disposable-email-domains", "version": "9.9.9", "license": "MIT"}`)
	write("index.json", `["b.com", "A.com", "a.com", "not a domain"]`)
	write("wildcard.json", `["w.org"]`)
	if err := run(src, out, io.Discard); err != nil {
		t.Fatal(err)
	}
	list, _ := os.ReadFile(filepath.Join(out, "domains.txt"))
	if !strings.HasSuffix(string(list), "a.com\nb.com\n*.w.org\n") || !strings.Contains(string(list), "disposable-email-domains@9.9.9 (licence MIT)") {
		t.Errorf("domains.txt:\n%s", list)
	}
	goSrc, _ := os.ReadFile(filepath.Join(out, "source.go"))
	for _, want := range []string{`Version = "9.9.9"`, "exactCount    = 2", "wildcardCount = 1", "DO NOT EDIT"} {
		if !strings.Contains(string(goSrc), want) {
			t.Errorf("source.go lacks %q:\n%s", want, goSrc)
		}
	}
	write("index.json", `[]`)
	if err := run(src, out, io.Discard); err == nil {
		t.Error("an empty list was accepted")
	}
}
