// Package sim is the simulated map provider: a deterministic world of
// businesses drawn from the gazetteer's real populations, searched like
// the real provider, and the labelled default for offline runs (jobs
// record its Name, "sim", so its data is never passed off as real).
//
// # The world
//
// Places are drawn in settlements: every city of the gazetteer with
// people and a disc (every French commune, the world's towns of 15,000
// people or more), except that Paris, Lyon and Marseille are drawn by
// arrondissement. For a query's category, a settlement of P people holds
// a Poisson number of places of mean P × the category's density, each at
// a random bearing from the settlement's centre and a distance of
// radius × u^0.7 (u uniform): denser towards the centre.
//
// Densities are places per inhabitant, of the order of the French
// registers: restaurant 1/330, coiffeur 1/800, bar 1/900, kiné 1/1,000,
// médecin 1/1,100, boulangerie and électricien 1/1,200, plombier, avocat,
// garage, maçon and institut de beauté 1/1,500, dentiste, agence
// immobilière and banque 1/2,000, hôtel 1/2,500, pharmacie 1/3,000,
// expert-comptable 1/3,500, fleuriste and opticien 1/5,000, notaire
// 1/8,000, librairie 1/9,000 (categories.go has the 39 categories). A
// query names a category by any of its French or English synonyms or
// its German, Spanish or Italian words (trades.go; normalised as
// gazetteer.Normalize does, plurals folded, or contained
// as whole words: "boulangerie artisanale"). Any other query is a
// category of its own, of density between 1/2,000 and 1/30,000 drawn
// from its hash: every query finds something, always the same things.
//
// Every random choice is drawn from a key derived from the seed and the
// names of what is drawn (settlement, category, epoch, index, purpose),
// never from a shared generator: any part of the world can be generated
// alone, in any order, in any process, with the same result. Generated
// batches are kept in a size-capped LRU cache.
//
// # Places
//
// A place has a stable id ("sim:fra-d69381-boulangerie-0-17-k3x9aq",
// which holds what it takes to regenerate the place, with a check keyed
// by the seed), a name and category in its country's language ("Au Pain
// Doré", "Maître Claire Roux, Notaire"; "Klempnerei Meyer", category
// "Klempner"; "Fontanería García"; "Idraulica Rossi"; "Smith Plumbing"),
// a category display name, a rating and review count, a maps URL
// (maps.sim.test) and, for 60% of places, a website
// (https://<slug>.<token>.sim.test/, a reserved TLD that nothing real
// answers).
//
// A place is drawn inside its settlement's commune (up to drawTries
// draws in its disc), and where it lies decides the rest: the commune
// containing its coordinates (Gazetteer.CommuneAt) names the locality of
// its address and gives its postal code, and the commune's country and
// region its address format and phone area (conventions.go): "12 rue de
// la République, 69003 Lyon" and "04 78 12 34 56" (the department's
// zone: 01 Île-de-France, 02 north-west, 03 north-east, 04 south-east
// with 04 95 in Corsica only, 05 south-west, overseas their own; 15% of
// French numbers are mobiles, 06 and 07); "Gartenstraße 56, 63055
// Alzenau" and a Vorwahl of its Land (a big city's own only there);
// "Calle Mayor 12, 28013 Madrid" and its province's prefix; "Via Roma 5,
// 20121 Milano"; "12 High Street, Leeds LS1 4AB"; "245 Main St,
// Springfield, IL 62701"; elsewhere "<line>, <town>, <country>" and a
// national number of one area per town (phone.go), none for a country
// phone.go lacks. 8% of listings have no phone; 8% of those of a French
// department on a border a number from across it (frBorder), none
// elsewhere. One block of three consecutive places in twelve shares one
// national line (a franchise's or group's central number). All numbers
// are valid for libphonenumber. TestCoherentWorld measures the
// agreement of postcodes, communes and phone areas with coordinates.
//
// # Drift
//
// The world changes from one day to the next (Options.Day, which the app
// keeps in a table and moves with POST /api/admin/sim/advance). The places
// of day 0 each close after an exponential lifetime of mean 1,000 days;
// new places open at the rate that keeps the count stationary, so about
// 0.1% of places close and as many open every day (a few percent a month:
// faster than real churn, so that a week's veille sees differences). A
// place gathers reviews at its own rate (its category's median, from 2 a
// year for accountants to 60 for hotels, times a log-normal factor of sd
// 0.8) since its opening, or for the places of day 0 (aged 30 days to 20
// years) since at most 8 years before day 0; its rating is its quality
// (mean 4.3, sd 0.35) plus noise
// shrinking with its review count, redrawn at each new review, rounded to
// a tenth within 3.0 to 5.0. Same seed and day, same answers.
//
// # Searching
//
// Search returns the places of the category inside the rectangle (south
// and west edges included, north and east excluded, so quarters share out
// their parent's places) open that day, and none outside it, as the real
// provider's location restriction promises. They are ranked by prominence, rating
// × ln(1 + reviews), and cut at Cap (60) over pages of PageSize (20): a
// dense rectangle saturates, and its quarters together find more. Page
// tokens are opaque, carry the day the search began on and are checked
// against the request. Each call first sleeps Options.Latency (honouring
// the context), then fails with provider.ErrTransient at
// Options.TransientRate (1% by default). Truth lists every place of the
// category inside a rectangle, uncapped, for recall benchmarks.
//
// # Looking a place up
//
// Place regenerates a place from its id alone and lists it as Search
// would that day (same latency and failure draw): a place closed that day
// fails with provider.ErrClosed, one not open yet or an id the world did
// not issue with provider.ErrNotFound. Only a place of a query the
// category table lacks differs: its Category, the query's own words in
// searches, is empty, since ids do not carry the query.
//
// # The fixture web
//
// Web returns an http.RoundTripper serving every place's website from
// memory (see World.Web): home, contact and, in France, legal notice
// pages with emails (a role address of the site's domain or a webmail
// one of the country's providers, a person's prenom.nom@ and a second
// role on some contact pages), social links, SIREN and SIRET, technology
// fingerprints, robots.txt and sitemap, a few sites dead, unknown hosts
// failing as DNS would. Enrichment modules crawl it with an http.Client,
// as they would the internet.
package sim
