// Package ses is the AWS mail sender: the same RFC 5322 message the local
// outbox writes, sent as raw content through SES (API v2).
package ses

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sesv2"
	"github.com/aws/aws-sdk-go-v2/service/sesv2/types"

	"github.com/prospectdata/svc/shared/mail"
)

// API is the part of the SES client the sender uses.
type API interface {
	SendEmail(ctx context.Context, in *sesv2.SendEmailInput, optFns ...func(*sesv2.Options)) (*sesv2.SendEmailOutput, error)
}

// Sender sends through SES.
type Sender struct {
	Client API
	// ConfigurationSet names an SES configuration set (bounce and complaint
	// tracking); "" for none.
	ConfigurationSet string
	Now              func() time.Time
}

// Send formats m and hands it to SES as raw content, so the message SES
// delivers is byte for byte the one the local runtime writes to its outbox.
func (s *Sender) Send(ctx context.Context, m mail.Message) error {
	raw, err := mail.Format(m, s.Now())
	if err != nil {
		return err
	}
	in := &sesv2.SendEmailInput{
		Destination: &types.Destination{ToAddresses: []string{m.To}},
		Content:     &types.EmailContent{Raw: &types.RawMessage{Data: raw}},
	}
	if s.ConfigurationSet != "" {
		in.ConfigurationSetName = &s.ConfigurationSet
	}
	if _, err := s.Client.SendEmail(ctx, in); err != nil {
		return fmt.Errorf("ses: send %s mail: %w", m.Kind, err)
	}
	return nil
}
