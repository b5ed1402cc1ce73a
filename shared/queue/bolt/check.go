package bolt

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/prospectdata/svc/shared/queue"
)

// The request checks of the port's rules. queue/sqs applies the same rules
// before calling SQS: they are restated there rather than shared so that the
// port package keeps its API to the interface and its constants.

func checkSend(msgs []queue.Message) error {
	if len(msgs) == 0 || len(msgs) > queue.MaxBatch {
		return fmt.Errorf("%w: %d messages, want 1 to %d", queue.ErrInvalid, len(msgs), queue.MaxBatch)
	}
	for i, m := range msgs {
		if m.Delay < 0 || m.Delay > queue.MaxDelay {
			return fmt.Errorf("%w: message %d: delay %v outside 0..%v", queue.ErrInvalid, i, m.Delay, queue.MaxDelay)
		}
		if err := checkBody(m.Body); err != nil {
			return fmt.Errorf("message %d: %w", i, err)
		}
	}
	return nil
}

// checkBody enforces SQS's rule for bodies: text of allowed characters.
func checkBody(b []byte) error {
	if len(b) == 0 || len(b) > queue.MaxBodyBytes {
		return fmt.Errorf("%w: body of %d bytes, want 1 to %d", queue.ErrInvalid, len(b), queue.MaxBodyBytes)
	}
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("%w: body is not UTF-8 text (byte %d)", queue.ErrInvalid, i)
		}
		if !allowedRune(r) {
			return fmt.Errorf("%w: body has character %U at byte %d, which SQS refuses", queue.ErrInvalid, r, i)
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

func checkReceive(limit int, wait, visibility time.Duration) error {
	switch {
	case limit < 1 || limit > queue.MaxBatch:
		return fmt.Errorf("%w: receive of %d messages, want 1 to %d", queue.ErrInvalid, limit, queue.MaxBatch)
	case wait < 0 || wait > maxWait:
		return fmt.Errorf("%w: wait %v outside 0..%v", queue.ErrInvalid, wait, maxWait)
	case visibility < 0 || visibility > queue.MaxVisibility:
		return fmt.Errorf("%w: visibility timeout %v outside 0..%v", queue.ErrInvalid, visibility, queue.MaxVisibility)
	}
	return nil
}

// maxWait is SQS's longest long poll, which the port's Receive documents.
const maxWait = 20 * time.Second

// ceilSecond rounds d up to whole seconds, SQS's granularity for delays and
// visibility timeouts, so that both drivers hide a message equally long.
func ceilSecond(d time.Duration) time.Duration {
	return (d + time.Second - 1).Truncate(time.Second)
}
