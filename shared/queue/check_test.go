package queue_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/queue"
)

// TestCheckReceive: a receive within SQS's documented limits passes, one
// outside them is ErrInvalid before any driver is asked.
func TestCheckReceive(t *testing.T) {
	tests := []struct {
		name       string
		limit      int
		wait, vis  time.Duration
		wantRefuse bool
	}{
		{"one message, no wait", 1, 0, 0, false},
		{"the largest batch, the longest poll and visibility", queue.MaxBatch, queue.MaxWait, queue.MaxVisibility, false},
		{"no message", 0, 0, 0, true},
		{"one message too many", queue.MaxBatch + 1, 0, 0, true},
		{"a negative wait", 1, -time.Second, 0, true},
		{"a wait past SQS's long poll", 1, queue.MaxWait + time.Second, 0, true},
		{"a negative visibility", 1, 0, -time.Second, true},
		{"a visibility past 12 hours", 1, 0, queue.MaxVisibility + time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := queue.CheckReceive(tt.limit, tt.wait, tt.vis)
			if got := errors.Is(err, queue.ErrInvalid); got != tt.wantRefuse || (err != nil && !got) {
				t.Errorf("CheckReceive(%d, %v, %v) = %v", tt.limit, tt.wait, tt.vis, err)
			}
		})
	}
}

// TestCheckSend: a batch is refused whole when one message breaks a rule
// (count, delay, body), with the message's index in the error.
func TestCheckSend(t *testing.T) {
	ok := queue.Message{Body: []byte(`{"job":"j1"}`)}
	batch := func(n int) []queue.Message {
		out := make([]queue.Message, n)
		for i := range out {
			out[i] = ok
		}
		return out
	}
	tests := []struct {
		name    string
		msgs    []queue.Message
		wantErr string // "" for accepted
	}{
		{"one message", batch(1), ""},
		{"the largest batch", batch(queue.MaxBatch), ""},
		{"the longest delay", []queue.Message{{Body: ok.Body, Delay: queue.MaxDelay}}, ""},
		{"no message", nil, "0 messages"},
		{"one message too many", batch(queue.MaxBatch + 1), "11 messages"},
		{"a negative delay", []queue.Message{ok, {Body: ok.Body, Delay: -time.Second}}, "message 1: delay"},
		{"a delay past 15 minutes", []queue.Message{{Body: ok.Body, Delay: queue.MaxDelay + time.Second}}, "message 0: delay"},
		{"an empty body", []queue.Message{ok, ok, {}}, "message 2: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := queue.CheckSend(tt.msgs)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.wantErr != "" && (!errors.Is(err, queue.ErrInvalid) || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("error %v, want ErrInvalid with %q", err, tt.wantErr)
			}
		})
	}
}

// TestCheckBody: SQS's body rule, 1 to 256 KiB of UTF-8 made of XML 1.0
// characters, at its edges.
func TestCheckBody(t *testing.T) {
	tests := []struct {
		name string
		body []byte
		ok   bool
	}{
		{"one byte", []byte("x"), true},
		{"exactly the largest body", []byte(strings.Repeat("a", queue.MaxBodyBytes)), true},
		{"French text, tabs and newlines", []byte("Boulangerie « Élodie »\t\r\n"), true},
		{"a character outside the BMP", []byte("🥖"), true},
		{"empty", nil, false},
		{"one byte past the largest", []byte(strings.Repeat("a", queue.MaxBodyBytes+1)), false},
		{"invalid UTF-8", []byte{'a', 0xff, 'b'}, false},
		{"a NUL byte", []byte("a\x00b"), false},
		{"a control character", []byte("a\x1bb"), false},
		{"U+FFFE", []byte("a\uFFFEb"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := queue.CheckBody(tt.body)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, queue.ErrInvalid)) {
				t.Errorf("CheckBody = %v, want ok=%v", err, tt.ok)
			}
		})
	}
}
