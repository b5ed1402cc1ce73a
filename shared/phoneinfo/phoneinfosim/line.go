// Package phoneinfosim holds phone_info's offline twins: the line
// lookup's (hlr-lookups.com's POST /hlr-lookup, answered in process) and
// the numbering plan of the simulated world. Offline runs
// (SVC_DATA_SOURCES=sim) read them through the same ports as the real
// API and ARCEP's files; what they say is labelled "sim".
package phoneinfosim

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/prospectdata/svc/shared/phoneinfo"
)

// The twin of the line lookup: hlr-lookups.com's POST /hlr-lookup,
// answered in process under offline runs (SVC_DATA_SOURCES=sim) for any
// number, from a hash of the number alone: the same number always gets
// the same answer, whatever the day.
//
// The credentials it accepts: the service's sim wiring signs with them,
// so that the real client's signing is what the twin checks.
const (
	LineKey    = "sim-key"
	LineSecret = "sim-secret"
)

// Shares of the twin's answers (of the numbers of a country it knows).
const (
	simLineFailed      = 0.01 // processing_status FAILED: the lookup's error path
	simLineConnected   = 0.80
	simLineAbsent      = 0.10
	simLineInvalid     = 0.05 // the rest is UNDETERMINED
	simLinePorted      = 0.15
	simLineBlockDigits = 4 // a block is the number but its last 4 digits
)

// simNetworks are the mobile networks of a region, by libphonenumber's
// alpha-2 code: real operators' names, and nothing else of them (no
// network codes, no subscriber data). A number's original network is
// drawn from its block, so the numbers of a block share it.
var simNetworks = map[string][]string{
	"FR": {"Orange", "SFR", "Bouygues Telecom", "Free Mobile"},
	"GP": {"Orange Caraïbe", "SFR Caraïbe", "Digicel"},
	"MQ": {"Orange Caraïbe", "SFR Caraïbe", "Digicel"},
	"GF": {"Orange Caraïbe", "SFR Caraïbe", "Digicel"},
	"BL": {"Orange Caraïbe", "SFR Caraïbe", "Digicel"},
	"MF": {"Orange Caraïbe", "SFR Caraïbe", "Digicel"},
	"RE": {"Orange", "SFR", "Free", "Zeop Mobile"},
	"YT": {"Orange", "SFR"},
	"DE": {"Telekom", "Vodafone", "O2"},
	"ES": {"Movistar", "Vodafone", "Orange", "Yoigo"},
	"IT": {"TIM", "Vodafone", "WINDTRE", "Iliad"},
	"GB": {"EE", "Vodafone", "O2", "Three"},
	"US": {"Verizon Wireless", "AT&T", "T-Mobile US"},
	"CA": {"Rogers", "Bell", "TELUS"},
	"BE": {"Proximus", "Orange Belgium", "BASE"},
	"CH": {"Swisscom", "Sunrise", "Salt"},
	"LU": {"POST Luxembourg", "Orange Luxembourg", "Tango"},
	"MC": {"Monaco Telecom"},
	"NL": {"KPN", "Vodafone", "Odido"},
	"PT": {"MEO", "Vodafone", "NOS"},
}

// LineHandler is the twin's handler: POST <root>/hlr-lookup (any
// root: the client's base URL names it), signed with LineKey and
// LineSecret (401 otherwise), body {"msisdn": "+…"} (400 when
// unreadable). What it serves is made up: a job reading it says so (its
// source "sim").
func LineHandler() http.Handler { return http.HandlerFunc(serveSimLine) }

func serveSimLine(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, phoneinfo.HLRPath) {
		simLineError(w, http.StatusNotFound, "NOT_FOUND", "no such endpoint")
		return
	}
	if r.Method != http.MethodPost {
		simLineError(w, http.StatusMethodNotAllowed, "METHOD_NOT_ALLOWED", "use POST")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 4096))
	if err != nil {
		simLineError(w, http.StatusBadRequest, "BAD_REQUEST", "unreadable body")
		return
	}
	ts, err := strconv.ParseInt(r.Header.Get("X-Digest-Timestamp"), 10, 64)
	want := phoneinfo.HLRSignature(LineSecret, phoneinfo.HLRPath, ts, r.Method, body)
	if err != nil || r.Header.Get("X-Digest-Key") != LineKey ||
		!hmac.Equal([]byte(r.Header.Get("X-Digest-Signature")), []byte(want)) {
		simLineError(w, http.StatusUnauthorized, "UNAUTHORIZED", "invalid key or signature")
		return
	}
	var req struct {
		MSISDN string `json:"msisdn"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.MSISDN == "" {
		simLineError(w, http.StatusBadRequest, "BAD_REQUEST", "msisdn is required")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(LineAnswer(req.MSISDN))
}

func simLineError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []map[string]string{{"code": code, "message": msg}}})
}

// LineAnswer is the twin's answer for a number: a function of the
// number alone.
func LineAnswer(msisdn string) phoneinfo.HLRAnswer {
	sum := sha256.Sum256([]byte("line|" + msisdn))
	share := func(i int) float64 { return float64(binary.BigEndian.Uint16(sum[i:])) / 65536 }
	a := phoneinfo.HLRAnswer{
		ID: hex.EncodeToString(sum[20:26]), MSISDN: msisdn,
		ConnectivityStatus: phoneinfo.HLRUndetermined, ProcessingStatus: "COMPLETED", ErrorCode: json.RawMessage("null"),
		DataSource: "LIVE_HLR",
	}
	region, ops := "", []string(nil)
	if pn, err := phonenumbers.Parse(msisdn, ""); err == nil && len(msisdn) > simLineBlockDigits+1 && digits(msisdn[1:]) {
		region = phonenumbers.GetRegionCodeForNumber(pn)
		ops = simNetworks[region]
	}
	if len(ops) == 0 {
		// No network the twin knows: the API could not tell.
		return a
	}
	if share(0) < simLineFailed {
		a.ProcessingStatus, a.ErrorCode = "FAILED", json.RawMessage("1")
		return a
	}
	switch c := share(2); {
	case c < simLineConnected:
		a.ConnectivityStatus = phoneinfo.HLRConnected
	case c < simLineConnected+simLineAbsent:
		a.ConnectivityStatus = phoneinfo.HLRAbsent
	case c < simLineConnected+simLineAbsent+simLineInvalid:
		a.ConnectivityStatus = phoneinfo.HLRInvalid
	default:
		a.DataSource = "MNP_DB" // no HLR answer: the portability database's
	}
	block := sha256.Sum256([]byte("block|" + msisdn[:len(msisdn)-simLineBlockDigits]))
	orig := int(binary.BigEndian.Uint32(block[:]) % uint32(len(ops)))
	a.OriginalNetworkName, a.OriginalCountryCode = ptr(ops[orig]), ptr(region)
	ported := len(ops) > 1 && share(4) < simLinePorted
	a.IsPorted = ptr(ported)
	if ported {
		cur := (orig + 1 + int(sum[6])%(len(ops)-1)) % len(ops)
		a.PortedNetworkName, a.PortedCountryCode = ptr(ops[cur]), ptr(region)
	}
	return a
}

func ptr[T any](v T) *T { return &v }

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
