// Command fn is a bootstrap for the harness's own tests: it does what its
// event asks (sleep, answer a payload of a given size, fail, exit) and
// answers its process id and the time left before its deadline.
package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/lambda"
)

type event struct {
	SleepMS int    `json:"sleep_ms"`
	Size    int    `json:"size"`
	Fail    string `json:"fail"`
	Exit    bool   `json:"exit"`
}

type answer struct {
	PID         int    `json:"pid"`
	RemainingMS int64  `json:"remaining_ms"`
	Pad         string `json:"pad,omitempty"`
}

func main() {
	lambda.Start(func(ctx context.Context, ev event) (answer, error) {
		dl, _ := ctx.Deadline()
		a := answer{PID: os.Getpid(), RemainingMS: time.Until(dl).Milliseconds(), Pad: strings.Repeat("x", ev.Size)}
		if ev.Exit {
			os.Exit(3)
		}
		// A sleep that ignores its context: only the kill stops it.
		time.Sleep(time.Duration(ev.SleepMS) * time.Millisecond)
		if ev.Fail != "" {
			return answer{}, errors.New(ev.Fail)
		}
		return a, nil
	})
}
