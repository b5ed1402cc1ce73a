package queue

import (
	"fmt"
	"time"
	"unicode/utf8"
)

// MaxWait is SQS's longest long poll, the bound of Receive's wait.
const MaxWait = 20 * time.Second

// CheckReceive applies the port's rules to a receive: 1 to MaxBatch
// messages, a wait within 0..MaxWait, a visibility within 0..MaxVisibility.
func CheckReceive(limit int, wait, visibility time.Duration) error {
	switch {
	case limit < 1 || limit > MaxBatch:
		return fmt.Errorf("%w: receive of %d messages, want 1 to %d", ErrInvalid, limit, MaxBatch)
	case wait < 0 || wait > MaxWait:
		return fmt.Errorf("%w: wait %v outside 0..%v", ErrInvalid, wait, MaxWait)
	case visibility < 0 || visibility > MaxVisibility:
		return fmt.Errorf("%w: visibility timeout %v outside 0..%v", ErrInvalid, visibility, MaxVisibility)
	}
	return nil
}

// CheckSend applies the port's rules to a batch before any driver sends it:
// 1 to MaxBatch messages, delays within 0..MaxDelay, valid bodies. Both
// drivers call it, so both refuse the same batches with ErrInvalid.
func CheckSend(msgs []Message) error {
	if len(msgs) == 0 || len(msgs) > MaxBatch {
		return fmt.Errorf("%w: %d messages, want 1 to %d", ErrInvalid, len(msgs), MaxBatch)
	}
	for i, m := range msgs {
		if m.Delay < 0 || m.Delay > MaxDelay {
			return fmt.Errorf("%w: message %d: delay %v outside 0..%v", ErrInvalid, i, m.Delay, MaxDelay)
		}
		if err := CheckBody(m.Body); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
	}
	return nil
}

// CheckBody enforces SQS's rule for bodies: 1 to MaxBodyBytes of UTF-8
// text of allowed characters. Checked before sending, so that SQS never
// refuses an entry and no driver silently replaces invalid UTF-8.
func CheckBody(b []byte) error {
	if len(b) == 0 || len(b) > MaxBodyBytes {
		return fmt.Errorf("%w: body of %d bytes, want 1 to %d", ErrInvalid, len(b), MaxBodyBytes)
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("%w: body is not UTF-8 text (byte %d)", ErrInvalid, i)
		}
		if !allowedRune(r) {
			return fmt.Errorf("%w: body has character %U at byte %d, which SQS refuses", ErrInvalid, r, i)
		}
		i += size
	}
	return nil
}

// allowedRune is XML 1.0's Char production, which SQS applies to bodies.
func allowedRune(r rune) bool {
	return r == 0x9 || r == 0xA || r == 0xD ||
		(r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) ||
		(r >= 0x10000 && r <= 0x10FFFF)
}
