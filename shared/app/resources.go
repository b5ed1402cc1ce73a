package app

import (
	"time"

	"github.com/prospectdata/svc/shared/jobs"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/webhooks"
)

// Queue names. Work (a job's start and tiles, item batches, single runs,
// finalizes) and webhook deliveries each have a dead-letter queue that
// receives a message after MaxReceives failed deliveries; an alarm watches
// each dead-letter queue.
const (
	QueueTasks         = "tasks"
	QueueTasksDLQ      = "tasks-dlq"
	QueueEnrich        = "enrich"
	QueueEnrichDLQ     = "enrich-dlq"
	QueueSources       = "sources"
	QueueSourcesDLQ    = "sources-dlq"
	QueueFinalize      = "finalize"
	QueueFinalizeDLQ   = "finalize-dlq"
	QueueDeliveries    = webhooks.QueueName
	QueueDeliveriesDLQ = "deliveries-dlq"
	// QueueStreamDLQ receives a note of the event-stream records the
	// webhook fan-out failed past its retries (no message of a queue:
	// the stream's on-failure destination), apart from failed deliveries.
	QueueStreamDLQ = "stream-dlq"
)

// GiveUpAfter is the delivery of a work message on which the engine stops
// retrying and records a give-up for its tile, batch or step (the job then
// ends without it). It is the one source of the work queues' redrive: their
// MaxReceives is GiveUpAfter+1, so a delivery that records the give-up is
// always made (and a second one, when the process dies while recording it)
// before SQS moves the message to its dead-letter queue. infra checks it.
const GiveUpAfter = 4

// VisibilityFactor: a queue's visibility timeout is at least this many
// times its consumer's function timeout, as AWS advises for an SQS event
// source (a message a killed invocation held reappears only after it).
const VisibilityFactor = 6

// Queues lists every queue the service uses, with its redrive settings. The
// local runtime opens them on bbolt; the CDK app creates them on SQS. A
// consumed queue's visibility is VisibilityFactor times its worker's
// timeout (Workers), so the two cannot drift apart.
func Queues() []queue.Config {
	work := func(name, dlq string) []queue.Config {
		return []queue.Config{
			{Name: name, VisibilityTimeout: consumerVisibility(name), MaxReceives: GiveUpAfter + 1, DeadLetter: dlq},
			{Name: dlq, VisibilityTimeout: time.Minute},
		}
	}
	var qs []queue.Config
	qs = append(qs, work(QueueTasks, QueueTasksDLQ)...)
	qs = append(qs, work(QueueEnrich, QueueEnrichDLQ)...)
	qs = append(qs, work(QueueSources, QueueSourcesDLQ)...)
	qs = append(qs, work(QueueFinalize, QueueFinalizeDLQ)...)
	return append(qs,
		queue.Config{Name: QueueDeliveries, VisibilityTimeout: consumerVisibility(QueueDeliveries), MaxReceives: 5, DeadLetter: QueueDeliveriesDLQ},
		queue.Config{Name: QueueDeliveriesDLQ, VisibilityTimeout: time.Minute},
		queue.Config{Name: QueueStreamDLQ, VisibilityTimeout: time.Minute},
	)
}

// consumerVisibility is VisibilityFactor times the timeout of the worker
// consuming queue q.
func consumerVisibility(q string) time.Duration {
	for _, w := range Workers() {
		if w.Queue == q {
			return VisibilityFactor * time.Duration(w.TimeoutS) * time.Second
		}
	}
	panic("app: queue " + q + " has no worker") // a programming error, caught by every test
}

// OutputRetention is how long job outputs stay downloadable (the value
// behind a job's expires_at, jobs.Retention); the bucket's lifecycle rule
// matches it.
const OutputRetention = jobs.Retention

// File key prefixes of the file store, with their lifecycle on S3.
const (
	PrefixJobs    = "jobs/"    // job outputs: expire after OutputRetention
	PrefixExports = "exports/" // account export archives: expire after a day
	PrefixAssets  = "assets/"  // re-hosted brand assets: kept while the account and the job live
)

// Worker is a function fed by a queue rather than by HTTP: on AWS a Lambda
// with the queue as its event source (functions/<Name>); locally the
// engine's goroutines consume the same queue.
type Worker struct {
	Name string
	// Queue is the queue that feeds it (one message per invocation);
	// Stream, a table whose change stream feeds it. A worker may have both.
	Queue  string
	Stream string
	// Tables, SendsTo and Files are what it touches, as for route groups.
	Tables  []string
	SendsTo []string
	Files   bool
	// MemoryMB and TimeoutS size the function; the queue's visibility
	// timeout must exceed TimeoutS.
	MemoryMB int
	TimeoutS int
	// Browser: the function takes screenshots, so it runs on x86_64 with
	// the serverless Chromium pack as a layer (/opt/chromium,
	// SVC_CHROMIUM_PACK) and room in /tmp to unpack it.
	Browser bool
	// Gazetteer: load it during init.
	Gazetteer bool
	// Sources: the worker runs the data-source modules, so it gets their
	// keys and seed mailboxes from the stack's DataSourceSecrets.
	Sources bool
	// StateMachine: the worker is the Lambda of the tasks of that state
	// machine (statemachines/), which invokes it with each task's
	// payload.
	StateMachine string
	// Every: an EventBridge scheduled rule invokes the worker at this
	// rate (whole minutes); locally the same function runs on a ticker.
	Every time.Duration
}

// Schedule is a message sent to a queue at a fixed rate: on AWS an
// EventBridge rule with the queue as its target, locally a ticker of
// App.Work.
type Schedule struct {
	Name  string
	Queue string
	Every time.Duration // whole minutes (EventBridge's rate unit)
	Body  string
}

// SweepMessage is the body of the sweep schedule's message, as the engine
// reads it (engine.SweepMessage; a test keeps the two equal). It is
// written here so that the account functions, which link no engine, still
// know the schedules.
const SweepMessage = `{"kind":"sweep"}`

// Schedules lists the periodic messages.
func Schedules() []Schedule {
	return []Schedule{{
		// The sweep frees a pool lease whose holder ended without
		// releasing it (its process died) and promotes the next job.
		Name: "sweep", Queue: QueueTasks, Every: time.Minute, Body: SweepMessage,
	}}
}

// Workers lists the queue-fed functions.
func Workers() []Worker {
	return []Worker{{
		// Scrape tasks: a job's start, its tile tasks and its finalizer.
		Name: "worker-tasks", Queue: QueueTasks, Tables: []string{"accounts", "jobs", "pipelines", "veille", "densities", "events", "limits"},
		SendsTo: []string{QueueTasks, QueueEnrich, QueueSources, QueueFinalize}, Files: true, MemoryMB: 1024, TimeoutS: 120, Gazetteer: true,
	}, {
		// Enrichment: the batches of item jobs (a module over 20 items),
		// which fetch websites; the last batch sends its job's finalize
		// to the tasks queue. Items run at once within a batch, each
		// bounded by enrich.ItemTimeout.
		Name: "worker-enrich", Queue: QueueEnrich, Tables: []string{"accounts", "jobs", "pipelines", "veille", "densities", "events", "limits"},
		SendsTo: []string{QueueTasks, QueueFinalize}, Files: true, MemoryMB: 2048, TimeoutS: 180, Browser: true, Sources: true,
	}, {
		// Finalizes: the merge of a job's parts into its CSV (up to
		// 2,000,000 rows) and the JSON and XLSX derived from it, each its
		// own message, so that the largest job's merge takes a fraction of
		// Lambda's longest timeout.
		// It also builds account exports (every concept's records, so
		// every table an export reads).
		Name: "job-finalizer", Queue: QueueFinalize, Tables: []string{"accounts", "jobs", "pipelines", "veille", "densities", "events", "webhooks"},
		SendsTo: []string{QueueTasks, QueueFinalize}, Files: true, MemoryMB: 3008, TimeoutS: 900,
	}, {
		// Single-run jobs: viewport tests, delivery checks (IMAP), sirene
		// searches, which page the registers API at its rate for minutes
		// (50,000 rows in about 5): Lambda's longest timeout.
		// It sends to the tasks queue the start of the next job of a pool
		// its job's end frees.
		// A rows run's end asks the finalize queue for its JSON and XLSX.
		Name: "worker-sources", Queue: QueueSources, Tables: []string{"accounts", "jobs", "pipelines", "veille", "densities", "events", "limits"},
		SendsTo: []string{QueueTasks, QueueFinalize}, Files: true, MemoryMB: 1024, TimeoutS: 900, Gazetteer: true, Sources: true,
	}, {
		// Pipelines: each task of the pipeline state machine (advance a
		// pipeline, await its next signal). An advance reads a stage's
		// CSV (10,000 rows at most) and creates the next jobs.
		// A cancelled pipeline's running stage is salvaged (finalize queue).
		Name: "pipeline-step", StateMachine: "pipeline", Tables: []string{"accounts", "jobs", "pipelines", "veille", "densities", "events"},
		SendsTo: []string{QueueTasks, QueueEnrich, QueueSources, QueueFinalize}, Files: true, MemoryMB: 512, TimeoutS: 60,
	}, {
		// Veilles: the tick starts the due replays (scrapes, pipelines'
		// roots) and computes the ended ones: a diff of up to a million
		// rows each way and the churn check's provider lookups.
		Name: "veille-tick", Every: time.Minute, Tables: []string{"accounts", "jobs", "pipelines", "veille", "densities", "events", "limits"},
		SendsTo: []string{QueueTasks, QueueEnrich, QueueSources}, Files: true, MemoryMB: 1024, TimeoutS: 900, Gazetteer: true,
	}, {
		// Webhooks: the events table's stream fans new events out into
		// deliveries, the deliveries queue posts them (10 s each at most).
		Name: "webhook-sender", Queue: QueueDeliveries, Stream: "events", Tables: []string{"accounts", "events", "webhooks"},
		SendsTo: []string{QueueDeliveries}, MemoryMB: 256, TimeoutS: 30,
	}}
}

// AccountTag is the build tag of the account functions (AccountFunctions):
// their wiring leaves out the engine, the browser and the fingerprint
// database (work.go, work_account.go). make build passes it to them.
const AccountTag = "account"

// AccountFunctions are the functions that serve accounts, keys, events,
// webhooks and the registry: they create no job and run none.
func AccountFunctions() []string {
	return []string{"api-auth", "api-events", "api-registry", "webhook-sender"}
}
