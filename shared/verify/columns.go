package verify

// Columns are the verify_emails module's Produces columns, in order: the
// cells of a Result (enrich.VerifyModule binds the module).
var Columns = []string{"status", "category"}
