package api

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/prospectdata/svc/shared/accounts"
)

// UserResponse is {ok: true, user}.
type UserResponse struct {
	OK   bool           `json:"ok"`
	User *accounts.User `json:"user"`
}

// ResetRequest is the body of the reset request.
type ResetRequest struct {
	Email string `json:"email"`
}

// ResetConfirm is the body of the reset confirmation.
type ResetConfirm struct {
	Token       string `json:"token"`
	NewPassword string `json:"new_password"`
}

// PasswordChange is the body of the password change.
type PasswordChange struct {
	CurrentPassword string `json:"current_password"`
	NewPassword     string `json:"new_password"`
}

// TokenBody is the body of the email verification.
type TokenBody struct {
	Token string `json:"token"`
}

// ResendResponse is the answer of the verification resend.
type ResendResponse struct {
	OK              bool `json:"ok"`
	AlreadyVerified bool `json:"already_verified,omitempty"`
}

// DeleteMe is the body of the account deletion.
type DeleteMe struct {
	ConfirmEmail string `json:"confirm_email"`
}

func (s *Server) setSession(w http.ResponseWriter, sess *accounts.Session) {
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: sess.Token, Path: "/", Expires: sess.Expires,
		MaxAge: int(accounts.SessionTTL / time.Second), HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode,
	})
}

func (s *Server) clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{
		Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode,
	})
}

// authRoutes are the account's own routes: sign-up, sessions, passwords,
// email verification, the account itself and its export.
func (s *Server) authRoutes() []Route {
	return []Route{
		{Method: http.MethodPost, Path: "/api/auth/signup", Auth: Public, Tag: "auth", Handle: s.signup,
			Summary: "Create an account (invitation code required)",
			Request: accounts.SignupRequest{}, Response: UserResponse{}, Status: http.StatusOK, Errors: []int{400, 422, 429}},
		{Method: http.MethodPost, Path: "/api/auth/login", Auth: Public, Tag: "auth", Handle: s.login,
			Summary: "Open a session",
			Request: accounts.LoginRequest{}, Response: UserResponse{}, Status: http.StatusOK, Errors: []int{400, 401, 422, 429}},
		{Method: http.MethodPost, Path: "/api/auth/logout", Auth: Public, Tag: "auth", Handle: s.logout,
			Summary:  "End the session",
			Response: OK{}, Status: http.StatusOK},
		{Method: http.MethodGet, Path: "/api/auth/me", Auth: Any, Tag: "auth", Handle: s.me,
			Summary:  "The authenticated user (connection test for API keys)",
			Response: accounts.User{}, Status: http.StatusOK, Errors: []int{401}},
		{Method: http.MethodPost, Path: "/api/auth/password/reset-request", Auth: Public, Tag: "auth", Handle: s.requestReset,
			Summary: "Mail a password reset link (same answer in every case)",
			Request: ResetRequest{}, Response: OK{}, Status: http.StatusOK},
		{Method: http.MethodPost, Path: "/api/auth/password/reset-confirm", Auth: Public, Tag: "auth", Handle: s.confirmReset,
			Summary: "Set a new password with a reset token",
			Request: ResetConfirm{}, Response: OK{}, Status: http.StatusOK, Errors: []int{400, 422}},
		{Method: http.MethodPost, Path: "/api/auth/password/change", Auth: SessionOnly, Active: true, Tag: "auth", Handle: s.changePassword,
			Summary: "Change the password",
			Request: PasswordChange{}, Response: OK{}, Status: http.StatusOK, Errors: []int{400, 401, 403, 422, 429}},
		{Method: http.MethodPost, Path: "/api/auth/email/verify", Auth: Public, Tag: "auth", Handle: s.verifyEmail,
			Summary: "Confirm the email address with the mailed token",
			Request: TokenBody{}, Response: OK{}, Status: http.StatusOK, Errors: []int{400}},
		{Method: http.MethodPost, Path: "/api/auth/email/resend-verify", Auth: SessionOnly, Active: true, Tag: "auth", Handle: s.resendVerification,
			Summary:  "Mail a new verification link",
			Response: ResendResponse{}, Status: http.StatusOK, Errors: []int{401, 403, 429}},
		{Method: http.MethodDelete, Path: "/api/auth/me", Auth: SessionOnly, Tag: "auth", Handle: s.deleteMe,
			Summary: "Delete the account and everything it owns",
			Request: DeleteMe{}, Status: http.StatusNoContent, Errors: []int{400, 401, 403}},
		{Method: http.MethodGet, Path: "/api/auth/me/export", Auth: SessionOnly, Tag: "auth", Handle: s.exportMe,
			Summary: "Download every record of the account as a ZIP. Where responses are capped (AWS): 202 with " +
				"Retry-After while a worker builds it, then 302 to the archive (docs/files.md)",
			ResponseType: "application/zip", Status: http.StatusOK, Errors: []int{401, 403}},
	}
}

// signup is POST /api/auth/signup: the new account is signed in.
func (s *Server) signup(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	var req accounts.SignupRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	u, sess, err := s.d.Accounts.Signup(r.Context(), req, s.clientIP(r))
	if err != nil {
		return err
	}
	s.setSession(w, sess)
	writeJSON(w, http.StatusOK, UserResponse{OK: true, User: u})
	return nil
}

// login is POST /api/auth/login.
func (s *Server) login(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	var req accounts.LoginRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	u, sess, err := s.d.Accounts.Login(r.Context(), req, s.clientIP(r))
	if err != nil {
		return err
	}
	s.setSession(w, sess)
	writeJSON(w, http.StatusOK, UserResponse{OK: true, User: u})
	return nil
}

// logout is POST /api/auth/logout: public, so that a stale cookie is
// cleared too.
func (s *Server) logout(w http.ResponseWriter, r *http.Request, c *Caller) error {
	if c.Session != nil {
		if err := s.d.Accounts.EndSession(r.Context(), c.Session.UserID, c.Session.ID); err != nil {
			return err
		}
	}
	s.clearSession(w)
	writeJSON(w, http.StatusOK, OK{OK: true})
	return nil
}

// me is GET /api/auth/me.
func (s *Server) me(w http.ResponseWriter, r *http.Request, c *Caller) error {
	writeJSON(w, http.StatusOK, c.User)
	return nil
}

// requestReset is POST /api/auth/password/reset-request.
func (s *Server) requestReset(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	var req ResetRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.d.Accounts.RequestReset(r.Context(), req.Email, s.clientIP(r)); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, OK{OK: true})
	return nil
}

// confirmReset is POST /api/auth/password/reset-confirm.
func (s *Server) confirmReset(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	var req ResetConfirm
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.d.Accounts.ConfirmReset(r.Context(), req.Token, req.NewPassword); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, OK{OK: true})
	return nil
}

// changePassword is POST /api/auth/password/change: the caller gets the
// fresh session that replaces every other.
func (s *Server) changePassword(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req PasswordChange
	if err := decode(r, &req); err != nil {
		return err
	}
	sess, err := s.d.Accounts.ChangePassword(r.Context(), c.User, req.CurrentPassword, req.NewPassword)
	if err != nil {
		return err
	}
	s.setSession(w, sess)
	writeJSON(w, http.StatusOK, OK{OK: true})
	return nil
}

// verifyEmail is POST /api/auth/email/verify.
func (s *Server) verifyEmail(w http.ResponseWriter, r *http.Request, _ *Caller) error {
	var req TokenBody
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.d.Accounts.VerifyEmail(r.Context(), req.Token); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, OK{OK: true})
	return nil
}

// resendVerification is POST /api/auth/email/resend-verify.
func (s *Server) resendVerification(w http.ResponseWriter, r *http.Request, c *Caller) error {
	already, err := s.d.Accounts.ResendVerification(r.Context(), c.User)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, ResendResponse{OK: true, AlreadyVerified: already})
	return nil
}

// deleteMe is DELETE /api/auth/me.
func (s *Server) deleteMe(w http.ResponseWriter, r *http.Request, c *Caller) error {
	var req DeleteMe
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := s.d.Accounts.DeleteAccount(r.Context(), c.User, req.ConfirmEmail); err != nil {
		return err
	}
	s.clearSession(w)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// exportMe is GET /api/auth/me/export: streamed in the request, or, where
// responses are capped, built by a worker (exportLater).
func (s *Server) exportMe(w http.ResponseWriter, r *http.Request, c *Caller) error {
	if s.d.Exports != nil {
		return s.exportLater(w, r, c)
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", "attachment; filename="+accounts.ExportFilename(c.User, s.d.Accounts.Now()))
	cw := &countingWriter{w: w}
	if err := s.d.Accounts.Export(r.Context(), c.User, cw); err != nil {
		if cw.n == 0 {
			w.Header().Del("Content-Disposition")
			return err
		}
		// Once the archive has started, an error can only cut the
		// stream short: the client sees a truncated, invalid ZIP.
		s.d.Log.ErrorContext(r.Context(), "export cut short", "err", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

// ExportPending is the 202 body of an account export being built.
type ExportPending struct {
	Status     string `json:"status"` // "building"
	Detail     string `json:"detail"`
	RetryAfter int    `json:"retry_after"`
}

// exportLater answers the account export where a worker builds it: 302 to
// the archive once built, else 202 with Retry-After (the same route,
// called again, answers the redirect).
func (s *Server) exportLater(w http.ResponseWriter, r *http.Request, c *Caller) error {
	res, err := s.d.Exports.Get(r.Context(), c.User)
	if err != nil {
		return err
	}
	if res.URL != "" {
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, res.URL, http.StatusFound)
		return nil
	}
	w.Header().Set("Retry-After", strconv.Itoa(res.RetryAfter))
	w.Header().Set("Cache-Control", "no-store")
	body := ExportPending{Status: "building", RetryAfter: res.RetryAfter,
		Detail: "L'export est en préparation : rappelle cette adresse dans quelques secondes."}
	if english(r) {
		body.Detail = "The export is being built: call this address again in a few seconds."
	}
	writeJSON(w, http.StatusAccepted, body)
	return nil
}

// countingWriter tells whether anything was written yet.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}
