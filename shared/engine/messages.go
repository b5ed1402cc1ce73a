package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/paulmach/orb/maptile"

	"github.com/prospectdata/svc/shared/queue"
)

// Message kinds.
const (
	kindStart    = "start"
	kindTask     = "task"
	kindFinalize = "finalize"
	// kindSalvage keeps what a stopped (cancelled or failed) job had done
	// as its output.
	kindSalvage = "salvage"
	kindSweep   = "sweep"
	kindBatch   = "batch"
	kindSingle  = "single"
	// kindDerive makes one format (json, xlsx) of a job's output from its
	// CSV, each its own message so that each has its own time budget.
	kindDerive = "derive"
	// kindExport builds an account's data export into the file store.
	kindExport = "export"
)

// SweepMessage is the body of the periodic sweep message (a schedule sends
// it to the tasks queue): its handling calls Deps.OnSweep.
const SweepMessage = `{"kind":"sweep"}`

// message is the body of a tasks-queue message, as JSON:
//
//	{"kind":"start","job":"<id>"}
//	{"kind":"task","job":"<id>","task":"r3.2","tile":[z,x,y],"q":[0,2]}
//	{"kind":"batch","job":"<id>","task":"b3","items":[{"i":40,"v":{"site_web":"…"}},…]}
//	{"kind":"finalize","job":"<id>"}
//	{"kind":"sweep"}
//
// A task message carries its whole definition (tile and query indexes into
// the job's queries), so that a worker needs no read to know its work.
type message struct {
	Kind    string    `json:"kind"`
	Job     string    `json:"job"`
	Task    string    `json:"task,omitempty"`
	Tile    *[3]int64 `json:"tile,omitempty"`
	Queries []int     `json:"q,omitempty"`
	// Partial, on a finalize, merges the tasks done so far although others
	// remain: the job was stopped at its maximum run time and a resume
	// continues the rest.
	Partial bool `json:"partial,omitempty"`
	// Items are a batch's items (item jobs).
	Items []batchItem `json:"items,omitempty"`
	// Format is a derive's format (json or xlsx).
	Format string `json:"format,omitempty"`
	// User is an export's account.
	User int64 `json:"user,omitempty"`
}

func decode(body []byte) (message, error) {
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		return m, err
	}
	if m.Kind == kindSweep {
		return m, nil
	}
	if m.Kind == kindExport {
		if m.User <= 0 {
			return m, errors.New("export: no user")
		}
		return m, nil
	}
	if m.Job == "" || len(m.Job) > 64 {
		return m, errors.New("no job id")
	}
	switch m.Kind {
	case kindStart, kindFinalize, kindSingle, kindSalvage:
		return m, nil
	case kindDerive:
		if !derivable(m.Format) {
			return m, fmt.Errorf("derive: bad format %q", m.Format)
		}
		return m, nil
	case kindTask:
		if _, ok := parseTaskID(m.Task); !ok {
			return m, fmt.Errorf("bad task id %q", m.Task)
		}
		if _, ok := m.tile(); !ok {
			return m, fmt.Errorf("task %s: bad tile", m.Task)
		}
		if len(m.Queries) == 0 {
			return m, fmt.Errorf("task %s: no queries", m.Task)
		}
		return m, nil
	case kindBatch:
		if _, ok := parseBatchID(m.Task); !ok {
			return m, fmt.Errorf("bad batch id %q", m.Task)
		}
		if len(m.Items) == 0 || len(m.Items) > BatchSize {
			return m, fmt.Errorf("batch %s: %d items", m.Task, len(m.Items))
		}
		return m, nil
	}
	return m, fmt.Errorf("unknown kind %q", m.Kind)
}

// tile is the task's tile, if valid.
func (m message) tile() (maptile.Tile, bool) {
	if m.Tile == nil {
		return maptile.Tile{}, false
	}
	z, x, y := m.Tile[0], m.Tile[1], m.Tile[2]
	if z < 0 || z > 30 || x < 0 || y < 0 || x >= 1<<z || y >= 1<<z {
		return maptile.Tile{}, false
	}
	return maptile.New(uint32(x), uint32(y), maptile.Zoom(z)), true
}

func tileArray(t maptile.Tile) *[3]int64 { return &[3]int64{int64(t.Z), int64(t.X), int64(t.Y)} }

func tileString(t maptile.Tile) string { return fmt.Sprintf("%d/%d/%d", t.Z, t.X, t.Y) }

func parseTileString(s string) (*[3]int64, bool) {
	parts := strings.Split(s, "/")
	if len(parts) != 3 {
		return nil, false
	}
	var out [3]int64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, false
		}
		out[i] = n
	}
	return &out, true
}

func taskMessage(job, task string, t maptile.Tile, qs []int) message {
	return message{Kind: kindTask, Job: job, Task: task, Tile: tileArray(t), Queries: qs}
}

// rootID is the id of the n-th root task (0-based n): "r1", "r2", ...
func rootID(n int) string { return "r" + strconv.Itoa(n+1) }

// childID is the id of the n-th child (0-based) of a task: "r3.1", ...
func childID(parent string, n int) string { return parent + "." + strconv.Itoa(n+1) }

// parseTaskID reads "r<n>(.<n>)*" into its numbers, each at least 1.
func parseTaskID(id string) ([]int, bool) {
	rest, ok := strings.CutPrefix(id, "r")
	if !ok || len(id) > 64 {
		return nil, false
	}
	var out []int
	for p := range strings.SplitSeq(rest, ".") {
		if p == "" || p[0] == '0' || len(p) > 9 {
			return nil, false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// depth is how many splits below its base tile a task is: 0 for a root.
func depth(task string) int { return strings.Count(task, ".") }

// compareTaskIDs orders task ids as the finalizer merges their parts: a
// task before its children, children in order, then the next root
// ("r2" < "r2.1" < "r2.1.4" < "r2.2" < "r10").
func compareTaskIDs(a, b string) int {
	pa, _ := parseTaskID(a)
	pb, _ := parseTaskID(b)
	if c := slices.Compare(pa, pb); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// sendConcurrency is how many batches of a large send are in flight.
const sendConcurrency = 8

// send enqueues messages on the tasks queue, but for the output's
// messages (finalize, salvage, derive, export), which go to the finalize
// queue.
func (e *Engine) send(ctx context.Context, ms ...message) error {
	var tasks, outputs []message
	for _, m := range ms {
		if outputKind(m.Kind) {
			outputs = append(outputs, m)
		} else {
			tasks = append(tasks, m)
		}
	}
	if err := e.sendTo(ctx, e.d.FinalizeQueue, outputs...); err != nil {
		return err
	}
	return e.sendTo(ctx, e.d.QueueName, tasks...)
}

// sendTo enqueues messages on a queue in batches of queue.MaxBatch,
// several batches at once.
func (e *Engine) sendTo(ctx context.Context, q string, ms ...message) error {
	if len(ms) == 0 {
		return nil
	}
	bodies := make([]queue.Message, len(ms))
	for i, m := range ms {
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		bodies[i] = queue.Message{Body: b}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, sendConcurrency)
	)
	for batch := range slices.Chunk(bodies, queue.MaxBatch) {
		slots <- struct{}{}
		if ctx.Err() != nil {
			break
		}
		wg.Go(func() {
			defer func() { <-slots }()
			if _, err := e.d.Queue.Send(ctx, q, batch...); err != nil {
				mu.Lock()
				if first == nil {
					first = fmt.Errorf("send %d messages: %w", len(batch), err)
				}
				mu.Unlock()
				cancel()
			}
		})
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
