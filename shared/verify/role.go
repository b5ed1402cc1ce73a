package verify

import "strings"

// roleLocals are the local parts of role accounts: mailboxes of a
// function, read by whoever holds it, not by one person (RFC 2142's
// mailbox names and the usual English and French business ones). A
// local part is compared after roleKey: lower case, "+tag" and trailing
// digits dropped, dots, hyphens and underscores removed ("No-Reply",
// "contact2" and "info+web" are role accounts). docs/verify.md lists
// them.
var roleLocals = []string{
	// RFC 2142 and system mailboxes
	"abuse", "admin", "administrator", "hostmaster", "mailer-daemon", "noc", "postmaster",
	"root", "security", "webmaster", "www", "uucp", "ftp", "usenet", "news", "nobody", "devnull",
	"sysadmin", "it", "dns",
	// no-reply
	"noreply", "no-reply", "donotreply", "do-not-reply", "ne-pas-repondre", "nepasrepondre", "bounce", "bounces",
	// English
	"contact", "contacts", "contactus", "contact-us", "info", "infos", "information", "enquiries", "enquiry",
	"inquiries", "inquiry", "hello", "hi", "office", "mail", "email", "help", "helpdesk", "support",
	"sales", "marketing", "billing", "accounts", "accounting", "finance", "invoices", "orders", "shop",
	"store", "booking", "bookings", "reservations", "reception", "team", "staff", "hr", "jobs", "careers",
	"recruitment", "press", "media", "pr", "legal", "privacy", "compliance", "dpo", "gdpr", "newsletter",
	"service", "customerservice", "customer-service", "feedback", "partners", "list",
	// French
	"accueil", "bonjour", "salut", "secretariat", "direction", "gerant", "gerance", "commercial",
	"commerciale", "ventes", "devis", "commande", "commandes", "boutique", "magasin", "reservation",
	"resa", "rdv", "rendez-vous", "agence", "cabinet", "atelier", "equipe", "sav", "service-client",
	"serviceclient", "clients", "client", "compta", "comptabilite", "facturation", "factures",
	"recrutement", "emploi", "rh", "presse", "communication", "administration", "courrier", "rgpd",
	"nous-contacter", "contactez-nous", "renseignements", "informations",
}

// roles is roleLocals keyed by roleKey.
var roles = func() map[string]bool {
	m := make(map[string]bool, len(roleLocals))
	for _, l := range roleLocals {
		m[roleKey(l)] = true
	}
	return m
}()

// roleKey folds a local part for the role lookup.
func roleKey(local string) string {
	local = strings.ToLower(local)
	if i := strings.IndexByte(local, '+'); i > 0 {
		local = local[:i]
	}
	local = strings.TrimRight(local, "0123456789")
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' || r == '_' {
			return -1
		}
		return r
	}, local)
}

// IsRole tells whether a local part is a role account's.
func IsRole(local string) bool { return roles[roleKey(local)] }
