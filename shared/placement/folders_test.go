package placement

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/emersion/go-imap/v2"
)

func f(name string, attrs ...imap.MailboxAttr) folder {
	return folder{Name: name, Delim: '/', Attrs: attrs}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name   string
		list   []folder
		m      FolderMap
		mapped []planned
		others []string
	}{
		{
			name: "Gmail: \\Junk, views skipped, Trash other",
			list: []folder{f("INBOX"), f("[Gmail]", imap.MailboxAttrNoSelect), f("[Gmail]/All Mail", imap.MailboxAttrAll),
				f("[Gmail]/Important", imap.MailboxAttrImportant), f("[Gmail]/Sent Mail", imap.MailboxAttrSent),
				f("[Gmail]/Spam", imap.MailboxAttrJunk), f("[Gmail]/Starred", imap.MailboxAttrFlagged),
				f("[Gmail]/Trash", imap.MailboxAttrTrash), f("Clients")},
			mapped: []planned{{"INBOX", classInbox}, {"[Gmail]/Spam", classSpam}},
			others: []string{"[Gmail]/Trash", "Clients"},
		},
		{
			name:   "German Gmail",
			list:   []folder{f("INBOX"), f("[Google Mail]/Spam", imap.MailboxAttrJunk)},
			mapped: []planned{{"INBOX", classInbox}, {"[Google Mail]/Spam", classSpam}},
		},
		{
			name:   "names when nothing is \\Junk, accents and case folded",
			list:   []folder{f("Inbox"), f("COURRIER INDESIRABLE"), f("Envoyés"), f("Brouillons"), f("Promotions")},
			mapped: []planned{{"INBOX", classInbox}, {"Promotions", classPromotions}, {"COURRIER INDESIRABLE", classSpam}},
		},
		{
			name:   "\\Junk wins over names",
			list:   []folder{f("INBOX"), f("Spam"), f("Junk Email", imap.MailboxAttrJunk)},
			mapped: []planned{{"INBOX", classInbox}, {"Junk Email", classSpam}},
			others: []string{"Spam"},
		},
		{
			name:   "dot delimiter (INBOX.Junk)",
			list:   []folder{{Name: "INBOX", Delim: '.'}, {Name: "INBOX.Junk", Delim: '.'}, {Name: "INBOX.Sent", Delim: '.'}},
			mapped: []planned{{"INBOX", classInbox}, {"INBOX.Junk", classSpam}},
		},
		{
			name:   "mapping replaces discovery per class",
			list:   []folder{f("INBOX"), f("Junk", imap.MailboxAttrJunk), f("Quarantine"), f("Offers")},
			m:      FolderMap{Spam: []string{"Quarantine"}, Promotions: []string{"Offers"}},
			mapped: []planned{{"INBOX", classInbox}, {"Offers", classPromotions}, {"Quarantine", classSpam}},
			others: []string{"Junk"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := classify(tc.list, tc.m)
			if !reflect.DeepEqual(p.Mapped, tc.mapped) {
				t.Errorf("mapped %+v, want %+v", p.Mapped, tc.mapped)
			}
			var others []string
			for _, o := range p.Others {
				others = append(others, o.Name)
			}
			if !reflect.DeepEqual(others, tc.others) {
				t.Errorf("others %q, want %q", others, tc.others)
			}
		})
	}
}

func TestClassifyBoundsOthers(t *testing.T) {
	list := []folder{f("INBOX")}
	for i := range 100 {
		list = append(list, f(fmt.Sprintf("Label %d", i)))
	}
	if p := classify(list, FolderMap{}); len(p.Others) != MaxOtherFolders {
		t.Errorf("%d other folders", len(p.Others))
	}
}
