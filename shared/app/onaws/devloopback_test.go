package onaws_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prospectdata/svc/shared/config"
)

// TestDevLoopbackSwitchHasNoEffectOnAWS: the local server's development
// switch (SVC_DEV_LOOPBACK_WEBHOOKS) is read by functions/local only. Set
// in a Lambda's environment and in the process's, the AWS wiring still
// refuses a webhook to a live loopback HTTPS receiver, by address and by
// localhost, with the reason a public-only guard gives.
func TestDevLoopbackSwitchHasNoEffectOnAWS(t *testing.T) {
	recv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		t.Error("the loopback receiver was reached")
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()
	port := recv.URL[strings.LastIndex(recv.URL, ":")+1:]
	t.Setenv(config.DevLoopbackWebhooksEnv, "1")
	rt := newAWSRuntime(t)
	rt.env[config.DevLoopbackWebhooksEnv] = "1"
	bearer := rt.signup("devswitch@example.org")
	eventsFn := rt.handler("api-events")
	for _, tt := range []struct{ url, says string }{
		{recv.URL + "/hook", "the host 127.0.0.1 is a loopback address"},
		{"https://localhost:" + port + "/hook", "special-use name (localhost)"},
		{"https://[::1]:" + port + "/hook", "the host ::1 is a loopback address"},
	} {
		r := rt.call(eventsFn, "POST", "/api/webhooks", `{"url":"`+tt.url+`","events":["job.completed"]}`, bearer)
		if r.StatusCode != 400 || !strings.Contains(r.Body, tt.says) {
			t.Errorf("POST /api/webhooks %s on AWS with the switch set: %d %s, want 400 naming %q", tt.url, r.StatusCode, r.Body, tt.says)
		}
	}
}
