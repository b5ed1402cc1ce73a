package techstack

// Wappalyzer files every technology under one or more categories
// (categories_data.json in the wappalyzergo module). A technology lands in
// a column when one of its categories is listed here:
//
//	tech_cms        CMS, Ecommerce, Blogs, Page builders, Website builders
//	tech_analytics  Analytics, Tag managers, RUM
//	tech_ads_pixels Advertising, Retargeting, Marketing automation
//
// "Website builders" is absent from the v0.2.96 database (Wix, Jimdo and
// Squarespace are filed under CMS) but is kept so that a newer database
// that adds it needs no code change. Categories are matched by name, not
// by number, for the same reason.
//
// Two corrections to the database's filing, both tested:
//   - adPixelApps: conversion pixels the database files under Analytics
//     only. They exist to measure and target ad campaigns, so they belong
//     in tech_ads_pixels and nowhere else.
//   - notPlatforms: entries the database files as a platform that add
//     nothing to the platform already named: a generic trait ("Cart
//     Functionality"), parts of WordPress core (its block and site
//     editors), and "Squarespace Commerce", whose only fingerprint is the
//     Server header every Squarespace site sends.
var categoryColumns = map[string]column{
	"CMS":                  colCMS,
	"Ecommerce":            colCMS,
	"Blogs":                colCMS,
	"Page builders":        colCMS,
	"Website builders":     colCMS,
	"Analytics":            colAnalytics,
	"Tag managers":         colAnalytics,
	"RUM":                  colAnalytics,
	"Advertising":          colAdsPixels,
	"Retargeting":          colAdsPixels,
	"Marketing automation": colAdsPixels,
}

var adPixelApps = map[string]bool{
	"Facebook Pixel":                 true,
	"Linkedin Insight Tag":           true,
	"TikTok Pixel":                   true,
	"Pinterest Conversion Tag":       true,
	"Google Ads Conversion Tracking": true,
}

var notPlatforms = map[string]bool{
	"Cart Functionality":     true,
	"WordPress Block Editor": true,
	"WordPress Site Editor":  true,
	"Squarespace Commerce":   true,
}

// column is a bit set of the output columns a technology feeds.
type column uint8

const (
	colCMS column = 1 << iota
	colAnalytics
	colAdsPixels
)
