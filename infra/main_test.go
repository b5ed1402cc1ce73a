package main

import (
	"os"
	"testing"

	"github.com/aws/jsii-runtime-go"
)

// TestMain stops the jsii node process after the tests, which also removes
// the runtime it unpacked into the temp dir.
func TestMain(m *testing.M) {
	code := m.Run()
	jsii.Close()
	os.Exit(code)
}
