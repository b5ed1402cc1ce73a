// Package registers reads the French company registers: the API Recherche
// d'entreprises of the French state (recherche-entreprises.api.gouv.fr,
// SIRENE with the RNE's officers, published accounts and labels) and
// BODACC's announcements (the DILA's Opendatasoft portal). Three
// capabilities use it: the legal_data enrichment module (its cells,
// LegalDataValues; the module is enrich.LegalDataModule), the sirene
// source (Establishments: businesses by activity in French zones) and
// company lookup by SIREN, SIRET, VAT number or name (Lookup, the body of
// /api/company/...).
//
// A Client paces each source (7 requests a second for the search API, its
// documented limit), retries 429, 408, 5xx, network failures and
// unreadable answers with exponential backoff and jitter, honouring
// Retry-After (and holding every caller back after a 429), within the
// context's deadline; then the error wraps ErrUnavailable. Its base URLs
// are configurable: offline, they point at the simulated twin
// (registerssim.Handler, on the world's clock registerssim.Clock), which
// serves the same formats.
//
// docs/registers.md has the sources and licences, the configuration, the
// columns, the name-matching rule, lead_status and the limits.
package registers
