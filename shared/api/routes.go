package api

import "net/http"

// Auth is the credential kind a route needs.
type Auth int

// Credential kinds.
const (
	Public      Auth = iota // anyone; credentials, if sent, are still checked
	Any                     // a session or an API key within the key scope
	SessionOnly             // a session cookie; an API key gets 403
	Admin                   // the session of an admin
)

// Route is one entry of the route table: what the server mounts and what
// the OpenAPI document describes.
type Route struct {
	Method  string
	Path    string // net/http pattern path, with {name} wildcards
	Auth    Auth
	Active  bool // needs an active account (403 otherwise)
	MaxBody int64
	Tag     string
	Summary string
	// Request and Response are values of the body types, for the document;
	// nil means no JSON body. ResponseType overrides the media type of a
	// non-JSON success (a ZIP, a file).
	Request      any
	Response     any
	ResponseType string
	// Media lists the media types of a success that comes in several
	// formats (a download): application/json is Response's shape, the
	// others raw bytes. It overrides ResponseType.
	Media []string
	// Upload names the file field of a multipart/form-data body the route
	// accepts besides its JSON Request (an uploaded list).
	Upload string
	// Redirect says the route may answer 302 to the file at a signed
	// address of the file store (on AWS) instead of the file itself.
	Redirect bool
	// Query lists the query parameters the route reads, for the document
	// (a generated client's arguments).
	Query  []Param
	Status int   // success status
	Errors []int // documented error statuses
	Handle func(w http.ResponseWriter, r *http.Request, c *Caller) error
}

// Param is a query parameter of a route: its name, JSON Schema type
// (integer, string, boolean) and what it does; Enum, Min, Max and Default
// are its domain where it has one.
type Param struct {
	Name, Type, Doc string
	Enum            []string
	Min, Max        *int
	Default         any
}

// bound is n as a Param bound.
func bound(n int) *int { return &n }

// table is the route table of everything this service serves.
func (s *Server) table() []Route {
	var rs []Route
	rs = append(rs, s.authRoutes()...)
	rs = append(rs, s.keyRoutes()...)
	rs = append(rs, s.registryRoutes()...)
	rs = append(rs, s.scrapeRoutes()...)
	rs = append(rs, s.jobRoutes()...)
	rs = append(rs, s.itemRoutes()...)
	rs = append(rs, s.moduleRoutes()...)
	rs = append(rs, s.singleRoutes()...)
	rs = append(rs, s.companyRoutes()...)
	rs = append(rs, s.phonePlanRoute())
	rs = append(rs, s.pipelineRoutes()...)
	rs = append(rs, s.pipelineRunRoutes()...)
	rs = append(rs, s.veilleRoutes()...)
	rs = append(rs, s.brandAssetRoute())
	rs = append(rs, s.eventRoutes()...)
	rs = append(rs, s.webhookRoutes()...)
	rs = append(rs, s.adminRoutes()...)
	rs = append(rs, s.pageRoutes()...)
	rs = append(rs, s.referenceRoutes()...)
	rs = append(rs, s.opsRoutes()...)
	return rs
}

// opsRoutes are the liveness probe and the OpenAPI document.
func (s *Server) opsRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/healthz", Auth: Public, Tag: "ops", Handle: healthz,
			Summary:  "Liveness",
			Response: OK{}, Status: http.StatusOK},
		{Method: http.MethodGet, Path: "/api/openapi.json", Auth: Public, Tag: "reference", Handle: s.openAPIDocument,
			Summary:  "OpenAPI 3.1 description of the surface an API key can reach",
			Response: map[string]any{}, Status: http.StatusOK},
	}
}

// healthz is GET /healthz.
func healthz(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	writeJSON(w, http.StatusOK, OK{OK: true})
	return nil
}

// openAPIDocument is GET /api/openapi.json.
func (s *Server) openAPIDocument(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	writeJSON(w, http.StatusOK, s.OpenAPI())
	return nil
}

// OK is the {ok: true} body.
type OK struct {
	OK bool `json:"ok"`
}
