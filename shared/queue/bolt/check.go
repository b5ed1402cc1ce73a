package bolt

import (
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/queue"
)

// The receive checks of the port's rules; sends are checked by
// queue.CheckSend.

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
