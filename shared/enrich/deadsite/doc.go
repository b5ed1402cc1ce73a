// Package deadsite is the dead_check module's classification (spec: "Node
// types", column site_alive): from what the fetcher learned about a site's
// home page, is there a live website a visitor would see, and if not why.
//
// Decisions the spec left open:
//
//   - A TLS error (certificate expired, self-signed, for another host) makes
//     the site not alive, reason "tls": every current browser stops the
//     visitor on a full-page warning, so for a prospect the site is as good
//     as down (and "fix your certificate" is the pitch). When the fetcher
//     still got a page past the error and that page is itself dead (parked,
//     suspended...), the more specific reason wins.
//   - What the page says outranks the status code: a cPanel "Account
//     Suspended" page served with 403 is "suspended", not "http_403".
//   - A 401/403/429/503 answer that is a bot challenge (Cloudflare "Just a
//     moment...", Sucuri, DataDome, DDoS-Guard) is alive: a browser gets
//     through, only our fetcher was stopped.
//   - "Coming soon" and "under construction" count only in the title or the
//     main headings, or on a short page: a bakery announcing "bientôt
//     disponible" for its Christmas logs is alive. A short site (a photo, an
//     address, a phone number) is alive: "empty" is a page with no text, no
//     image and no script that could draw one.
//   - Maintenance mode ("we'll be back soon") is alive: the site exists and
//     is only paused.
package deadsite
