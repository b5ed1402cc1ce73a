package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/prospectdata/svc/shared/store"
)

// LogLine is one line of a job's log, as the engine writes it.
type LogLine struct {
	Seq int64  `json:"id"`
	At  string `json:"at"`
	EN  string `json:"-"`
	FR  string `json:"-"`
}

// Logs returns the job's log lines after seq (0: from the start), oldest
// first, at most limit (limit <= 0: all); with tail > 0 and seq 0, only the
// last tail lines.
func (s *Service) Logs(ctx context.Context, id string, after int64, tail int) ([]LogLine, error) {
	q := store.Query{PK: jobKey(id).PK, SK: store.SortCond{Op: store.SortGt, Value: "LOG#" + store.Padded(after)}}
	if after == 0 && tail > 0 {
		q = store.Query{PK: jobKey(id).PK, SK: store.BeginsWith("LOG#"), Desc: true, Limit: tail}
		p, err := s.d.DB.Table(Table).Query(ctx, q)
		if err != nil {
			return nil, fmt.Errorf("job %s logs: %w", id, err)
		}
		out := make([]LogLine, 0, len(p.Items))
		for i := len(p.Items) - 1; i >= 0; i-- {
			out = append(out, logLine(p.Items[i]))
		}
		return out, nil
	}
	var out []LogLine
	err := store.ForEach(ctx, s.d.DB.Table(Table), q, func(it store.Item) error {
		if len(it.String("sk")) < 4 || it.String("sk")[:4] != "LOG#" {
			return store.ErrStop // past the log lines (TASK# sorts after LOG#)
		}
		out = append(out, logLine(it))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("job %s logs: %w", id, err)
	}
	return out, nil
}

func logLine(it store.Item) LogLine {
	return LogLine{Seq: it.Int("seq"), At: it.String("at"), EN: it.String("en"), FR: it.String("fr")}
}

// StreamPoll is how often the progress stream reads the job again.
const StreamPoll = time.Second
