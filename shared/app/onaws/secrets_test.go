package onaws_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"

	"github.com/prospectdata/svc/shared/app/onaws"
)

// secretsStandIn answers Secrets Manager's GetSecretValue on loopback, in
// the JSON 1.1 protocol the SDK speaks (POST /, X-Amz-Target
// secretsmanager.GetSecretValue), over secrets by ARN. A value prefixed
// "binary:" is served as SecretBinary. It counts the calls per ARN.
type secretsStandIn struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int
}

func newSecretsStandIn(t *testing.T, secrets map[string]string) *secretsStandIn {
	t.Helper()
	s := &secretsStandIn{calls: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		fail := func(typ, msg string) {
			w.Header().Set("X-Amzn-ErrorType", typ)
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": msg})
		}
		if r.Method != http.MethodPost || r.Header.Get("X-Amz-Target") != "secretsmanager.GetSecretValue" ||
			r.Header.Get("Content-Type") != "application/x-amz-json-1.1" || !strings.Contains(r.Header.Get("Authorization"), "/secretsmanager/aws4_request") {
			t.Errorf("not a signed GetSecretValue: %s %s, target %q, type %q", r.Method, r.URL, r.Header.Get("X-Amz-Target"), r.Header.Get("Content-Type"))
			fail("UnknownOperationException", "unexpected request")
			return
		}
		var in struct{ SecretId string }
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &in); err != nil {
			fail("InvalidRequestException", err.Error())
			return
		}
		s.mu.Lock()
		s.calls[in.SecretId]++
		s.mu.Unlock()
		v, ok := secrets[in.SecretId]
		if !ok {
			fail("ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
			return
		}
		out := map[string]any{"ARN": in.SecretId, "Name": "n", "VersionId": "v1", "VersionStages": []string{"AWSCURRENT"}}
		if b, bin := strings.CutPrefix(v, "binary:"); bin {
			out["SecretBinary"] = base64.StdEncoding.EncodeToString([]byte(b))
		} else {
			out["SecretString"] = v
		}
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *secretsStandIn) callsOf(arn string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[arn]
}

func (s *secretsStandIn) total() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		n += c
	}
	return n
}

const (
	sessionARN = "arn:aws:secretsmanager:eu-west-3:123456789012:secret:SessionSecret-AbCdEf"
	sourcesARN = "arn:aws:secretsmanager:eu-west-3:123456789012:secret:DataSourceSecrets-GhIjKl"
	placesARN  = "arn:aws:secretsmanager:eu-west-3:123456789012:secret:GooglePlacesSecret-MnOpQr"
	goneARN    = "arn:aws:secretsmanager:eu-west-3:123456789012:secret:Gone-StUvWx"
	session    = "0123456789abcdef0123456789abcdefXYZ0123456789abcdef0123456789ab"
)

func secretsList(t *testing.T, refs ...onaws.SecretRef) string {
	t.Helper()
	b, err := json.Marshal(refs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	sessionRef = onaws.SecretRef{ARN: sessionARN, Var: "SVC_SESSION_SECRET"}
	sourcesRef = onaws.SecretRef{ARN: sourcesARN, Fields: map[string]string{
		"pagespeed_key": "SVC_PAGESPEED_KEY", "registers_key": "SVC_REGISTERS_KEY", "delivery_seeds": "SVC_DELIVERY_SEEDS",
	}}
	placesRef = onaws.SecretRef{ARN: placesARN, Fields: map[string]string{"google_places_key": "SVC_GOOGLE_PLACES_KEY"}}
)

// TestReadSecrets: each secret the list names is read once, its string or
// its JSON fields become the variables the list maps them to, over the
// environment; a placeholder left empty falls back to the environment; a
// secret that cannot be read or parsed fails the init.
func TestReadSecrets(t *testing.T) {
	store := map[string]string{
		sessionARN: session,
		// An operator may store the seeds as JSON or as a string of JSON;
		// registers_key is still the stack's empty placeholder; other is
		// mapped to nothing.
		sourcesARN:                     `{"pagespeed_key":"pk-123","registers_key":"","delivery_seeds":[{"host":"imap.example.org"}],"other":"x"}`,
		placesARN:                      `{"google_places_key":"AIza-test"}`,
		"arn:text":                     "not json",
		"arn:binary":                   "binary:\x00\x01",
		"arn:empty-session-after-trim": "  ",
	}
	srv := newSecretsStandIn(t, store)
	client := secretsmanager.New(secretsmanager.Options{
		Region: "eu-west-3", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
	base := map[string]string{"SVC_REGISTERS_KEY": "from-env", "SVC_BASE_URL": "https://api.example.test", "SVC_SESSION_SECRET": "from-env"}
	for _, tt := range []struct {
		name    string
		list    string
		want    map[string]string // variables after the overlay
		wantErr string
	}{
		{
			name: "string and fields over the environment",
			list: secretsList(t, sessionRef, sourcesRef, placesRef),
			want: map[string]string{
				"SVC_SESSION_SECRET": session, "SVC_PAGESPEED_KEY": "pk-123", "SVC_DELIVERY_SEEDS": `[{"host":"imap.example.org"}]`,
				"SVC_GOOGLE_PLACES_KEY": "AIza-test", "SVC_REGISTERS_KEY": "from-env", "SVC_BASE_URL": "https://api.example.test",
			},
		},
		{
			name: "an empty string or an absent field is left to the environment",
			list: secretsList(t, onaws.SecretRef{ARN: "arn:empty-session-after-trim", Var: "SVC_SESSION_SECRET"},
				onaws.SecretRef{ARN: placesARN, Fields: map[string]string{"absent": "SVC_PAGESPEED_KEY"}}),
			want: map[string]string{"SVC_SESSION_SECRET": "from-env", "SVC_PAGESPEED_KEY": ""},
		},
		{name: "a secret that does not exist", list: secretsList(t, sessionRef, onaws.SecretRef{ARN: goneARN, Var: "X"}),
			wantErr: goneARN},
		{name: "fields of a secret that is not JSON", list: secretsList(t, onaws.SecretRef{ARN: "arn:text", Fields: map[string]string{"a": "A"}}),
			wantErr: "not a JSON object"},
		{name: "a binary secret", list: secretsList(t, onaws.SecretRef{ARN: "arn:binary", Var: "A"}), wantErr: "binary"},
		{name: "a malformed list", list: `{"arn":"x"}`, wantErr: onaws.SecretsEnv},
		{name: "var and fields at once", list: secretsList(t, onaws.SecretRef{ARN: sessionARN, Var: "A", Fields: map[string]string{"a": "B"}}),
			wantErr: "either var or fields"},
		{name: "no arn", list: secretsList(t, onaws.SecretRef{Var: "A"}), wantErr: "needs an arn"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{onaws.SecretsEnv: tt.list}
			for k, v := range base {
				env[k] = v
			}
			before := srv.total()
			getenv, err := onaws.ReadSecrets(context.Background(), func(k string) string { return env[k] }, client, slog.New(slog.DiscardHandler))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var refs []onaws.SecretRef
			json.Unmarshal([]byte(tt.list), &refs)
			if got := srv.total() - before; got != len(refs) {
				t.Errorf("%d calls for %d secrets: one call per secret", got, len(refs))
			}
			for k, want := range tt.want {
				if got := getenv(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
		})
	}
}

// TestSecretsAtInit builds a Lambda's handler as its main does, with only
// secret ARNs in its environment: the SDK reaches Secrets Manager at the
// endpoint AWS_ENDPOINT_URL_SECRETS_MANAGER names (the stand-in; the real
// one is unreachable here), once per secret, before the configuration
// reads the keys.
func TestSecretsAtInit(t *testing.T) {
	for _, tt := range []struct {
		name    string
		secrets map[string]string
		env     map[string]string
		wantErr string
	}{
		{
			name:    "the session key from its secret",
			secrets: map[string]string{sessionARN: session},
			env:     map[string]string{onaws.SecretsEnv: secretsList(t, sessionRef)},
		},
		{
			name:    "Google Places with its key from its secret",
			secrets: map[string]string{sessionARN: session, placesARN: `{"google_places_key":"AIza-test"}`},
			env:     map[string]string{onaws.SecretsEnv: secretsList(t, sessionRef, placesRef), "SVC_MAP_PROVIDER": "google", "SVC_DATA_SOURCES": "real"},
		},
		{
			name:    "Google Places before the operator filled its secret",
			secrets: map[string]string{sessionARN: session, placesARN: `{"google_places_key":""}`},
			env:     map[string]string{onaws.SecretsEnv: secretsList(t, sessionRef, placesRef), "SVC_MAP_PROVIDER": "google", "SVC_DATA_SOURCES": "real"},
			wantErr: "SVC_GOOGLE_PLACES_KEY",
		},
		{
			name:    "a secret the role may not read or that is gone",
			secrets: map[string]string{},
			env:     map[string]string{onaws.SecretsEnv: secretsList(t, sessionRef)},
			wantErr: sessionARN,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSecretsStandIn(t, tt.secrets)
			for k, v := range map[string]string{
				"AWS_REGION": "eu-west-3", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
				"AWS_ENDPOINT_URL_SECRETS_MANAGER": srv.URL,
				// The service-specific variable alone names the endpoint.
				"AWS_ENDPOINT_URL": "", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "",
			} {
				t.Setenv(k, v)
			}
			env := map[string]string{"SVC_BASE_URL": "https://api.example.test", "SVC_TABLE_ACCOUNTS": "accounts"}
			for k, v := range tt.env {
				env[k] = v
			}
			// api-registry: no gazetteer to load, no table read at init.
			_, err := onaws.Handler(context.Background(), "api-registry", func(k string) string { return env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			var refs []onaws.SecretRef
			json.Unmarshal([]byte(tt.env[onaws.SecretsEnv]), &refs)
			for _, r := range refs {
				if n := srv.callsOf(r.ARN); n != 1 {
					t.Errorf("%s read %d times at init, want once", r.ARN, n)
				}
			}
		})
	}
}
