package main

import (
	"fmt"
	"net/mail"
	"strings"

	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"
)

// settings are the deploy-time knobs of the stack, read from CDK context
// (cdk.json, or -c key=value on the command line) so that one template
// serves every environment and synth stays offline.
type settings struct {
	// AssetDir holds the <group>.zip artifacts of `make build`. Relative paths
	// are relative to infra/, where cdk.json runs the app.
	AssetDir string
	// BaseURL is the public origin mailed links point to; "" means the HTTP
	// API's own endpoint.
	BaseURL string
	// MailFrom is the From header of every mail (SVC_MAIL_FROM).
	MailFrom string
	// MailDomain is the SES identity mail is sent as; by default the domain
	// of MailFrom's address, so that the two cannot disagree.
	MailDomain string
	// SESIdentityARN scopes the SES grant; "" means the identity of
	// MailDomain in the stack's account and region.
	SESIdentityARN string
	// InvitationCodes and AdminEmails are comma-separated lists, passed
	// verbatim (SVC_INVITATION_CODES, SVC_ADMIN_EMAILS).
	InvitationCodes string
	AdminEmails     string
	// DataSources is SVC_DATA_SOURCES of every function: "sim" (the
	// default, as the stack runs the sim map provider) or "real".
	DataSources string
}

// Context keys and their defaults. cdk.json repeats the defaults so that the
// knobs are visible there; a test checks that the two agree.
const (
	ctxAssetDir        = "assetDir"
	ctxBaseURL         = "baseUrl"
	ctxMailFrom        = "mailFrom"
	ctxMailDomain      = "mailDomain"
	ctxSESIdentityARN  = "sesIdentityArn"
	ctxInvitationCodes = "invitationCodes"
	ctxAdminEmails     = "adminEmails"
	ctxDataSources     = "dataSources"

	defaultAssetDir = "../dist"
	// The local server's default sender (shared/config), so that the
	// LocalStack walk needs no override; a real deployment sets its own.
	defaultMailFrom = "Prospecting Data Service <no-reply@svc.localhost>"
)

// contextDefaults are the values a key takes when the context omits it
// ("" for keys whose default is computed).
func contextDefaults() map[string]string {
	return map[string]string{
		ctxAssetDir:        defaultAssetDir,
		ctxBaseURL:         "",
		ctxMailFrom:        defaultMailFrom,
		ctxMailDomain:      "",
		ctxSESIdentityARN:  "",
		ctxInvitationCodes: "",
		ctxAdminEmails:     "",
		ctxDataSources:     "sim",
	}
}

// readSettings reads the context of node, applying the defaults.
func readSettings(node constructs.Node) (settings, error) {
	get := func(key string) (string, error) {
		v := node.TryGetContext(jsii.String(key))
		switch v := v.(type) {
		case nil:
			return contextDefaults()[key], nil
		case string:
			return strings.TrimSpace(v), nil
		case []any:
			// cdk.json may list codes or emails as a JSON array.
			parts := make([]string, 0, len(v))
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					return "", fmt.Errorf("context %s: list element %v is not a string", key, e)
				}
				parts = append(parts, strings.TrimSpace(s))
			}
			return strings.Join(parts, ","), nil
		default:
			return "", fmt.Errorf("context %s: want a string, got %T", key, v)
		}
	}
	var s settings
	var err error
	for _, f := range []struct {
		key string
		dst *string
	}{
		{ctxAssetDir, &s.AssetDir},
		{ctxBaseURL, &s.BaseURL},
		{ctxMailFrom, &s.MailFrom},
		{ctxMailDomain, &s.MailDomain},
		{ctxSESIdentityARN, &s.SESIdentityARN},
		{ctxInvitationCodes, &s.InvitationCodes},
		{ctxAdminEmails, &s.AdminEmails},
		{ctxDataSources, &s.DataSources},
	} {
		if *f.dst, err = get(f.key); err != nil {
			return s, err
		}
	}
	if s.AssetDir == "" {
		s.AssetDir = defaultAssetDir
	}
	if s.MailFrom == "" {
		s.MailFrom = defaultMailFrom
	}
	s.BaseURL = strings.TrimRight(s.BaseURL, "/")
	if s.MailDomain == "" {
		a, err := mail.ParseAddress(s.MailFrom)
		if err != nil {
			return s, fmt.Errorf("context %s %q: %w", ctxMailFrom, s.MailFrom, err)
		}
		s.MailDomain = a.Address[strings.LastIndexByte(a.Address, '@')+1:]
	}
	switch s.DataSources {
	case "":
		s.DataSources = "sim"
	case "sim", "real":
	default:
		return s, fmt.Errorf("context %s %q is neither sim nor real", ctxDataSources, s.DataSources)
	}
	if s.SESIdentityARN != "" && !strings.HasPrefix(s.SESIdentityARN, "arn:") {
		return s, fmt.Errorf("context %s %q is not an ARN", ctxSESIdentityARN, s.SESIdentityARN)
	}
	return s, nil
}
