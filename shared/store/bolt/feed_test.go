package bolt_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

func feedDB(t *testing.T, path string) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(path, []store.Schema{
		{Name: "ev", PK: "pk", SK: "sk", Stream: true},
		{Name: "plain", PK: "pk", SK: "sk"},
	}, bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// summary writes changes as "pk/sk=v" ("pk/sk=-" for a delete).
func summary(cs []store.Change) []string {
	var out []string
	for _, c := range cs {
		v := "-"
		if c.New != nil {
			v = c.New.String("v")
		}
		out = append(out, c.Key.PK+"/"+c.Key.SK+"="+v)
	}
	return out
}

// TestChangeFeed: every committed write of a stream table is a change, in
// commit order, and nothing else is.
func TestChangeFeed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "f.db")
	db := feedDB(t, path)
	ev, plain := db.Table("ev"), db.Table("plain")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ev.Put(ctx, store.Item{"pk": "a", "sk": "1", "v": "put"}, nil))
	_, err := ev.Update(ctx, store.Key{PK: "a", SK: "1"}, store.Update{}.Set("v", "upd"), nil)
	must(err)
	must(plain.Put(ctx, store.Item{"pk": "p", "sk": "1", "v": "x"}, nil))
	if err := ev.Put(ctx, store.Item{"pk": "a", "sk": "1", "v": "no"}, store.NotExists("pk")); !errors.Is(err, store.ErrConditionFailed) {
		t.Fatal(err)
	}
	err = db.Transact(ctx, store.PutOp("ev", store.Item{"pk": "b", "sk": "1", "v": "tx"}, nil),
		store.PutOp("plain", store.Item{"pk": "q", "sk": "1"}, store.Exists("pk")))
	if !errors.Is(err, store.ErrConditionFailed) {
		t.Fatal(err)
	}
	must(db.Transact(ctx, store.PutOp("ev", store.Item{"pk": "b", "sk": "2", "v": "tx"}, nil),
		store.DeleteOp("ev", store.Key{PK: "a", SK: "1"}, nil)))
	cs, err := db.Changes(ctx, "ev", "", 100, 0)
	must(err)
	want := []string{"a/1=put", "a/1=upd", "b/2=tx", "a/1=-"}
	if got := summary(cs); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Fatalf("changes %v, want %v", got, want)
	}
	after, err := db.Changes(ctx, "ev", cs[1].Seq, 1, 0)
	must(err)
	if got := summary(after); len(got) != 1 || got[0] != "b/2=tx" {
		t.Errorf("after %s, max 1: %v", cs[1].Seq, got)
	}
	for _, tt := range []struct {
		table, after string
		max          int
	}{{"plain", "", 10}, {"nope", "", 10}, {"ev", "", 0}, {"ev", "", 1001}, {"ev", "x1", 10}} {
		if _, err := db.Changes(ctx, tt.table, tt.after, tt.max, 0); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("Changes(%q, %q, %d): %v", tt.table, tt.after, tt.max, err)
		}
	}
	must(db.Trim(ctx, "ev", cs[2].Seq))
	left, err := db.Changes(ctx, "ev", "", 100, 0)
	must(err)
	if got := summary(left); len(got) != 1 || got[0] != "a/1=-" {
		t.Errorf("after trim: %v", got)
	}
	// Untrimmed changes survive a reopen.
	must(db.Close())
	db = feedDB(t, path)
	defer db.Close()
	again, err := db.Changes(ctx, "ev", "", 100, 0)
	must(err)
	if len(again) != 1 || again[0].Seq != left[0].Seq {
		t.Errorf("after reopen: %v", summary(again))
	}
}

// TestChangeFeedWaits: a waiting read returns the change another
// goroutine commits; one with nothing to read returns empty when its wait
// ends, or the context's error.
func TestChangeFeedWaits(t *testing.T) {
	ctx := context.Background()
	db := feedDB(t, filepath.Join(t.TempDir(), "f.db"))
	defer db.Close()
	got := make(chan []store.Change, 1)
	go func() {
		cs, _ := db.Changes(ctx, "ev", "", 10, time.Minute)
		got <- cs
	}()
	time.Sleep(10 * time.Millisecond)
	if err := db.Table("ev").Put(ctx, store.Item{"pk": "w", "sk": "1", "v": "woke"}, nil); err != nil {
		t.Fatal(err)
	}
	if cs := <-got; len(cs) != 1 || cs[0].New.String("v") != "woke" {
		t.Fatalf("woken read: %v", summary(cs))
	}
	cs, err := db.Changes(ctx, "ev", "00000000000000009999", 10, 5*time.Millisecond)
	if err != nil || len(cs) != 0 {
		t.Errorf("timed-out read: %v, %v", cs, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := db.Changes(cctx, "ev", "00000000000000009999", 10, time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v", err)
	}
	// Concurrent writers: increasing sequences, nothing lost.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 25 {
				_ = db.Table("ev").Put(ctx, store.Item{"pk": "c", "sk": string(rune('a'+g)) + string(rune('a'+i)), "v": "c"}, nil)
			}
		})
	}
	wg.Wait()
	all, err := db.Changes(ctx, "ev", "", 1000, 0)
	if err != nil || len(all) != 201 {
		t.Fatalf("%d changes, %v", len(all), err)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Fatalf("sequence %s after %s", all[i].Seq, all[i-1].Seq)
		}
	}
}
