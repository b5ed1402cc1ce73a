//go:build svctest

package main

import (
	"crypto/x509"
	"errors"
	"net/netip"
	"os"

	"github.com/prospectdata/svc/shared/netguard"
)

// testGuard, in the test build only (-tags svctest), lets webhook
// deliveries reach a loopback TLS receiver whose CA is in the PEM file
// SVC_TEST_WEBHOOK_CA. No release build contains this file.
func testGuard() (*netguard.Guard, error) {
	path := os.Getenv("SVC_TEST_WEBHOOK_CA")
	if path == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("SVC_TEST_WEBHOOK_CA holds no certificate")
	}
	return netguard.New(netguard.WithAllowedPrefixes(netip.MustParsePrefix("127.0.0.1/32")), netguard.WithRootCAs(pool)), nil
}
