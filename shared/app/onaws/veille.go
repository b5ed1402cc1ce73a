package onaws

import (
	"context"
	"os"

	"github.com/aws/aws-lambda-go/events"

	"github.com/prospectdata/svc/shared/veille"
)

// TickHandler is the Lambda handler of the veille-tick function, invoked
// by its EventBridge scheduled rule.
type TickHandler func(context.Context, events.CloudWatchEvent) (veille.TickResult, error)

// VeilleTickHandler builds the handler of the veille-tick Lambda from the
// environment: each invocation is one veille.Service.Tick, the same
// function the local runtime's ticker calls. Overlapping invocations
// start each due replay once (the tick's conditional writes).
func VeilleTickHandler(ctx context.Context, getenv func(string) string, opts ...Option) (TickHandler, error) {
	a, _, err := buildWorker(ctx, "veille-tick", getenv, opts)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, _ events.CloudWatchEvent) (veille.TickResult, error) {
		return a.Veille.Tick(ctx)
	}, nil
}

// VeilleTickMain is the whole main of the veille-tick Lambda.
func VeilleTickMain() {
	h, err := VeilleTickHandler(context.Background(), os.Getenv)
	start("veille-tick", h, err)
}
