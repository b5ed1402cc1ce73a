// Package engine runs scrape jobs (docs/jobs.md): it splits a job into
// tasks over the tiles of its grid, searches the map provider for each
// (tile, query), splits saturated tiles as deep as the job's mode allows,
// and merges the results into the job's CSV. It works from the tasks queue
// alone, so that a pool of goroutines (Run, locally) and a Lambda consuming
// SQS (Handle) run it alike, and every step is safe to redo: at-least-once
// delivery, crashes and concurrent duplicates change nothing in the output
// or the counters.
//
// # Messages
//
// Three kinds of JSON messages travel on the tasks queue: start (sent by
// Start when a job is created), task (one per task, carrying its tile and
// its query indexes) and finalize.
//
// # Start
//
// The start handler rebuilds the job's plan from its recorded settings
// (scrape.Clean, then scrape.Service.Plan; plans are cached per job, a
// bounded map), moves the job pending → running (conditional on pending;
// started_at) with its open_tasks attribute set to the number of root
// tasks, and sends the root tasks: one per base tile, in the grid's order,
// with every query, ids "r1", "r2", ... A start delivered again finds the
// job running and sends again the root tasks the ledger does not hold as
// done; one with no task open sends finalize.
//
// # Tasks
//
// A task is a tile and some of the job's queries; its units are the
// (tile, query) searches. Ids are deterministic: "r<n>" for the n-th base
// tile, "<parent>.<n>" for the n-th of the parent tile's children that
// reach a zone (grid.Children order), so the depth of a task is its
// number of dots. A task handler:
//
//  1. drops the message when the job is gone or terminal (cancelled
//     included); when the ledger holds the task as done (JOB#<id> /
//     TASK#<task>) it sends again the task's children still pending, and
//     finalize when the job has no task open, then acks;
//  2. closes the task without searching when the job has a stop_at and
//     its results_count has reached it;
//  3. otherwise searches every unit, all at once: every page up to the
//     provider's cap (in the country's language: French for FRA, BEL,
//     CHE, LUX, MCO; the provider's default elsewhere). A request failing
//     with provider.ErrTransient is retried Retries times after Backoff
//     (no provider slot held while waiting); every request counts in
//     total_attempts_count, and a unit that still fails (or fails for good)
//     counts one in error_count, keeping the places its earlier pages gave.
//     A search listing the cap is saturated: below the mode's MaxDepth
//     its query goes to the child tasks (one per child tile reaching a
//     zone, each with every query that saturated on the parent); at
//     MaxDepth, or when no quarter of the tile reaches a zone, it counts
//     one in flagged_tiles_count (per saturated search, not per tile);
//  4. keeps a place only when grid.Locate puts its coordinates in a zone
//     of the request (the provider returns some beyond the rectangle, and
//     tiles overshoot their zones), and the first row of each place id
//     within the task, labelled with its query and its first zone (plus
//     department and region names from the gazetteer when asked for),
//     then, when the job has include_reviews, reads the latest reviews of
//     those rows (below);
//  5. writes the rows to jobs/<id>/parts/<task>.jsonl (replacing what an
//     earlier delivery wrote; no file when there is no row);
//  6. commits one transaction (below); a failed condition means another
//     delivery closed the task, or the job left running: the work is
//     dropped;
//  7. only then sends the child tasks, and finalize when a read of the
//     job after the commit shows no task open (two workers may both see
//     0 and both send it: the finalizer is idempotent).
//
// The transaction of a task, at most 6 operations:
//
//	Put    TASK#<task>   state=done, tile, q, rows, stats, skipped, ttl
//	                     if attribute_not_exists(pk) OR state = pending
//	Put    TASK#<child>  state=pending, tile, q, ttl       (per child)
//	                     if attribute_not_exists(pk)
//	Update JOB           ADD processed_points (1 for a root task, searched
//	                     or closed by stop_at), results_count, total_attempts_count,
//	                     error_count, flagged_tiles_count, open_tasks (children − 1)
//	                     if status = running
//
// A crash anywhere is safe: before the commit, the task is redone on its
// next delivery (same id, same part); after it, the next delivery finds
// the task done and sends again its pending children. A child that runs
// twice finds itself done the second time. One caveat: two deliveries of
// a task running at once both write its part and one commits; with a
// provider that answers differently from one call to the next, the part
// may be the other delivery's, and the task's counters then describe
// another search than its rows (the output is still a valid search).
//
// results_count is live while the job runs: each task adds the places it
// kept that lie in its own tile (the provider returns some from the
// neighbours', which count there), that were found by a search that did
// not split (a split search's places are found again by its children)
// and, under exclude_foreign_phones, whose number is not foreign. Base
// tiles and their quarters partition the zones, so this is close to the
// merge's count before max_per_phone (a place listed under two queries
// that split differently counts twice). stop_at compares against it. The
// finalizer sets the exact count.
//
// The worker classifies each row's number (its E.164 form and whether it
// is foreign, in the part), so that the finalizer parses none.
//
// # Reviews
//
// Under include_reviews the worker asks the provider for the latest
// MaxReviews (5) reviews of each row it keeps (provider.Reviews, newest
// first), all at once like its searches: each request holds a Workers
// slot, a provider.ErrTransient failure is retried Retries times after
// Backoff, every request counts in total_attempts_count, and a place
// still failing keeps its row without reviews and counts one in
// error_count. A task keeps one row per place id, so no place is asked
// twice within a task; across tasks a place is asked again (a saturated
// search's places are found again by its children, a tile's search lists
// places of its neighbours: about twice the output's places in tests),
// and each failing ask counts. Rows with a foreign number under
// exclude_foreign_phones (the merge drops them) and places listing no
// review (reviews_count 0) are not asked. The reviews travel in the part
// (latest_reviews) and the redone task fetches them again. The output then
// ends with the columns avis_1 (the latest) to avis_5, each
// "<rating>/5 — <author> — <text>" (a part left out when empty), on one
// line, cut to ReviewCellChars (500) characters ending with "…"; cells
// beyond the place's reviews are empty. A job without include_reviews has
// no such column.
//
// # Finalize
//
// The finalizer acks a job not running, and drops a finalize sent while
// tasks are open. It reads the ledger, merges the parts with rows in task
// order (a task before its children: "r2" < "r2.1" < "r2.2" < "r10"),
// keeps the first row of each place id, drops numbers of another country
// when exclude_foreign_phones (numbers parsed with
// github.com/nyaruka/phonenumbers against the country's alpha-2 code; a
// number without a calling code is national; France's overseas codes are
// not foreign) and rows beyond max_per_phone per number (0: no limit; rows
// without a usable number are never dropped), and writes
// jobs/<id>/output.csv with shared/export's writer (UTF-8 BOM, ';', CRLF,
// formula cells prefixed with an apostrophe; columns nom,
// site_web, telephone, adresse, rating, reviews_count, category,
// lien_maps, aggregator_flag, place_id, query, zone, then latitude and
// longitude, departement, region as asked, then avis_1 … avis_5 under
// include_reviews). aggregator_flag is true when
// the website is a directory, marketplace, booking or delivery platform
// or social network (aggregatorSite), or when SharedPhonePlaces or more
// places of the job list the same number. It computes breakdown (rows per
// query and per zone label), query_stats (per query: tiles searched, base
// and split, and those where the search kept a place), dead_queries
// (queries searched at least once that never kept a place), results_count
// and output_filename, and in one transaction moves the job running →
// done (conditional) and releases its slot of the concurrent-job limit
// (USER#<uid> / ACTIVE, ADD −1):
//
//	Update JOB           status=done, doc (completed_at and the outputs above),
//	                     results_count=<final>   if status = running
//	Update USER#<uid> / ACTIVE   ADD n −1
//
// After the commit, the end is logged, OnTerminal is told, and the parts
// are deleted (the output holds them; a finalize running concurrently
// then fails on a missing part and leaves the done job alone).
//
// # Failures
//
// A message that cannot run for good (settings or zones that no longer
// resolve, a missing or unreadable part, an inconsistent ledger, the map
// provider refusing the account: provider.ErrRefused) fails the job at
// once: pending or running → failed with completed_at and error_message,
// the slot released, in one transaction (the shape of done's, conditional
// on pending or running). Other errors leave the message to be delivered
// again. A message the engine cannot read is logged and dropped.
//
// Every message a worker cannot finish ends in a recorded give-up
// (giveup.go): under a deadline (a Lambda's context, Deadlines locally)
// the work gets the deadline minus Reserve; the GiveUpAfter-th delivery
// that fails or runs out of that budget records the give-up within the
// reserve, and a later delivery (that one's process died) records it at
// once without working. A tile task or an item batch given up is closed
// in the ledger (state done, gave_up, no rows; a batch keeps its items'
// input cells) with its units counted in error_count, and the job goes
// on; a start, a single run or a finalize given up fails the job.
//
// The job's item counts its units (a scrape's searches, an item job's
// items) answered and failed (outcome.go). A job whose units all failed
// ends failed ("Nothing could be done: …"), at once when its first
// FailFastAfter units failed with none answered; a job done with some
// failed writes one log line ("12 of 340 searches failed: <cause>.").
// A scrape is refunded the searches that were not answered
// (pricing.Refund): their share of its charge when done, what its charge
// assumed less what was answered when failed.
//
// The periodic sweep (SweepMessage) fails the jobs of the active index
// (jobs.StaleJobs) that made no progress for longer than the redelivery
// chain of the message they wait for plus StuckMargin (sweep.go), which
// frees the pool lease they hold through OnTerminal.
//
// # Job log
//
// Lines for the progress stream are items JOB#<id> / LOG#<seq, 20 digits>
// (seq from an ADD on the job's log_seq; attributes seq, at, en, fr, ttl):
// at start, every LogEvery root tasks (progress), on each split, at the end
// (done or failed). Beyond MaxLogs lines, progress and split lines are no
// longer written.
//
// # Concurrency
//
// Workers bounds the provider requests in flight in the process; Run
// handles Handlers messages at once so that bookkeeping overlaps
// searches. A message stays hidden while handled (Visibility, renewed
// every third of it); when ctx ends, Run stops receiving, abandons the
// messages being handled (making them visible again) and returns once
// every goroutine has.
//
// Items of the engine in the jobs table carry the job's expires_at as ttl.
package engine
