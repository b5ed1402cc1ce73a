// Package placement is the delivery_check module: where a test message
// landed (inbox, promotions, spam) in seed mailboxes the operator
// configured, read over IMAP.
//
// A Seed is one mailbox (provider label, address, IMAP host, TLS mode,
// credentials, an optional folder mapping); ParseSeeds reads them from
// the SVC_DELIVERY_SEEDS JSON. A Checker logs in to every seed
// concurrently (bounded, each under its own timeout), lists its folders,
// classifies them (SPECIAL-USE \Junk first, then common names, or the
// seed's mapping), searches each for the newest message whose From
// domain is the request's domain (or a subdomain) and whose Subject
// contains the filter, and records where it is, when it arrived and
// what the receiving provider's Authentication-Results header says of
// SPF, DKIM and DMARC. Gmail files its Promotions tab inside INBOX: a
// server advertising X-GM-EXT-1 is asked with X-GM-RAW
// "category:promotions"; elsewhere promotions are only what a folder
// says. A seed that fails (login, TLS, timeout) is an error in its own
// line of the Result, never a failed check.
//
// Its offline twin, beside it in placementsim, runs in-process IMAP
// servers on loopback with a few seed mailboxes (a Gmail-like one among
// them) where every check first finds a message from the domain; its
// results say source "sim".
//
// docs/delivery.md has the seeds' configuration, the placement rules,
// the Gmail caveat, the result document and the figures.
package placement
