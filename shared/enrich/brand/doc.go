// Package brand holds the pure parts of the brand_assets module
// (spec: "Node types", columns logo_url, favicon_url, brand_color,
// brand_palette): which URLs of a home page are the logo and the favicon,
// what kind of image a fetched file is, and which colours it is made of.
// Fetching the candidates and re-hosting the files is done by the module's
// runner; nothing here touches the network.
//
// Palette quantises with a median cut written here: no maintained Go
// colour-quantisation module is served by the module proxy this project
// builds from, and the cut is a few dozen lines over a 15-bit histogram
// (the approach of Leptonica's MMCQ, which colorthief popularised).
package brand
