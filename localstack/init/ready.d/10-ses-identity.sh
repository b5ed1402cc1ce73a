#!/bin/sh
# Runs inside LocalStack once its services are ready: verifies the SES
# identities the stack sends as (the Lambda of api-auth sends the signup and
# reset mails through SES, which refuses an unverified sender). On LocalStack
# a verification succeeds at once; on AWS it takes DNS records (docs/aws.md).
set -eu

domain="${SVC_MAIL_DOMAIN:-svc.localhost}"
sender="${SVC_MAIL_SENDER:-no-reply@$domain}"

awslocal ses verify-domain-identity --domain "$domain" >/dev/null
awslocal ses verify-email-identity --email-address "$sender" >/dev/null
echo "svc: SES identities verified: $domain, $sender"
awslocal ses list-identities
