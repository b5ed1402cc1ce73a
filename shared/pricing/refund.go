package pricing

import "math"

// A scrape is charged its estimate at creation; the searches the map
// provider did not answer are given back when the job ends (docs/pricing.md,
// "Refunds"): the user pays for answers, not for a provider's outage or a
// refused key. The account's ledger gives the amount back
// (accounts.RefundOp).

// Refund is the EF given back of a charge of ef for planned searches of
// which answered were answered: ef × (planned − answered) / planned, to the
// cent, within [0, ef]. The engine passes as planned, for a job that
// failed, the searches its charge assumed (Compute's ExpectedSearches) or
// those it made when more; for a job done with failed searches, those it
// made: a job done pays for every search it needed but the failed ones.
func Refund(ef, planned float64, answered int) float64 {
	if ef <= 0 || planned <= 0 {
		return 0
	}
	share := (planned - float64(answered)) / planned
	share = math.Min(math.Max(share, 0), 1)
	return math.Round(ef*share*100) / 100
}
