package features_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/features"
	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/shared/store/bolt"
)

// newService opens the vote service over the embedded accounts table.
func newService(t *testing.T) *features.Service {
	t.Helper()
	db, err := bolt.Open(filepath.Join(t.TempDir(), "tables.db"), []store.Schema{accounts.Schema()}, bolt.WithNoSync())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return features.New(db)
}

func summary(t *testing.T, s *features.Service, uid int64) *features.Summary {
	t.Helper()
	sum, err := s.Get(context.Background(), uid)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// comingSoon is a feature id of the allow-list (a coming-soon module).
const comingSoon = "linkedin"

// TestAllowList: the allow-list is the coming-soon modules and the
// service's own future features; an active module or an unknown id is a
// 404 for a vote and a retraction alike.
func TestAllowList(t *testing.T) {
	ids := modules.FeatureIDs()
	if !slices.Contains(ids, comingSoon) {
		t.Fatalf("%s is not in the allow-list %v", comingSoon, ids)
	}
	s := newService(t)
	ctx := context.Background()
	for _, tt := range []struct {
		name, id string
		ok       bool
	}{
		{"a coming-soon module", comingSoon, true},
		{"another coming-soon module", "yelp_tripadvisor", true},
		{"an active module", "emails", false},
		{"the alpha-unavailable module", "finance", false},
		{"unknown", "teleport", false},
		{"empty", "", false},
		{"case differs", "LinkedIn", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for op, f := range map[string]func(context.Context, int64, string) error{"vote": s.Vote, "retract": s.Retract} {
				err := f(ctx, 1, tt.id)
				if tt.ok && err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				if !tt.ok && !apperr.Is(err, apperr.NotFound) {
					t.Fatalf("%s: err %v, want 404", op, err)
				}
			}
		})
	}
}

// TestGetCountsEveryFeature: counts has every allowed id, zero included;
// voted is an empty list, not null, before any vote.
func TestGetCountsEveryFeature(t *testing.T) {
	s := newService(t)
	sum := summary(t, s, 1)
	if len(sum.Counts) != len(modules.FeatureIDs()) {
		t.Fatalf("%d counts, want one per allowed id (%d)", len(sum.Counts), len(modules.FeatureIDs()))
	}
	for _, id := range modules.FeatureIDs() {
		if n, ok := sum.Counts[id]; !ok || n != 0 {
			t.Fatalf("count of %s: %d (present %v), want 0", id, n, ok)
		}
	}
	b, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw["voted"]) != "[]" {
		t.Fatalf("voted is %s, want []", raw["voted"])
	}
}

// TestVotes: one vote per user and feature (a second is a no-op), counts
// summed over users, a retraction takes one back once, and never below
// zero.
func TestVotes(t *testing.T) {
	type step struct {
		op   string // vote, retract
		uid  int64
		id   string
		want int64 // count of id after the step
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"one vote", []step{{"vote", 1, comingSoon, 1}}},
		{"a second vote is a no-op", []step{{"vote", 1, comingSoon, 1}, {"vote", 1, comingSoon, 1}}},
		{"two users", []step{{"vote", 1, comingSoon, 1}, {"vote", 2, comingSoon, 2}}},
		{"retract", []step{{"vote", 1, comingSoon, 1}, {"vote", 2, comingSoon, 2}, {"retract", 1, comingSoon, 1}}},
		{"retract twice", []step{{"vote", 1, comingSoon, 1}, {"vote", 2, comingSoon, 2},
			{"retract", 1, comingSoon, 1}, {"retract", 1, comingSoon, 1}}},
		{"retract without a vote", []step{{"retract", 1, comingSoon, 0}, {"vote", 2, comingSoon, 1}, {"retract", 3, comingSoon, 1}}},
		{"vote again after a retraction", []step{{"vote", 1, comingSoon, 1}, {"retract", 1, comingSoon, 0}, {"vote", 1, comingSoon, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newService(t)
			ctx := context.Background()
			for i, st := range tt.steps {
				var err error
				if st.op == "vote" {
					err = s.Vote(ctx, st.uid, st.id)
				} else {
					err = s.Retract(ctx, st.uid, st.id)
				}
				if err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if got := summary(t, s, st.uid).Counts[st.id]; got != st.want {
					t.Fatalf("step %d (%s by %d): count %d, want %d", i, st.op, st.uid, got, st.want)
				}
			}
		})
	}
}

// TestVotedPerUser: voted lists the caller's votes only; counts are every
// user's.
func TestVotedPerUser(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	for _, v := range []struct {
		uid int64
		id  string
	}{{1, "linkedin"}, {1, "crm"}, {2, "crm"}} {
		if err := s.Vote(ctx, v.uid, v.id); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		uid   int64
		voted []string
	}{{1, []string{"crm", "linkedin"}}, {2, []string{"crm"}}, {3, []string{}}} {
		sum := summary(t, s, tt.uid)
		got := slices.Clone(sum.Voted)
		slices.Sort(got)
		if !slices.Equal(got, tt.voted) {
			t.Fatalf("user %d voted %v, want %v", tt.uid, got, tt.voted)
		}
		if sum.Counts["crm"] != 2 || sum.Counts["linkedin"] != 1 {
			t.Fatalf("user %d sees counts crm %d, linkedin %d; want 2, 1", tt.uid, sum.Counts["crm"], sum.Counts["linkedin"])
		}
	}
}

// TestExportAndPurge: the export lists the account's votes; the purge
// retracts them so that the counts stay true, and leaves other accounts'.
func TestExportAndPurge(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	for _, v := range []struct {
		uid int64
		id  string
	}{{1, "linkedin"}, {1, "crm"}, {2, "crm"}} {
		if err := s.Vote(ctx, v.uid, v.id); err != nil {
			t.Fatal(err)
		}
	}
	sec, err := s.Export(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := sec.Data.([]string)
	if sec.Entry != "account" || sec.Key != "feature_votes" || !ok || len(got) != 2 {
		t.Fatalf("export %s/%s %v", sec.Entry, sec.Key, sec.Data)
	}
	if err := s.Purge(ctx, 1); err != nil {
		t.Fatal(err)
	}
	sum := summary(t, s, 1)
	if len(sum.Voted) != 0 || sum.Counts["crm"] != 1 || sum.Counts["linkedin"] != 0 {
		t.Fatalf("after purge: voted %v, crm %d, linkedin %d; want none, 1, 0", sum.Voted, sum.Counts["crm"], sum.Counts["linkedin"])
	}
	if v := summary(t, s, 2).Voted; len(v) != 1 || v[0] != "crm" {
		t.Fatalf("another account's votes: %v", v)
	}
}
