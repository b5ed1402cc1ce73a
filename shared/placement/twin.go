package placement

import (
	"bufio"
	"bytes"
	"crypto/subtle"
	"crypto/tls"
	"fmt"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// A twin is an in-process IMAP server on loopback (imapserver over
// imapmemserver) shaped like one provider: its folders, their
// SPECIAL-USE attributes and, for a Gmail-like twin, the X-GM-EXT-1
// capability with the one X-GM-RAW query the checker sends. The Sim runs
// a few; tests build their own.

// twinFolder is one folder of a twin's layout.
type twinFolder struct {
	Name  string
	Attrs []imap.MailboxAttr // SPECIAL-USE attributes, shown when the layout has SpecialUse
}

// twinLayout is the shape of a twin's mailboxes.
type twinLayout struct {
	Folders []twinFolder
	// SpecialUse advertises SPECIAL-USE (and LIST-EXTENDED) and lists the
	// folders' attributes.
	SpecialUse bool
	// Gmail advertises X-GM-EXT-1 and answers X-GM-RAW "category:<c>"
	// from the messages' X-Sim-Gmail-Category header (Gmail keeps a
	// category's messages in INBOX).
	Gmail bool
	// TLS: "" or TLSPlain for cleartext, TLSImplicit for TLS from the
	// first byte, TLSStartTLS for STARTTLS on a cleartext port (not with
	// Gmail: its wrapper would sit under the upgraded TLS; Gmail itself
	// serves port 993 only).
	TLS       TLSMode
	TLSConfig *tls.Config
}

// simCategoryHeader carries a twin message's Gmail category.
const simCategoryHeader = "X-Sim-Gmail-Category"

// Layouts of the providers the twins imitate.
var (
	gmailLayout = twinLayout{SpecialUse: true, Gmail: true, Folders: []twinFolder{
		{Name: "INBOX"},
		{Name: "[Gmail]", Attrs: []imap.MailboxAttr{imap.MailboxAttrNoSelect}},
		{Name: "[Gmail]/All Mail", Attrs: []imap.MailboxAttr{imap.MailboxAttrAll}},
		{Name: "[Gmail]/Drafts", Attrs: []imap.MailboxAttr{imap.MailboxAttrDrafts}},
		{Name: "[Gmail]/Important", Attrs: []imap.MailboxAttr{imap.MailboxAttrImportant}},
		{Name: "[Gmail]/Sent Mail", Attrs: []imap.MailboxAttr{imap.MailboxAttrSent}},
		{Name: "[Gmail]/Spam", Attrs: []imap.MailboxAttr{imap.MailboxAttrJunk}},
		{Name: "[Gmail]/Starred", Attrs: []imap.MailboxAttr{imap.MailboxAttrFlagged}},
		{Name: "[Gmail]/Trash", Attrs: []imap.MailboxAttr{imap.MailboxAttrTrash}},
	}}
	outlookLayout = twinLayout{SpecialUse: true, Folders: []twinFolder{
		{Name: "INBOX"},
		{Name: "Archive", Attrs: []imap.MailboxAttr{imap.MailboxAttrArchive}},
		{Name: "Deleted", Attrs: []imap.MailboxAttr{imap.MailboxAttrTrash}},
		{Name: "Drafts", Attrs: []imap.MailboxAttr{imap.MailboxAttrDrafts}},
		{Name: "Junk", Attrs: []imap.MailboxAttr{imap.MailboxAttrJunk}},
		{Name: "Sent", Attrs: []imap.MailboxAttr{imap.MailboxAttrSent}},
	}}
	// A French webmail without SPECIAL-USE: the spam folder is found by
	// its name.
	orangeLayout = twinLayout{Folders: []twinFolder{
		{Name: "INBOX"}, {Name: "Courrier indésirable"}, {Name: "Envoyés"}, {Name: "Brouillons"}, {Name: "Corbeille"},
	}}
	// A self-hosted server with a promotions folder (a sieve rule's).
	customLayout = twinLayout{SpecialUse: true, Folders: []twinFolder{
		{Name: "INBOX"}, {Name: "Promotions"},
		{Name: "Spam", Attrs: []imap.MailboxAttr{imap.MailboxAttrJunk}},
		{Name: "Sent", Attrs: []imap.MailboxAttr{imap.MailboxAttrSent}},
		{Name: "Trash", Attrs: []imap.MailboxAttr{imap.MailboxAttrTrash}},
	}}
)

// twin is one running server.
type twin struct {
	layout twinLayout
	srv    *imapserver.Server
	ln     net.Listener
	done   chan struct{}

	mu       sync.Mutex
	accounts map[string]*twinAccount
}

// twinAccount is one mailbox owner of a twin.
type twinAccount struct {
	username, password string
	user               *imapmemserver.User

	mu        sync.Mutex
	delivered int
}

// startTwin listens on 127.0.0.1:0 and serves until close.
func startTwin(layout twinLayout) (*twin, error) {
	t := &twin{layout: layout, accounts: map[string]*twinAccount{}, done: make(chan struct{})}
	caps := imap.CapSet{imap.CapIMAP4rev1: {}}
	if layout.SpecialUse {
		caps[imap.CapSpecialUse] = struct{}{}
		caps[imap.CapListExtended] = struct{}{}
	}
	opts := &imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &twinSession{twin: t}, nil, nil
		},
		Caps:   caps,
		Logger: log.New(io.Discard, "", 0),
	}
	switch layout.TLS {
	case "", TLSPlain:
		opts.InsecureAuth = true
	case TLSImplicit:
		// The Gmail wrapper hides the *tls.Conn from the server, which
		// then refuses LOGIN "without TLS"; the connection is TLS.
		opts.InsecureAuth = true
	case TLSStartTLS:
		opts.TLSConfig = layout.TLSConfig
	}
	t.srv = imapserver.New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if layout.TLS == TLSImplicit {
		ln = tls.NewListener(ln, layout.TLSConfig)
	}
	if layout.Gmail {
		ln = gmailListener{ln}
	}
	t.ln = ln
	go func() {
		defer close(t.done)
		_ = t.srv.Serve(ln)
	}()
	return t, nil
}

// addr is the twin's host:port.
func (t *twin) addr() string { return t.ln.Addr().String() }

func (t *twin) close() error {
	err := t.srv.Close()
	<-t.done
	return err
}

// addAccount creates a user with the layout's folders.
func (t *twin) addAccount(username, password string) (*twinAccount, error) {
	a := &twinAccount{username: username, password: password, user: imapmemserver.NewUser(username, password)}
	if err := a.createFolders(t.layout); err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.accounts[username] = a
	t.mu.Unlock()
	return a, nil
}

func (a *twinAccount) createFolders(l twinLayout) error {
	for _, f := range l.Folders {
		if hasAttr(f.Attrs, imap.MailboxAttrNoSelect) {
			continue
		}
		if err := a.user.Create(f.Name, nil); err != nil {
			return fmt.Errorf("create %s: %w", f.Name, err)
		}
	}
	return nil
}

// reset empties the account: its folders are made again.
func (a *twinAccount) reset(l twinLayout) error {
	for _, f := range l.Folders {
		if !hasAttr(f.Attrs, imap.MailboxAttrNoSelect) {
			_ = a.user.Delete(f.Name)
		}
	}
	a.mu.Lock()
	a.delivered = 0
	a.mu.Unlock()
	return a.createFolders(l)
}

// deliver appends a message to a folder with its receive time.
func (a *twinAccount) deliver(folder string, msg []byte, at time.Time) error {
	_, err := a.user.Append(folder, bytesLiteral{bytes.NewReader(msg)}, &imap.AppendOptions{Time: at})
	if err == nil {
		a.mu.Lock()
		a.delivered++
		a.mu.Unlock()
	}
	return err
}

func (a *twinAccount) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.delivered
}

type bytesLiteral struct{ *bytes.Reader }

func (b bytesLiteral) Size() int64 { return b.Reader.Size() }

func hasAttr(attrs []imap.MailboxAttr, a imap.MailboxAttr) bool {
	for _, x := range attrs {
		if strings.EqualFold(string(x), string(a)) {
			return true
		}
	}
	return false
}

// twinSession is a connection's session: imapmemserver's once logged
// in, with LIST answered from the layout (imapmemserver has no
// SPECIAL-USE attributes to give).
type twinSession struct {
	*imapmemserver.UserSession
	twin *twin
}

func (s *twinSession) Login(username, password string) error {
	s.twin.mu.Lock()
	a := s.twin.accounts[username]
	s.twin.mu.Unlock()
	if a == nil || subtle.ConstantTimeCompare([]byte(password), []byte(a.password)) != 1 {
		return imapserver.ErrAuthFailed
	}
	s.UserSession = imapmemserver.NewUserSession(a.user)
	return nil
}

func (s *twinSession) Close() error {
	if s.UserSession == nil {
		return nil
	}
	return s.UserSession.Close()
}

func (s *twinSession) List(w *imapserver.ListWriter, ref string, patterns []string, options *imap.ListOptions) error {
	if len(patterns) == 0 {
		return w.WriteList(&imap.ListData{Attrs: []imap.MailboxAttr{imap.MailboxAttrNoSelect}, Delim: '/'})
	}
	for _, f := range s.twin.layout.Folders {
		match := false
		for _, p := range patterns {
			if imapserver.MatchList(f.Name, '/', ref, p) {
				match = true
				break
			}
		}
		if !match {
			continue
		}
		d := &imap.ListData{Mailbox: f.Name, Delim: '/'}
		for _, a := range f.Attrs {
			if a == imap.MailboxAttrNoSelect || s.twin.layout.SpecialUse {
				d.Attrs = append(d.Attrs, a)
			}
		}
		if options != nil && options.SelectSpecialUse && len(d.Attrs) == 0 {
			continue
		}
		if err := w.WriteList(d); err != nil {
			return err
		}
	}
	return nil
}

// gmailListener gives a twin Gmail's extension as far as the checker
// uses it: X-GM-EXT-1 in every capability list, and X-GM-RAW
// "category:<c>" read as HEADER X-Sim-Gmail-Category "<c>" (any other
// X-GM-RAW query stays unknown to the server: BAD).
type gmailListener struct{ net.Listener }

func (l gmailListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &gmailConn{Conn: c, br: bufio.NewReader(c)}, nil
}

type gmailConn struct {
	net.Conn
	br      *bufio.Reader
	pending []byte
}

var (
	capsIn   = []byte("CAPABILITY IMAP4rev1")
	capsOut  = []byte("CAPABILITY IMAP4rev1 X-GM-EXT-1")
	gmRawIn  = []byte(`X-GM-RAW "category:`)
	gmRawOut = []byte(`HEADER "` + simCategoryHeader + `" "`)
)

func (c *gmailConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		line, err := c.br.ReadSlice('\n')
		if len(line) == 0 && err != nil {
			return 0, err
		}
		c.pending = bytes.Replace(line, gmRawIn, gmRawOut, 1)
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

func (c *gmailConn) Write(p []byte) (int, error) {
	if bytes.Contains(p, capsIn) {
		if _, err := c.Conn.Write(bytes.ReplaceAll(p, capsIn, capsOut)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}
