// Package netguard keeps the service's outbound HTTP away from internal
// hosts (SSRF) when the destination comes from a user: webhook endpoints
// now, the website crawler later.
//
// Two layers:
//   - Guard.CheckURL, when a URL is given: https only, no user info, a
//     host that is neither an internal address in any spelling (IPv4
//     numeric forms, IPv6 forms embedding IPv4, zones) nor a special-use
//     name, nor the service itself, and whose every resolved address is
//     public.
//   - Guard.Client, at every connection: the dialer resolves the name
//     itself, checks each address again and connects only to allowed ones,
//     and the socket's Control hook checks the final address once more. A
//     name public when the URL was checked and internal when it is used
//     (DNS rebinding) therefore reaches nothing.
//
// Which addresses are public is code.dny.dev/ssrf's answer: its deny lists
// are generated from the IANA IPv4 and IPv6 special-purpose registries, and
// it denies everything outside IPv6 global unicast (2000::/3). We only add
// the cloud metadata addresses it does not cover (see cloudMetadata) and
// name each refused class in words for the user (addr.go).
package netguard
