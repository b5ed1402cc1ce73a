package ses

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/mail"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sesv2"

	svcmail "github.com/prospectdata/svc/shared/mail"
)

// TestSendRaw drives the real SES client against a loopback endpoint that
// answers as SES v2 does, and checks the request carries the RFC 5322
// message as raw content.
func TestSendRaw(t *testing.T) {
	var got struct {
		Path string
		Body map[string]any
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Path = r.URL.Path
		json.Unmarshal(b, &got.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"MessageId":"0100-test"}`)
	}))
	defer srv.Close()
	client := sesv2.New(sesv2.Options{
		Region:       "eu-west-3",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
	s := &Sender{Client: client, ConfigurationSet: "svc", Now: time.Now}
	err := s.Send(context.Background(), svcmail.Message{
		From: "Service <no-reply@svc.test>", To: "a@example.org", Subject: "Bienvenue", Text: "Bonjour\n", Kind: "welcome",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Path != "/v2/email/outbound-emails" {
		t.Errorf("path %q", got.Path)
	}
	content, _ := got.Body["Content"].(map[string]any)
	rawObj, _ := content["Raw"].(map[string]any)
	data, _ := rawObj["Data"].(string)
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatalf("raw data: %v (%v)", err, got.Body)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil || msg.Header.Get("To") != "<a@example.org>" {
		t.Fatalf("raw message: %v %v", err, msg)
	}
	if got.Body["ConfigurationSetName"] != "svc" {
		t.Errorf("configuration set %v", got.Body["ConfigurationSetName"])
	}
}

func TestSendError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Amzn-ErrorType", "MessageRejected")
		w.WriteHeader(400)
		io.WriteString(w, `{"message":"Email address is not verified."}`)
	}))
	defer srv.Close()
	client := sesv2.New(sesv2.Options{Region: "eu-west-3", BaseEndpoint: aws.String(srv.URL),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
	s := &Sender{Client: client, Now: time.Now}
	if err := s.Send(context.Background(), svcmail.Message{From: "a@b.fr", To: "c@d.fr", Kind: "verify"}); err == nil {
		t.Fatal("rejected message reported as sent")
	}
}
