package placement

import (
	"strings"

	"github.com/emersion/go-imap/v2"

	"github.com/prospectdata/svc/shared/accent"
)

// class is what a folder means for placement.
type class int

const (
	classOther      class = iota // searched only when the mapped ones hold nothing
	classInbox                   // placement inbox (promotions on Gmail when the category says so)
	classPromotions              // placement promotions
	classSpam                    // placement spam
	classSkip                    // never searched: sent, drafts, all mail, not selectable
)

// Limits of the folder walk.
const (
	// MaxFolders bounds the LIST entries a seed's folders are chosen
	// from (the rest of a longer answer is read and dropped).
	MaxFolders = 500
	// MaxOtherFolders bounds the unmapped folders searched when the
	// mapped ones hold no matching message.
	MaxOtherFolders = 20
)

// folder is one LIST entry.
type folder struct {
	Name  string
	Delim rune
	Attrs []imap.MailboxAttr
}

func (f folder) has(attr imap.MailboxAttr) bool {
	for _, a := range f.Attrs {
		if strings.EqualFold(string(a), string(attr)) {
			return true
		}
	}
	return false
}

// leaf is the last level of the folder's name, folded for comparison.
func (f folder) leaf() string {
	name := f.Name
	if f.Delim != 0 {
		if i := strings.LastIndex(name, string(f.Delim)); i >= 0 {
			name = name[i+1:]
		}
	}
	return foldName(name)
}

// Common names of the folders, folded (lower case, no accents), for the
// servers that mark none with SPECIAL-USE (RFC 6154). Gmail's are
// "[Gmail]/Spam" or, in some countries, "[Google Mail]/Spam" (marked
// \Junk anyway); Outlook.com's "Junk" (\Junk); Yahoo's "Bulk"; Orange,
// Free and other French webmails "Spam", "Courrier indésirable" or
// "Indésirables"; GMX and WEB.DE "Spamverdacht".
var (
	spamNames = set("spam", "junk", "junk e-mail", "junk email", "junk mail", "bulk", "bulk mail",
		"courrier indesirable", "courriers indesirables", "indesirable", "indesirables", "pourriel", "pourriels",
		"spamverdacht", "quarantaine")
	promotionsNames = set("promotions", "promotion", "promos", "offers")
	// skipNames are folders a received message never lands in.
	skipNames = set("sent", "sent items", "sent mail", "sent messages", "envoyes", "elements envoyes",
		"messages envoyes", "drafts", "draft", "brouillons", "outbox", "boite d'envoi", "templates", "modeles",
		"all mail", "tous les messages", "notes")
)

// skipAttrs mark folders that are not a placement: Gmail's \All holds
// every message (INBOX's too), \Important and \Flagged are views of
// other folders; \Sent and \Drafts hold the account's own mail.
var skipAttrs = []imap.MailboxAttr{imap.MailboxAttrNoSelect, imap.MailboxAttrNonExistent, imap.MailboxAttrAll,
	imap.MailboxAttrSent, imap.MailboxAttrDrafts, imap.MailboxAttrFlagged, imap.MailboxAttrImportant}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// foldName lower-cases a name, removes its accents and collapses its
// white space.
func foldName(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(accent.Fold(s)), " "))
}

// plan is the folders a seed is searched in: the mapped ones in order
// (inbox, promotions, spam), then the others as a fallback.
type plan struct {
	Mapped []planned
	Others []planned
	// Missing are configured names the server did not list.
	Missing []string
}

type planned struct {
	Name  string
	Class class
}

// classify chooses the folders of each class: the seed's mapping where
// it names a class; otherwise INBOX (always there, RFC 9051 §5.1), the
// folders marked \Junk (or, on a server marking none, those with a
// common spam name), the folders with a common promotions name.
func classify(list []folder, m FolderMap) plan {
	var p plan
	listed := map[string]folder{}
	anyJunk := false
	for _, f := range list {
		listed[f.Name] = f
		if f.has(imap.MailboxAttrJunk) {
			anyJunk = true
		}
	}
	taken := map[string]bool{}
	add := func(name string, c class) {
		if taken[name] {
			return
		}
		taken[name] = true
		p.Mapped = append(p.Mapped, planned{name, c})
	}
	configured := func(names []string, c class) {
		for _, n := range names {
			if _, ok := listed[n]; !ok && !strings.EqualFold(n, "INBOX") {
				p.Missing = append(p.Missing, n)
				continue
			}
			add(n, c)
		}
	}
	if len(m.Inbox) > 0 {
		configured(m.Inbox, classInbox)
	} else {
		add("INBOX", classInbox)
		for _, f := range list {
			if strings.EqualFold(f.Name, "INBOX") {
				taken[f.Name] = true // the server's spelling of INBOX, searched as INBOX
			}
		}
	}
	if len(m.Promotions) > 0 {
		configured(m.Promotions, classPromotions)
	} else {
		for _, f := range list {
			if !skipped(f) && promotionsNames[f.leaf()] {
				add(f.Name, classPromotions)
			}
		}
	}
	if len(m.Spam) > 0 {
		configured(m.Spam, classSpam)
	} else {
		for _, f := range list {
			if skipped(f) {
				continue
			}
			if f.has(imap.MailboxAttrJunk) || !anyJunk && spamNames[f.leaf()] {
				add(f.Name, classSpam)
			}
		}
	}
	for _, f := range list {
		if taken[f.Name] || skipped(f) || skipNames[f.leaf()] {
			continue
		}
		if len(p.Others) >= MaxOtherFolders {
			break
		}
		p.Others = append(p.Others, planned{f.Name, classOther})
	}
	return p
}

func skipped(f folder) bool {
	for _, a := range skipAttrs {
		if f.has(a) {
			return true
		}
	}
	return false
}
