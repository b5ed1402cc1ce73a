package phoneinfosim_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/phoneinfo"
	"github.com/prospectdata/svc/shared/phoneinfo/phoneinfosim"
	"github.com/prospectdata/svc/shared/provider/sim/simtest"
)

// TestLineTwin: the twin answers a number the same way every time, in
// the API's format, through the real client (which signs; a wrong secret
// is refused); over the simulated world's French mobiles its shares are
// those it states, its carriers the country's operators, the numbers of a
// block share their original network, and a few lookups fail.
func TestLineTwin(t *testing.T) {
	srv := httptest.NewServer(phoneinfosim.LineHandler())
	t.Cleanup(srv.Close)
	c, err := phoneinfo.NewHLRClient(phoneinfo.HLRConfig{BaseURL: srv.URL + "/api/v2", Key: phoneinfosim.LineKey,
		Secret: phoneinfosim.LineSecret}, srv.Client())
	if err != nil {
		t.Fatal(err)
	}
	bad, _ := phoneinfo.NewHLRClient(phoneinfo.HLRConfig{BaseURL: srv.URL, Key: phoneinfosim.LineKey, Secret: "guess"}, srv.Client())
	if _, err := bad.LookupLine(context.Background(), "+33600000012"); !errors.Is(err, phoneinfo.ErrRefused) {
		t.Errorf("a wrong secret: %v", err)
	}

	var mobiles []string
	for _, tel := range simtest.Phones(t, 0) {
		if n, ok := phoneinfo.Parse(tel, "FR"); ok && n.Region == "FR" && n.LineType == phoneinfo.LineMobile {
			mobiles = append(mobiles, n.E164)
		}
	}
	if len(mobiles) < 500 {
		t.Fatalf("%d sim mobiles", len(mobiles))
	}
	fr := []string{"Orange", "SFR", "Bouygues Telecom", "Free Mobile"}
	var ported, reachable, unreachable, unknown, failed int
	for i, e := range mobiles {
		a, b := phoneinfosim.LineAnswer(e), phoneinfosim.LineAnswer(e)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("%s answered twice differently", e)
		}
		if i < 200 {
			// Through HTTP and the client, too.
			s, err := c.LookupLine(context.Background(), e)
			s2, err2 := c.LookupLine(context.Background(), e)
			s.CheckedAt, s2.CheckedAt = time.Time{}, time.Time{}
			if (err == nil) != (err2 == nil) || s.String() != s2.String() {
				t.Fatalf("%s: %v %v / %v %v", e, s, err, s2, err2)
			}
			if err == nil && s.CarrierCurrent != a.Status().CarrierCurrent {
				t.Errorf("%s: client %q, answer %q", e, s.CarrierCurrent, a.Status().CarrierCurrent)
			}
		}
		if a.ProcessingStatus == "FAILED" {
			failed++
			continue
		}
		s := a.Status()
		switch {
		case s.Reachable == nil:
			unknown++
		case *s.Reachable:
			reachable++
		default:
			unreachable++
		}
		if s.Ported != nil && *s.Ported {
			ported++
			if *a.PortedNetworkName == *a.OriginalNetworkName {
				t.Errorf("%s ported to its own network", e)
			}
		}
		if s.CarrierCurrent != "" && !slices.Contains(fr, s.CarrierCurrent) {
			t.Errorf("%s: carrier %q", e, s.CarrierCurrent)
		}
		// A neighbour in the same block of 10,000 has the same original
		// network.
		next := e[:len(e)-1] + string('0'+(e[len(e)-1]-'0'+1)%10)
		if o := phoneinfosim.LineAnswer(next).OriginalNetworkName; o != nil && a.OriginalNetworkName != nil && *o != *a.OriginalNetworkName {
			t.Errorf("%s and %s: blocks split (%s, %s)", e, next, *a.OriginalNetworkName, *o)
		}
	}
	n := float64(len(mobiles))
	t.Logf("%d sim mobiles: %.3f reachable, %.3f unreachable, %.3f unknown, %.3f ported, %d failed",
		len(mobiles), float64(reachable)/n, float64(unreachable)/n, float64(unknown)/n, float64(ported)/n, failed)
	if r := float64(reachable) / n; r < 0.7 || r > 0.9 {
		t.Errorf("reachable share %.3f", r)
	}
	if p := float64(ported) / n; p < 0.08 || p > 0.22 {
		t.Errorf("ported share %.3f", p)
	}
	if unreachable == 0 || unknown == 0 || failed == 0 || float64(failed)/n > 0.03 {
		t.Errorf("unreachable %d, unknown %d, failed %d", unreachable, unknown, failed)
	}
	// A country the twin has no network for: nothing known, no error.
	if s := phoneinfosim.LineAnswer("+97312345678").Status(); s.Reachable != nil || s.CarrierCurrent != "" {
		t.Errorf("unknown country: %s", s)
	}
}
