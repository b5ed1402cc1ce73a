package api

import (
	"errors"
	"io"
	"net/http"
	"path"
	"strconv"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/blob"
	"github.com/prospectdata/svc/shared/jobs"
)

// assetURLTTL is how long the address a brand asset redirects to stays
// valid: longer than the redirect may be cached (10 minutes).
const assetURLTTL = 15 * time.Minute

// brandAssetRoute serves the files brand_assets re-hosted.
func (s *Server) brandAssetRoute() Route {
	return Route{Method: http.MethodGet, Path: "/api/brand-assets/{owner_user_id}/{filename}", Auth: SessionOnly, Tag: "jobs", Handle: s.brandAsset,
		Summary:      "A logo, favicon or screenshot re-hosted by a brand_assets job (owner or admin); a redirect to the file where the store can sign one",
		ResponseType: "image/*", Status: http.StatusOK, Errors: []int{401, 403, 404}}
}

// brandAsset is GET /api/brand-assets/{owner_user_id}/{filename}: only to
// the file's owner or an admin (another account gets the 404 of a missing
// file), and only names of the strict pattern jobs.AssetName.
func (s *Server) brandAsset(w http.ResponseWriter, r *http.Request, c *Caller) error {
	owner, err := strconv.ParseInt(r.PathValue("owner_user_id"), 10, 64)
	name := r.PathValue("filename")
	if err != nil || owner <= 0 || !jobs.AssetName.MatchString(name) {
		return apperr.Missing()
	}
	if c.User.ID != owner && !c.User.IsAdmin {
		return apperr.Missing()
	}
	if s.d.Files == nil {
		return apperr.Missing()
	}
	key := jobs.AssetKey(owner, name)
	// Where the store signs addresses (S3), the file is fetched from it:
	// a screenshot may pass a Lambda's 6 MB response. The address answers
	// attachment, so that an SVG opened directly is a download, never a
	// document; an <img> shows it all the same.
	url, ok, err := s.d.Files.DownloadURL(r.Context(), key, name, assetURLTTL)
	if errors.Is(err, blob.ErrNotFound) {
		return apperr.Missing()
	}
	if err != nil {
		return err
	}
	if ok {
		w.Header().Set("Cache-Control", "private, max-age=600")
		http.Redirect(w, r, url, http.StatusFound)
		return nil
	}
	return s.serveBrandAsset(w, r, key, name)
}

// serveBrandAsset answers the asset's bytes from the file store. Images
// are served with nosniff and a Content-Security-Policy that runs nothing,
// since an SVG logo is a document that could carry script.
func (s *Server) serveBrandAsset(w http.ResponseWriter, r *http.Request, key, name string) error {
	rc, info, err := s.d.Files.Open(r.Context(), key)
	if errors.Is(err, blob.ErrNotFound) {
		return apperr.Missing()
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	h := w.Header()
	h.Set("Content-Type", jobs.AssetType(path.Ext(name)[1:]))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox")
	h.Set("Cache-Control", "private, max-age=86400")
	if info.Size > 0 {
		h.Set("Content-Length", strconv.FormatInt(info.Size, 10))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, rc)
	return nil
}
