package config

import (
	"fmt"
	"strings"
)

// DevLoopbackWebhooksEnv is the local server's development switch that lets
// webhook endpoints be HTTPS receivers on a loopback address
// (docs/webhooks.md, "Seeing a signed delivery locally").
const DevLoopbackWebhooksEnv = "SVC_DEV_LOOPBACK_WEBHOOKS"

// LocalDev are the local server's development switches. They are kept out
// of Config on purpose: Config is what every runtime reads (the AWS wiring
// included), while these are read by functions/local alone, so no
// environment given to a Lambda can turn one on.
type LocalDev struct {
	// LoopbackWebhooks accepts and delivers to https receivers on
	// 127.0.0.0/8, ::1 and localhost (netguard.WithDevLoopback).
	LoopbackWebhooks bool
}

// LocalDevFromEnv reads the development switches. Off unless set to 1,
// true or on; a value that is neither on nor off is an error, so a typo
// never leaves a developer guessing.
func LocalDevFromEnv(getenv func(string) string) (LocalDev, error) {
	var d LocalDev
	switch v := strings.ToLower(strings.TrimSpace(getenv(DevLoopbackWebhooksEnv))); v {
	case "1", "true", "on", "yes":
		d.LoopbackWebhooks = true
	case "", "0", "false", "off", "no":
	default:
		return d, fmt.Errorf("%s: %q is neither on (1) nor off (0)", DevLoopbackWebhooksEnv, v)
	}
	return d, nil
}
