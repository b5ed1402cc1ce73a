// Package emails is the "emails" enrichment module's extraction
// (docs/spec service-api.md, "Node types": Needs site_web, Produces email,
// email_personal): it reads already fetched pages of a business's website,
// finds the contact addresses they show and picks the columns.
package emails

// Columns is the module's Produces list, in the spec's order.
var Columns = []string{"email", "email_personal"}

// Kinds of discovery, from the most explicit to the least.
const (
	KindMailto     = "mailto"
	KindText       = "text"
	KindObfuscated = "obfuscated"
	KindCloudflare = "cloudflare"
	KindJSONLD     = "jsonld"
	KindMicrodata  = "microdata"
)

// Found is one address a page shows.
type Found struct {
	// Address is the address with its domain lower-cased.
	Address string
	// SourceURL is the page the address was first seen on.
	SourceURL string
	// Kind says how it was written (KindMailto, KindText, ...).
	Kind string
}
