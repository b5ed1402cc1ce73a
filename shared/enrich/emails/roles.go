package emails

// genericLocals are role addresses a business reads for new customers; the
// best "email" column value.
var genericLocals = map[string]bool{
	"contact": true, "info": true, "infos": true, "information": true, "informations": true,
	"accueil": true, "bonjour": true, "hello": true, "hi": true, "hey": true, "salut": true,
	"contacts": true, "contactez-nous": true, "nous-contacter": true, "office": true,
	"secretariat": true, "reservation": true, "reservations": true, "resa": true,
	"booking": true, "devis": true, "commercial": true, "commandes": true, "commande": true,
	"boutique": true, "magasin": true, "shop": true, "store": true, "sales": true,
	"agence": true, "cabinet": true, "atelier": true, "restaurant": true, "mail": true,
	"email": true, "courrier": true, "enquiries": true, "enquiry": true, "inquiries": true,
	"service-client": true, "serviceclient": true, "clients": true, "client": true,
	"rdv": true, "rendez-vous": true, "direction": true, "gerant": true, "team": true,
	"equipe": true, "support": true, "sav": true, "admin": true, "administration": true,
	"compta": true, "comptabilite": true, "facturation": true, "recrutement": true,
	"jobs": true, "rh": true, "presse": true, "press": true, "webmaster": true,
	"dpo": true, "rgpd": true, "privacy": true, "legal": true,
}

// weakGeneric are role addresses that work but are not where a prospect
// should write first.
var weakGeneric = map[string]bool{
	"webmaster": true, "dpo": true, "rgpd": true, "privacy": true, "legal": true,
	"compta": true, "comptabilite": true, "facturation": true, "recrutement": true,
	"jobs": true, "rh": true, "presse": true, "press": true, "admin": true,
	"administration": true, "support": true, "sav": true,
}

// noReplyLocals never read their mail.
var noReplyLocals = map[string]bool{
	"noreply": true, "no-reply": true, "no_reply": true, "donotreply": true,
	"do-not-reply": true, "nepasrepondre": true, "ne-pas-repondre": true,
	"ne_pas_repondre": true, "mailer-daemon": true, "postmaster": true,
	"bounce": true, "bounces": true, "notifications": true, "notification": true,
	"wordpress": true, "alerts": true, "newsletter": true,
}

// freeMailDomains host the addresses many small businesses use instead of
// one on their own domain.
var freeMailDomains = map[string]bool{
	"gmail.com": true, "googlemail.com": true, "orange.fr": true, "wanadoo.fr": true,
	"free.fr": true, "sfr.fr": true, "neuf.fr": true, "laposte.net": true,
	"hotmail.com": true, "hotmail.fr": true, "outlook.com": true, "outlook.fr": true,
	"live.fr": true, "live.com": true, "msn.com": true, "yahoo.fr": true, "yahoo.com": true,
	"icloud.com": true, "me.com": true, "aol.com": true, "gmx.fr": true, "gmx.com": true,
	"bbox.fr": true, "numericable.fr": true, "club-internet.fr": true, "aliceadsl.fr": true,
	"protonmail.com": true, "proton.me": true, "ymail.com": true,
}

// serviceDomains belong to hosts, site builders and agencies' platforms:
// legal notices and footers show them, but they are not the business.
var serviceDomains = map[string]bool{
	"ovh.com": true, "ovh.net": true, "ovhcloud.com": true, "o2switch.fr": true,
	"ionos.fr": true, "ionos.com": true, "1and1.fr": true, "gandi.net": true,
	"hostinger.com": true, "hostinger.fr": true, "lws.fr": true, "infomaniak.com": true,
	"planethoster.com": true, "wix.com": true, "squarespace.com": true, "shopify.com": true,
	"webflow.com": true, "jimdo.com": true, "wordpress.com": true, "godaddy.com": true,
	"cnil.fr": true, "amazon.com": true, "scaleway.com": true, "online.net": true,
	"pagesjaunes.fr": true, "solocal.com": true, "simplebo.fr": true, "e-monsite.com": true,
	"google.com": true, "facebook.com": true, "mediateur-conso.fr": true, "cm2c.net": true,
	"medicys.fr": true, "sas-mediation-conso.fr": true, "economie.gouv.fr": true,
}

// tradeWords name a business, never a person: "plomberie.martin@" is a
// shop, "marie.martin@" a person.
var tradeWords = map[string]bool{
	"plomberie": true, "plombier": true, "boulangerie": true, "patisserie": true,
	"garage": true, "auto": true, "autos": true, "coiffure": true, "coiffeur": true,
	"salon": true, "restaurant": true, "resto": true, "cafe": true, "bar": true,
	"hotel": true, "cabinet": true, "avocat": true, "avocats": true, "notaire": true,
	"pharmacie": true, "fleurs": true, "fleuriste": true, "institut": true,
	"beaute": true, "boucherie": true, "charcuterie": true, "traiteur": true,
	"electricite": true, "electricien": true, "menuiserie": true, "maconnerie": true,
	"peinture": true, "renovation": true, "batiment": true, "immobilier": true,
	"immo": true, "agence": true, "taxi": true, "ambulance": true, "ambulances": true,
	"pizzeria": true, "pizza": true, "creperie": true, "brasserie": true, "bistrot": true,
	"atelier": true, "studio": true, "boutique": true, "shop": true, "store": true,
	"sarl": true, "sas": true, "eurl": true, "ets": true, "etablissements": true,
	"services": true, "service": true, "conseil": true, "expertise": true,
	"compta": true, "transport": true, "transports": true, "paysage": true,
	"paysagiste": true, "jardin": true, "jardins": true, "ferme": true, "domaine": true,
	"chateau": true, "vins": true, "cave": true, "dental": true, "dentaire": true,
	"kine": true, "osteo": true, "veto": true, "clinique": true, "ecole": true,
	"auto-ecole": true, "autoecole": true, "cuisine": true, "cuisines": true,
	"chauffage": true, "climatisation": true, "couverture": true, "toiture": true,
	"carrosserie": true, "mecanique": true, "opticien": true, "optique": true,
	"the": true, "bakery": true, "plumbing": true, "law": true, "office": true,
	"group": true, "groupe": true, "france": true, "paris": true, "lyon": true,
	"marseille": true, "nantes": true, "bordeaux": true, "lille": true, "toulouse": true,
}
