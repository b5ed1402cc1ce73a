// Package placementsim is delivery_check's offline twin: in-process IMAP
// servers on loopback (Server, shaped by a Layout like Gmail, Outlook,
// Orange or a self-hosted server) and Sim, a few seed mailboxes where
// every check first finds a message from the domain, in a folder drawn
// from a hash of the domain and the seed; its results say source "sim".
// The checker's own tests build their servers here too.
package placementsim

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

	"github.com/prospectdata/svc/shared/placement"
)

// A Server is an in-process IMAP server on loopback (imapserver over
// imapmemserver) shaped like one provider: its folders, their
// SPECIAL-USE attributes and, for a Gmail-like server, the X-GM-EXT-1
// capability with the one X-GM-RAW query the checker sends. The Sim runs
// a few; the checker's tests build their own.

// Folder is one folder of a layout.
type Folder struct {
	Name  string
	Attrs []imap.MailboxAttr // SPECIAL-USE attributes, shown when the layout has SpecialUse
}

// Layout is the shape of a server's mailboxes.
type Layout struct {
	Folders []Folder
	// SpecialUse advertises SPECIAL-USE (and LIST-EXTENDED) and lists the
	// folders' attributes.
	SpecialUse bool
	// Gmail advertises X-GM-EXT-1 and answers X-GM-RAW "category:<c>"
	// from the messages' X-Sim-Gmail-Category header (Gmail keeps a
	// category's messages in INBOX).
	Gmail bool
	// TLS: "" or placement.TLSPlain for cleartext, placement.TLSImplicit for TLS from the
	// first byte, placement.TLSStartTLS for STARTTLS on a cleartext port (not with
	// Gmail: its wrapper would sit under the upgraded TLS; Gmail itself
	// serves port 993 only).
	TLS       placement.TLSMode
	TLSConfig *tls.Config
}

// CategoryHeader carries a message's Gmail category: a Gmail-like
// server answers X-GM-RAW "category:<c>" from it.
const CategoryHeader = "X-Sim-Gmail-Category"

// Layouts of the providers the twins imitate.
var (
	Gmail = Layout{SpecialUse: true, Gmail: true, Folders: []Folder{
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
	Outlook = Layout{SpecialUse: true, Folders: []Folder{
		{Name: "INBOX"},
		{Name: "Archive", Attrs: []imap.MailboxAttr{imap.MailboxAttrArchive}},
		{Name: "Deleted", Attrs: []imap.MailboxAttr{imap.MailboxAttrTrash}},
		{Name: "Drafts", Attrs: []imap.MailboxAttr{imap.MailboxAttrDrafts}},
		{Name: "Junk", Attrs: []imap.MailboxAttr{imap.MailboxAttrJunk}},
		{Name: "Sent", Attrs: []imap.MailboxAttr{imap.MailboxAttrSent}},
	}}
	// A French webmail without SPECIAL-USE: the spam folder is found by
	// its name.
	Orange = Layout{Folders: []Folder{
		{Name: "INBOX"}, {Name: "Courrier indésirable"}, {Name: "Envoyés"}, {Name: "Brouillons"}, {Name: "Corbeille"},
	}}
	// A self-hosted server with a promotions folder (a sieve rule's).
	Custom = Layout{SpecialUse: true, Folders: []Folder{
		{Name: "INBOX"}, {Name: "Promotions"},
		{Name: "Spam", Attrs: []imap.MailboxAttr{imap.MailboxAttrJunk}},
		{Name: "Sent", Attrs: []imap.MailboxAttr{imap.MailboxAttrSent}},
		{Name: "Trash", Attrs: []imap.MailboxAttr{imap.MailboxAttrTrash}},
	}}
)

// Server is one running server.
type Server struct {
	layout Layout
	srv    *imapserver.Server
	ln     net.Listener
	done   chan struct{}

	mu       sync.Mutex
	accounts map[string]*Account
}

// Account is one mailbox owner of a server.
type Account struct {
	username, password string
	user               *imapmemserver.User

	mu        sync.Mutex
	delivered int
}

// Start listens on 127.0.0.1:0 and serves until Close.
func Start(layout Layout) (*Server, error) {
	t := &Server{layout: layout, accounts: map[string]*Account{}, done: make(chan struct{})}
	caps := imap.CapSet{imap.CapIMAP4rev1: {}}
	if layout.SpecialUse {
		caps[imap.CapSpecialUse] = struct{}{}
		caps[imap.CapListExtended] = struct{}{}
	}
	opts := &imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return &session{srv: t}, nil, nil
		},
		Caps:   caps,
		Logger: log.New(io.Discard, "", 0),
	}
	switch layout.TLS {
	case "", placement.TLSPlain:
		opts.InsecureAuth = true
	case placement.TLSImplicit:
		// The Gmail wrapper hides the *tls.Conn from the server, which
		// then refuses LOGIN "without TLS"; the connection is TLS.
		opts.InsecureAuth = true
	case placement.TLSStartTLS:
		opts.TLSConfig = layout.TLSConfig
	}
	t.srv = imapserver.New(opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if layout.TLS == placement.TLSImplicit {
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

// Addr is the server's host:port.
func (t *Server) Addr() string { return t.ln.Addr().String() }

// Serve serves the same mailboxes on another listener too, as the
// layout's TLS mode and Gmail wrapper do not: a test wraps ln to shape a
// server the layouts do not describe. It returns when the server closes.
func (t *Server) Serve(ln net.Listener) error { return t.srv.Serve(ln) }

// Close stops the server and waits for its listener.
func (t *Server) Close() error {
	err := t.srv.Close()
	<-t.done
	return err
}

// AddAccount creates a user with the layout's folders.
func (t *Server) AddAccount(username, password string) (*Account, error) {
	a := &Account{username: username, password: password, user: imapmemserver.NewUser(username, password)}
	if err := a.createFolders(t.layout); err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.accounts[username] = a
	t.mu.Unlock()
	return a, nil
}

func (a *Account) createFolders(l Layout) error {
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

// Reset empties the account: its folders are made again.
func (a *Account) Reset(l Layout) error {
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

// Deliver appends a message to a folder with its receive time.
func (a *Account) Deliver(folder string, msg []byte, at time.Time) error {
	_, err := a.user.Append(folder, bytesLiteral{bytes.NewReader(msg)}, &imap.AppendOptions{Time: at})
	if err == nil {
		a.mu.Lock()
		a.delivered++
		a.mu.Unlock()
	}
	return err
}

func (a *Account) Count() int {
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

// session is a connection's session: imapmemserver's once logged
// in, with LIST answered from the layout (imapmemserver has no
// SPECIAL-USE attributes to give).
type session struct {
	*imapmemserver.UserSession
	srv *Server
}

func (s *session) Login(username, password string) error {
	s.srv.mu.Lock()
	a := s.srv.accounts[username]
	s.srv.mu.Unlock()
	if a == nil || subtle.ConstantTimeCompare([]byte(password), []byte(a.password)) != 1 {
		return imapserver.ErrAuthFailed
	}
	s.UserSession = imapmemserver.NewUserSession(a.user)
	return nil
}

func (s *session) Close() error {
	if s.UserSession == nil {
		return nil
	}
	return s.UserSession.Close()
}

func (s *session) List(w *imapserver.ListWriter, ref string, patterns []string, options *imap.ListOptions) error {
	if len(patterns) == 0 {
		return w.WriteList(&imap.ListData{Attrs: []imap.MailboxAttr{imap.MailboxAttrNoSelect}, Delim: '/'})
	}
	for _, f := range s.srv.layout.Folders {
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
			if a == imap.MailboxAttrNoSelect || s.srv.layout.SpecialUse {
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

// gmailListener gives a server Gmail's extension as far as the checker
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
	gmRawOut = []byte(`HEADER "` + CategoryHeader + `" "`)
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
