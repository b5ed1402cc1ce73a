// Package webhooks holds the outgoing webhook endpoints of an account and
// the delivery of its events to them (spec: "Webhook endpoint", "Webhook
// delivery"; docs/webhooks.md).
//
// Rules:
//
//   - An endpoint is created with an https URL whose host is public
//     (shared/netguard: checked at creation, and again at every connection
//     by the delivery client's dialer, so DNS rebinding reaches nothing
//     internal), at least one known event type, and a secret of 16 to 128
//     characters or a generated one (whsec_ and 48 hex digits), shown only
//     in the creation answer. At most MaxActive active endpoints per
//     account, counted by an item changed in the same transaction as the
//     endpoint (creation +1, auto-disable and deletion of an active one
//     −1); at most MaxEndpoints in all, disabled ones included.
//   - Fan-out: each new event of the account (the events table's change
//     feed locally, its DynamoDB stream on AWS) becomes, for every active
//     endpoint subscribed to its type, one delivery: a record (HOOK#<id> /
//     DLV#<event id>) written if absent, and a message on the deliveries
//     queue. A fan-out read twice (a crash before its feed was trimmed)
//     finds the record and sends the message again only if the delivery
//     has not been attempted yet.
//   - Delivery: the message names the endpoint, the event and the attempt
//     number. The sender POSTs the event's JSON ({id, type, created_at,
//     data}) with the spec's headers, X-Svc-Delivery the same for every
//     attempt (dlv_<endpoint>_<event>), X-Svc-Signature the HMAC-SHA256 of
//     the exact bytes sent. A 2xx within Timeout is a success; anything else
//     (other status, timeout, refused address, connection error) a failure.
//   - The attempt is recorded in one transaction, conditioned on the
//     delivery's attempt count, so a message handled twice records one
//     attempt: the delivery's state (delivered, retrying, gave_up), an
//     attempt record for the listing, and the endpoint's consecutive
//     failure count (reset by a success, +1 by a failure). The 20th
//     consecutive failure disables the endpoint (is_active false,
//     disabled_at) in a second conditional write.
//   - Retries after 1 min, 5 min, 30 min, 2 h and 6 h (Schedule), then
//     gave_up. A retry is a new message due at its time: queues delay a
//     message 15 minutes at most, so a message received before it is due
//     is sent again with the rest of the delay, until it is.
//   - A delivery is at least once: a process that dies after the POST and
//     before recording it posts again with the same X-Svc-Delivery, which
//     receivers deduplicate on.
//   - GET /api/webhooks/{id}/deliveries lists the endpoint's last 20
//     attempts. Delivery and attempt records expire after Retention.
package webhooks
