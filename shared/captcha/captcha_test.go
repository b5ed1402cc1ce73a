package captcha

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestSiteverify(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.Method != http.MethodPost {
			http.Error(w, "bad", 400)
			return
		}
		if r.PostForm.Get("secret") == "broken" {
			http.Error(w, "down", 502)
			return
		}
		ok := r.PostForm.Get("secret") == "s3cret" && r.PostForm.Get("response") == "good" && r.PostForm.Get("remoteip") == "192.0.2.7"
		json.NewEncoder(w).Encode(map[string]any{"success": ok})
	}))
	defer srv.Close()
	tests := []struct {
		name, secret, token string
		want, wantErr       bool
	}{
		{"accepted", "s3cret", "good", true, false},
		{"refused token", "s3cret", "bad", false, false},
		{"empty token not sent", "s3cret", "", false, false},
		{"provider down", "broken", "good", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &Siteverify{URL: srv.URL, Secret: tt.secret, Client: srv.Client()}
			ok, err := v.Verify(context.Background(), tt.token, "192.0.2.7")
			if ok != tt.want || (err != nil) != tt.wantErr {
				t.Errorf("Verify = %v, %v", ok, err)
			}
		})
	}
}
