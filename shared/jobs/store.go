package jobs

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/store"
)

// Table is the name of the jobs table.
const Table = "jobs"

// Schema is the key design of the jobs table (docs/tables.md):
//
//   - job: JOB#<id> / JOB, on the owner index as USER#<uid> /
//     JOB#<created, 20 digits of ms>#<id>, listed newest first;
//   - the account's active-job count: USER#<uid> / ACTIVE, changed in the
//     transaction of every creation and terminal transition;
//   - the engine's records under the job's partition (tasks, logs);
//   - a pool's lease, LEASE#<pool> / LEASE, and its queue of waiting jobs
//     on the sparse index gsi2 (pool.go);
//   - the jobs that have not ended, by their last progress, on the sparse
//     index gsi3 (active.go), which the sweep of stuck jobs reads.
func Schema() store.Schema {
	return store.Schema{
		Name: Table, PK: "pk", SK: "sk", TTL: "ttl",
		Indexes: []store.Index{
			{Name: "gsi1", PK: "gsi1pk", SK: "gsi1sk"}, {Name: "gsi2", PK: "gsi2pk", SK: "gsi2sk"},
			{Name: ActiveIndex, PK: "gsi3pk", SK: "gsi3sk"},
		},
	}
}

// Counter attributes are top-level numbers so that workers add to them
// atomically; the rest of the record is one JSON document.
var counters = []string{"processed_points", "results_count", "error_count", "flagged_tiles_count", "total_attempts_count"}

func jobKey(id string) store.Key { return store.Key{PK: "JOB#" + id, SK: "JOB"} }

func activeKey(uid int64) store.Key { return store.Key{PK: accounts.UserPK(uid), SK: "ACTIVE"} }

func ownerSK(j *Job) string { return "JOB#" + store.Padded(j.Created.UnixMilli()) + "#" + j.ID }

// item encodes a job for the table.
func item(j *Job) (store.Item, error) {
	doc, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("encode job %s: %w", j.ID, err)
	}
	it := store.Item{
		"pk": jobKey(j.ID).PK, "sk": "JOB",
		"gsi1pk": accounts.UserPK(j.UserID), "gsi1sk": ownerSK(j),
		"user_id": j.UserID, "status": string(j.Status), "doc": string(doc),
		"created_ms": j.Created.UnixMilli(),
	}
	for _, c := range counters {
		it[c] = int64(counterOf(j, c))
	}
	if j.Roots != nil {
		it["roots"] = joinInts(j.Roots)
	}
	if j.LowPriority {
		it["low_priority"] = true
	}
	if j.CaptureScreenshot {
		it["capture_screenshot"] = true
	}
	if len(j.Params) > 0 {
		it["params"] = string(j.Params)
	}
	if j.ParamsInFile {
		it["params_file"] = true
	}
	if j.PipelineNodeID != "" {
		it["pipeline_node_id"] = j.PipelineNodeID
	}
	if j.ExpectedSearches > 0 {
		it["expected_searches"] = j.ExpectedSearches
	}
	if len(j.Rates) > 0 {
		rs := make([]string, len(j.Rates))
		for i, r := range j.Rates {
			rs[i] = strconv.FormatFloat(r, 'g', -1, 64)
		}
		it["rates"] = strings.Join(rs, ",")
	}
	if pk, sk, ok := queueAttrs(j); ok {
		it["gsi2pk"], it["gsi2sk"] = pk, sk
	}
	if pk, sk, ok := activeAttrs(j); ok {
		it["gsi3pk"], it["gsi3sk"] = pk, sk
	}
	return it, nil
}

// joinInts and splitInts write a list of indexes as one string attribute.
func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func splitInts(s string) []int {
	out := []int{}
	for _, p := range strings.Split(s, ",") {
		if n, err := strconv.Atoi(p); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// fromItem decodes a job item; counters come from their attributes.
func fromItem(it store.Item) (*Job, error) {
	var j Job
	if err := json.Unmarshal([]byte(it.String("doc")), &j); err != nil {
		return nil, fmt.Errorf("decode job %s: %w", it.String("pk"), err)
	}
	j.UserID = it.Int("user_id")
	j.Status = Status(it.String("status"))
	j.Created = msTime(it.Int("created_ms"))
	for _, c := range counters {
		setCounter(&j, c, int(it.Int(c)))
	}
	if r := it.String("roots"); r != "" {
		j.Roots = splitInts(r)
	}
	j.LowPriority = it.Bool("low_priority")
	j.CaptureScreenshot = it.Bool("capture_screenshot")
	j.PipelineNodeID = it.String("pipeline_node_id")
	j.ExpectedSearches = it.Float("expected_searches")
	if r := it.String("rates"); r != "" {
		for _, f := range strings.Split(r, ",") {
			v, _ := strconv.ParseFloat(f, 64)
			j.Rates = append(j.Rates, v)
		}
	}
	if p := it.String("params"); p != "" {
		j.Params = json.RawMessage(p)
	}
	j.ParamsInFile = it.Bool("params_file")
	j.fillDefaults()
	return &j, nil
}

func counterOf(j *Job, name string) int {
	switch name {
	case "processed_points":
		return j.ProcessedPoints
	case "results_count":
		return j.ResultsCount
	case "error_count":
		return j.ErrorCount
	case "flagged_tiles_count":
		return j.FlaggedTilesCount
	case "total_attempts_count":
		return j.TotalAttemptsCount
	}
	return 0
}

func setCounter(j *Job, name string, v int) {
	switch name {
	case "processed_points":
		j.ProcessedPoints = v
	case "results_count":
		j.ResultsCount = v
	case "error_count":
		j.ErrorCount = v
	case "flagged_tiles_count":
		j.FlaggedTilesCount = v
	case "total_attempts_count":
		j.TotalAttemptsCount = v
	}
}

// idFromOwnerSK reads the job id at the end of an owner-index sort key.
func idFromOwnerSK(sk string) string {
	if i := strings.LastIndexByte(sk, '#'); i >= 0 {
		return sk[i+1:]
	}
	return sk
}

func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
