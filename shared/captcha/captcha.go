// Package captcha verifies the captcha token of a signup. The one adapter
// speaks the siteverify protocol that Cloudflare Turnstile and hCaptcha share:
// a form POST of secret, response and remoteip, answered by {"success": bool}.
package captcha

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Verifier checks a token.
type Verifier interface {
	Verify(ctx context.Context, token, remoteIP string) (bool, error)
}

// TurnstileURL is Cloudflare Turnstile's verification endpoint, the default.
const TurnstileURL = "https://challenges.cloudflare.com/turnstile/v0/siteverify"

// Siteverify is a Verifier for a siteverify endpoint.
type Siteverify struct {
	URL    string
	Secret string
	Client *http.Client
}

// Verify posts the token and reports whether the provider accepted it.
func (s *Siteverify) Verify(ctx context.Context, token, remoteIP string) (bool, error) {
	if token == "" {
		return false, nil
	}
	form := url.Values{"secret": {s.Secret}, "response": {token}}
	if remoteIP != "" {
		form.Set("remoteip", remoteIP)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, strings.NewReader(form.Encode()))
	if err != nil {
		return false, fmt.Errorf("captcha: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := s.Client.Do(req)
	if err != nil {
		return false, fmt.Errorf("captcha: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("captcha: siteverify answered %d", resp.StatusCode)
	}
	var out struct {
		Success bool `json:"success"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&out); err != nil {
		return false, fmt.Errorf("captcha: decode: %w", err)
	}
	return out.Success, nil
}
