package bolt

import "time"

// ceilSecond rounds d up to whole seconds, SQS's granularity for delays and
// visibility timeouts, so that both drivers hide a message equally long.
func ceilSecond(d time.Duration) time.Duration {
	return (d + time.Second - 1).Truncate(time.Second)
}
