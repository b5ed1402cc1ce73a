// Package opendata is the opendata enrichment module: a business row's
// website, phone and email from OpenStreetMap, the open dataset (ODbL)
// whose points of interest carry such tags, read through the Overpass API.
//
// For each row the module asks one query (ql.go): the elements with a
// business key (shop, amenity, craft, office, tourism, healthcare,
// leisure) whose name holds one of the row's significant words, within
// 300 m of the row's coordinates, or, without coordinates, in the areas of
// its postcode and commune. The match rule (match.go) then picks the
// element that is the business, or none: names compared normalised
// (name_exact) or by their words (name_near), the nearest of the best
// kind, ties refused. The element's website, phone and email tags fill
// site_web, telephone and email; opendata_champs lists its other useful
// tags; opendata_match says how it matched; opendata_source names it
// ("openstreetmap node/123"), as the ODbL's attribution asks.
//
// The Client (client.go) is polite to a shared public service: a few
// queries at once over all its callers, a pause between two starts, a
// common backoff when the server says it is overloaded (429, 504, a
// runtime-error remark), bounded attempts, a descriptive User-Agent,
// timeouts and a cap on the body read. The sim world's twin
// (opendatasim.Handler) answers the same queries offline;
// inproc.HandlerTransport plugs it into the Client's http.Client.
// docs/opendata.md has the decisions.
package opendata
