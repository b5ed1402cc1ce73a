package lambdatest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"sync"
)

// Process starts environments that are bootstrap processes, each served
// by its own Runtime with the function's timeout: env gives a process its
// environment from its Runtime API address (AWS_LAMBDA_RUNTIME_API and
// the variables the stack sets). A timed-out environment is closed by the
// Function, which kills its process; the next invocation starts a new
// one, as Lambda restarts the runtime after a timeout.
func Process(bin string, env func(runtimeAPI string) []string, logs io.Writer) Starter {
	return func(ctx context.Context, cfg Config) (Environment, error) {
		rt, err := StartWith(Options{Timeout: cfg.Timeout, FunctionName: cfg.Name})
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(bin)
		cmd.Env = env(rt.Addr)
		if logs == nil {
			logs = io.Discard
		}
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			rt.Close()
			return nil, fmt.Errorf("start %s: %w", bin, err)
		}
		p := &process{rt: rt, cmd: cmd, exited: make(chan struct{})}
		go func() { cmd.Wait(); close(p.exited) }()
		return p, nil
	}
}

type process struct {
	rt     *Runtime
	cmd    *exec.Cmd
	exited chan struct{}
	once   sync.Once
}

func (p *process) Invoke(ctx context.Context, payload []byte) ([]byte, *FunctionError) {
	type out struct {
		res Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		r, err := p.rt.InvokePayload(ctx, payload)
		ch <- out{r, err}
	}()
	var o out
	select {
	case o = <-ch:
	case <-p.exited:
		// The process died (a crash, os.Exit): Lambda reports it and
		// starts a new runtime for the next invocation.
		return nil, &FunctionError{Type: ErrorExit, Message: "RequestId: the runtime exited: " + p.cmd.ProcessState.String()}
	}
	if o.err != nil {
		return nil, &FunctionError{Type: ErrorExit, Message: o.err.Error()}
	}
	if o.res.TooLarge {
		return nil, tooLargeError(o.res.Size)
	}
	if o.res.TimedOut {
		return nil, timeoutError(p.rt.Timeout())
	}
	if o.res.Error {
		var fe FunctionError
		if json.Unmarshal(o.res.Body, &fe) != nil || fe.Type == "" {
			fe = FunctionError{Type: "Unhandled", Message: string(o.res.Body)}
		}
		return nil, &fe
	}
	return o.res.Body, nil
}

// Alive reports whether the process can take another invocation.
func (p *process) Alive() bool {
	select {
	case <-p.exited:
		return false
	default:
		return !p.rt.Broken()
	}
}

// Close kills the process (Lambda stops the environment; nothing runs
// after it) and stops its Runtime.
func (p *process) Close() error {
	p.once.Do(func() {
		p.cmd.Process.Kill()
		<-p.exited
		p.rt.Close()
	})
	return nil
}
