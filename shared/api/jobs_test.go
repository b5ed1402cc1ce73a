package api_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prospectdata/svc/shared/accounts"
	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/jobs"
)

// sessionBook is an account book of one signed-in user: the session
// cookie "s1" is hers. The embedded port is nil, so a route calling any
// other method of it panics (500) and fails the test.
type sessionBook struct {
	api.Accounts
	user *accounts.User
}

func (b sessionBook) Session(_ context.Context, token string) (*accounts.Session, bool, error) {
	if token != "s1" {
		return nil, false, nil
	}
	return &accounts.Session{ID: "sess", UserID: b.user.ID}, true, nil
}

func (b sessionBook) User(_ context.Context, id int64) (*accounts.User, error) {
	if id != b.user.ID {
		return nil, apperr.Missing()
	}
	return b.user, nil
}

// jobBook answers the jobs list and the cancellation from memory and
// records what the route asked.
type jobBook struct {
	api.Jobs
	list      []*jobs.Job
	cancelled bool
	cancelErr error
	calls     []string
}

func (f *jobBook) List(_ context.Context, uid int64, limit, offset int) ([]*jobs.Job, error) {
	f.calls = append(f.calls, "List", jsonOf(uid, limit, offset))
	return f.list, nil
}

func (f *jobBook) Cancel(_ context.Context, uid int64, id string) (bool, error) {
	f.calls = append(f.calls, "Cancel", jsonOf(uid, id))
	return f.cancelled, f.cancelErr
}

func jsonOf(v ...any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The job routes answer from the Jobs port alone: a fake of it, and of the
// session lookup, is the whole server a handler test needs.
func TestJobRoutesOverAFakeJobs(t *testing.T) {
	tests := []struct {
		name       string
		method     string
		path       string
		signedIn   bool
		book       jobBook
		wantStatus int
		wantBody   string   // JSON, compared as values
		wantIDs    []string // the ids of a list's jobs, in order
		wantCalls  []string // what the route asked of the port
	}{
		{
			name: "list passes the caller, limit and offset", method: "GET", path: "/api/jobs?limit=2&offset=1",
			signedIn: true, book: jobBook{list: []*jobs.Job{{ID: "j2"}}},
			wantStatus: 200, wantIDs: []string{"j2"}, wantCalls: []string{"List", `[7,2,1]`},
		},
		{
			name: "list defaults to 100 from 0", method: "GET", path: "/api/jobs",
			signedIn: true, book: jobBook{list: []*jobs.Job{}}, wantStatus: 200, wantBody: `[]`,
			wantCalls: []string{"List", `[7,100,0]`},
		},
		{
			name: "a negative offset is a 400 the port never sees", method: "GET", path: "/api/jobs?offset=-1",
			signedIn: true, wantStatus: 400,
		},
		{
			name: "a limit that is no integer is a 422", method: "GET", path: "/api/jobs?limit=ten",
			signedIn: true, wantStatus: 422,
		},
		{
			name: "anonymous is a 401", method: "GET", path: "/api/jobs", wantStatus: 401,
		},
		{
			name: "cancel says whether the pipeline closed", method: "POST", path: "/api/jobs/j1/cancel",
			signedIn: true, book: jobBook{cancelled: true},
			wantStatus: 200, wantBody: `{"ok":true,"pipeline_cancelled":true}`, wantCalls: []string{"Cancel", `[7,"j1"]`},
		},
		{
			name: "cancel of an ended job answers the port's 400", method: "POST", path: "/api/jobs/j1/cancel",
			signedIn: true, book: jobBook{cancelErr: apperr.New(apperr.Invalid, "Tâche terminée", "Job has ended")},
			wantStatus: 400, wantBody: `{"detail":"Tâche terminée"}`, wantCalls: []string{"Cancel", `[7,"j1"]`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			book := tt.book
			s := api.New(api.Deps{
				Accounts: sessionBook{user: &accounts.User{ID: 7, IsActive: true}},
				Jobs:     &book,
				Log:      slog.New(slog.NewTextHandler(io.Discard, nil)),
			})
			r := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.signedIn {
				r.AddCookie(&http.Cookie{Name: api.CookieName, Value: "s1"})
			}
			w := httptest.NewRecorder()
			s.ServeHTTP(w, r)
			if w.Code != tt.wantStatus {
				t.Fatalf("status %d, want %d: %s", w.Code, tt.wantStatus, w.Body)
			}
			if tt.wantBody != "" {
				var got, want any
				if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil {
					t.Fatalf("body %q: %v", w.Body, err)
				}
				if err := json.Unmarshal([]byte(tt.wantBody), &want); err != nil {
					t.Fatal(err)
				}
				if jsonOf(got) != jsonOf(want) {
					t.Errorf("body %s, want %s", w.Body, tt.wantBody)
				}
			}
			if tt.wantIDs != nil {
				var list []struct {
					ID string `json:"id"`
				}
				if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil {
					t.Fatalf("body %q: %v", w.Body, err)
				}
				var ids []string
				for _, j := range list {
					ids = append(ids, j.ID)
				}
				if jsonOf(ids) != jsonOf(tt.wantIDs) {
					t.Errorf("listed %v, want %v", ids, tt.wantIDs)
				}
			}
			if jsonOf(book.calls) != jsonOf(tt.wantCalls) {
				t.Errorf("the port was asked %v, want %v", book.calls, tt.wantCalls)
			}
		})
	}
}
