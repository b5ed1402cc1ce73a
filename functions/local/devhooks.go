package main

import (
	"log/slog"
	"net"
	"net/url"
	"slices"
	"strconv"

	"github.com/prospectdata/svc/shared/config"
	"github.com/prospectdata/svc/shared/netguard"
)

// webhookGuard is the guard of webhook URLs and deliveries under the
// development switch SVC_DEV_LOOPBACK_WEBHOOKS (nil when it is off: the
// app's default guard, public hosts only). It is read here and nowhere
// else: shared/app and its AWS wiring never see the switch.
//
// Under it, https receivers on loopback (127.0.0.0/8, ::1, localhost) are
// accepted and delivered to, their self-signed certificates unverified
// (netguard.WithDevLoopback); the service itself stays refused by its
// ports: the one it listens on and the base URL's.
func webhookGuard(cfg config.Config, dev config.LocalDev, listen net.Addr, log *slog.Logger) *netguard.Guard {
	if !dev.LoopbackWebhooks {
		return nil
	}
	ports := []string{}
	if tcp, ok := listen.(*net.TCPAddr); ok {
		ports = append(ports, strconv.Itoa(tcp.Port))
	}
	var hosts []string
	if u, err := url.Parse(cfg.BaseURL); err == nil && u.Hostname() != "" {
		hosts = append(hosts, u.Hostname())
		switch {
		case u.Port() != "":
			ports = append(ports, u.Port())
		case u.Scheme == "https":
			ports = append(ports, "443")
		default:
			ports = append(ports, "80")
		}
	}
	slices.Sort(ports)
	ports = slices.Compact(ports)
	log.Warn("DEVELOPMENT SWITCH ON: webhooks to https receivers on loopback (127.0.0.0/8, ::1, localhost) are accepted "+
		"and delivered without verifying their certificate; never set it outside a developer's machine",
		"switch", config.DevLoopbackWebhooksEnv, "refused_own_ports", ports)
	return netguard.New(netguard.WithOwnHosts(hosts...), netguard.WithDevLoopback(ports...))
}
