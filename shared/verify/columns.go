package verify

// Columns are the verify_emails module's Produces columns, in order: the
// cells of a Result (enrich.VerifyModule binds the module).
var Columns = []string{"status", "category"}

// Cells are the result's cells, aligned with Columns.
func (r Result) Cells() []string { return []string{string(r.Status), string(r.Category)} }
