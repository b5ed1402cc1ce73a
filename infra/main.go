// Command infra is the CDK app of the service's AWS runtime (cdk.json runs
// it from infra/). The stack is built in stack.go from the service's own
// tables; docs/aws.md describes it.
package main

import (
	"fmt"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/jsii-runtime-go"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "infra:", err)
		os.Exit(1)
	}
}

func run() error {
	// Close stops the jsii node process before the exit.
	defer jsii.Close()
	a := awscdk.NewApp(nil)
	// No env: the stack is environment-agnostic, so synth needs neither
	// credentials nor network.
	if _, err := NewStack(a, "Svc", nil); err != nil {
		return err
	}
	a.Synth(nil)
	return nil
}
