package pricing

import (
	"fmt"
	"math"
	"strconv"

	"github.com/prospectdata/svc/shared/apperr"
)

// What an account spent and may still spend is kept by the account's
// ledger (accounts.Ledger); this file is how an amount and a refusal read.

// OverQuota is the error of a cost above what the account may still spend
// this month (spec: "EF quota exceeded", a 400).
func OverQuota(cost, remaining float64) *apperr.Error {
	return apperr.New(apperr.Invalid,
		fmt.Sprintf("Quota EF dépassé : cette recherche coûte %s EF, il reste %s EF ce mois-ci.", FormatEF(cost), FormatEF(remaining)),
		fmt.Sprintf("EF quota exceeded: this scrape costs %s EF and %s EF remain this month.", FormatEF(cost), FormatEF(remaining)))
}

// FormatEF writes an EF amount with at most two decimals.
func FormatEF(ef float64) string {
	return strconv.FormatFloat(math.Round(ef*100)/100, 'f', -1, 64)
}
