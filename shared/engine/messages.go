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
//	{"kind":"task","job":"<id>","task":"r5","tile":[z,x,y],"q":[0],"wide":[[1,z,x,y]]}
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
	// Wide are a root task's merged searches (scrape.Plan.Merges): each
	// [q, z, x, y] searches query q over the ancestor tile z/x/y of the
	// task's tile, in place of the searches of q of its base tiles. A root
	// whose every query is merged into others' searches has no query.
	Wide [][4]int64 `json:"wide,omitempty"`
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
		t, ok := m.tile()
		if !ok {
			return m, fmt.Errorf("task %s: bad tile", m.Task)
		}
		root := isRoot(m.Task)
		if len(m.Queries) == 0 && !root {
			return m, fmt.Errorf("task %s: no queries", m.Task)
		}
		if len(m.Wide) > 0 && !root {
			return m, fmt.Errorf("task %s: merged searches outside a root task", m.Task)
		}
		for _, w := range m.Wide {
			a, ok := wideTile(w)
			if !ok || a.Z >= t.Z || !a.Contains(t) {
				return m, fmt.Errorf("task %s: bad merged search %v", m.Task, w)
			}
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

// wideTile is the tile of a merged search [q, z, x, y], if valid.
func wideTile(w [4]int64) (maptile.Tile, bool) {
	return message{Tile: &[3]int64{w[1], w[2], w[3]}}.tile()
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

// fallbackID is the id of the task that searches base tile n (0-based)
// when the merged search of a root task reaches the cap: "r3.9" for the
// root r3 and base tile 4. Its number is above a child's (1 to 4), so that
// it reads apart: the fallback is a base tile, planned as a root (depth).
func fallbackID(root string, n int) string { return root + "." + strconv.Itoa(n+fallbackBase) }

// isRoot tells whether a task is a root task ("r3"): one base tile done.
func isRoot(task string) bool { return !strings.Contains(task, ".") }

// fallbackBase is the number of a fallback task for base tile 0.
const fallbackBase = 5

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

// depth is how many splits below its base tile a task is: 0 for a root
// and for a merged search's fallback ("r3.9"), 1 for their children, ...
func depth(task string) int {
	ids, _ := parseTaskID(task)
	d := 0
	for _, n := range ids[min(1, len(ids)):] {
		if n >= fallbackBase {
			d = 0
		} else {
			d++
		}
	}
	return d
}

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
