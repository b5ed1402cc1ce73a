// Package verify checks email addresses without sending mail, for the
// verify_emails module (node type verify): syntax, the domain's mail
// hosts (MX, or its own address when it has none, RFC 5321 §5.1), a
// list of disposable domains (package disposable), role accounts, then
// an SMTP dialogue up to RCPT TO (EHLO, MAIL FROM, RCPT TO, RSET, QUIT;
// never DATA) with a catch-all probe once per domain.
//
// A Checker's dependencies are explicit: a Resolver (the DNS) and a
// Dialer (SMTP connections), so that tests use loopback servers and the
// offline run the simulated world's mail (shared/provider/sim, Mail).
// Every outcome is a Result of a Status (valid, invalid, risky, unknown)
// and a Category saying why; DNS and SMTP failures are unknown, never an
// error. docs/verify.md describes the verdicts, the dialogue, the caches
// and limits, and why the AWS runtime runs without the SMTP probe.
package verify
