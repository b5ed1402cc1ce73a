package placement

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// wireConn is the connection imapclient talks over. It keeps the seed's
// deadline (imapclient sets its own read and write deadlines, minutes
// long: a later one is cut to the seed's), counts the commands sent, and
// rewrites the one command imapclient cannot write: Gmail's X-GM-RAW
// search key.
type wireConn struct {
	net.Conn
	deadline time.Time

	mu       sync.Mutex
	commands int
	rawArmed bool
}

// gmRawMarker is how a Gmail raw search goes through imapclient: a
// HEADER criterion on a field named X-GM-RAW, which imapclient writes as
// `HEADER "X-GM-RAW" "<query>"`; the armed wireConn turns it into the
// search key `X-GM-RAW "<query>"` (Gmail's IMAP extensions,
// https://developers.google.com/gmail/imap/imap-extensions). imapclient
// flushes a command without literals in one Write, so the marker is
// never split.
const gmRawKey = "X-GM-RAW"

var (
	gmRawMarker  = []byte(`HEADER "` + gmRawKey + `" `)
	gmRawReplace = []byte(gmRawKey + " ")
)

func (w *wireConn) Write(p []byte) (int, error) {
	w.mu.Lock()
	if isCommandStart(p) {
		w.commands++
	}
	if w.rawArmed && bytes.Contains(p, gmRawMarker) {
		w.rawArmed = false
		w.mu.Unlock()
		q := bytes.Replace(p, gmRawMarker, gmRawReplace, 1)
		if _, err := w.Conn.Write(q); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	w.mu.Unlock()
	return w.Conn.Write(p)
}

// armRaw makes the next command carrying the marker a raw Gmail search.
func (w *wireConn) armRaw(on bool) {
	w.mu.Lock()
	w.rawArmed = on
	w.mu.Unlock()
}

func (w *wireConn) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.commands
}

// isCommandStart tells whether a write begins a tagged command
// (imapclient's tags are T1, T2, ...).
func isCommandStart(p []byte) bool {
	if len(p) < 3 || p[0] != 'T' {
		return false
	}
	i := 1
	for i < len(p) && p[i] >= '0' && p[i] <= '9' {
		i++
	}
	return i > 1 && i < len(p) && p[i] == ' '
}

func (w *wireConn) clamp(t time.Time) time.Time {
	if t.IsZero() || t.After(w.deadline) {
		return w.deadline
	}
	return t
}

func (w *wireConn) SetDeadline(t time.Time) error      { return w.Conn.SetDeadline(w.clamp(t)) }
func (w *wireConn) SetReadDeadline(t time.Time) error  { return w.Conn.SetReadDeadline(w.clamp(t)) }
func (w *wireConn) SetWriteDeadline(t time.Time) error { return w.Conn.SetWriteDeadline(w.clamp(t)) }

// errSTARTTLS is a server refusing or botching STARTTLS.
type errSTARTTLS struct{ msg string }

func (e *errSTARTTLS) Error() string { return "STARTTLS: " + e.msg }

// maxGreetingLine bounds the lines read before TLS starts.
const maxGreetingLine = 4 << 10

// startTLS upgrades a cleartext IMAP connection (RFC 9051 §6.2.1) before
// imapclient sees it: greeting, STARTTLS, handshake. imapclient then
// reads a greeting replayed over TLS and asks the capabilities again,
// as it must after STARTTLS. Doing it here keeps the whole session on
// our wireConn, TLS included (imapclient's own STARTTLS would put its
// TLS layer outside it). Nothing the server sent before the handshake
// is kept.
func startTLS(ctx context.Context, raw net.Conn, cfg *tls.Config) (net.Conn, int, error) {
	br := bufio.NewReaderSize(raw, maxGreetingLine)
	line, err := readLine(br)
	if err != nil {
		return nil, 0, err
	}
	switch up := strings.ToUpper(line); {
	case strings.HasPrefix(up, "* OK"):
	case strings.HasPrefix(up, "* PREAUTH"):
		return nil, 0, &errSTARTTLS{"the server authenticated the connection before TLS (PREAUTH)"}
	default:
		return nil, 0, fmt.Errorf("greeting: %q", clip(line, 100))
	}
	if _, err := raw.Write([]byte("S0 STARTTLS\r\n")); err != nil {
		return nil, 1, err
	}
	for i := 0; ; i++ {
		line, err := readLine(br)
		if err != nil {
			return nil, 1, err
		}
		if i > 20 {
			return nil, 1, &errSTARTTLS{"no answer to STARTTLS"}
		}
		if strings.HasPrefix(line, "* ") {
			continue
		}
		if !strings.HasPrefix(strings.ToUpper(line), "S0 OK") {
			return nil, 1, &errSTARTTLS{"refused: " + clip(line, 200)}
		}
		break
	}
	if br.Buffered() > 0 {
		// Data after the OK and before the handshake: injected plaintext
		// (CVE-2011-0411 style); refuse rather than read it as TLS.
		return nil, 1, &errSTARTTLS{"the server sent data before the TLS handshake"}
	}
	tc := tls.Client(raw, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, 1, err
	}
	return &replayConn{Conn: tc, pending: []byte("* OK [TLS] greeting replayed after STARTTLS\r\n")}, 1, nil
}

func readLine(br *bufio.Reader) (string, error) {
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return "", errors.New("line longer than 4 KiB before TLS")
	}
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(line), "\r\n"), nil
}

// replayConn serves pending bytes before the connection's own.
type replayConn struct {
	net.Conn
	pending []byte
}

func (c *replayConn) Read(p []byte) (int, error) {
	if len(c.pending) > 0 {
		n := copy(p, c.pending)
		c.pending = c.pending[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// clip cuts a text shown in a result to n bytes (on a rune boundary).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
