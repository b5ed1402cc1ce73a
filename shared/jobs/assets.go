package jobs

import (
	"regexp"
	"strconv"
)

// The files a job re-hosts for its owner (brand_assets' logos, favicons,
// screenshots): their names, their keys in the file store, the API path
// and the media type they are served with. jobs owns the layout, as it
// deletes them with the job.

// AssetName is the strict pattern of a re-hosted file's name: the job id,
// 16 hex digits of the content's SHA-256, the kind, the extension. The
// route serving them accepts nothing else, so that no path trick reaches
// another file.
var AssetName = regexp.MustCompile(`^[a-z2-7]{16}-[0-9a-f]{16}-(logo[1-4]?|favicon|screenshot)\.(png|jpg|gif|webp|svg|ico)$`)

// AssetKey is the file store key of a file a job re-hosted for its owner
// (brand_assets' logos, favicons, screenshots). Its name starts with the
// job's id, so that deleting the job deletes its files; they outlive the
// job's expiry, as the links in a downloaded CSV point to them.
func AssetKey(owner int64, name string) string {
	return "assets/" + strconv.FormatInt(owner, 10) + "/" + name
}

// AssetPath is the API path of a re-hosted file.
func AssetPath(owner int64, name string) string {
	return "/api/brand-assets/" + strconv.FormatInt(owner, 10) + "/" + name
}

// AssetType is the media type a re-hosted file is served with.
func AssetType(ext string) string {
	switch ext {
	case "png":
		return "image/png"
	case "jpg":
		return "image/jpeg"
	case "gif":
		return "image/gif"
	case "webp":
		return "image/webp"
	case "svg":
		return "image/svg+xml"
	case "ico":
		return "image/x-icon"
	}
	return "application/octet-stream"
}
