package engine

import (
	"testing"

	"github.com/prospectdata/svc/shared/exports"
)

// TestExportRequestBody: the message a function without the engine sends
// to ask for an account's archive (exports.RequestBody) is the engine's
// export message.
func TestExportRequestBody(t *testing.T) {
	m, err := decode(exports.RequestBody(7))
	if err != nil || m.Kind != kindExport || m.User != 7 {
		t.Fatalf("decode(%s) = %+v, %v", exports.RequestBody(7), m, err)
	}
}
