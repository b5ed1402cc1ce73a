package accounts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/prospectdata/svc/shared/apperr"
	"github.com/prospectdata/svc/shared/captcha"
	"github.com/prospectdata/svc/shared/mail"
	"github.com/prospectdata/svc/shared/ratelimit"
	"github.com/prospectdata/svc/shared/store"
)

// Config is what the account rules read from the environment.
type Config struct {
	BaseURL         string   // {base_url} of the links in mails
	InvitationCodes []string // codes accepted at signup
	AdminEmails     []string // accounts with these emails are admins
	MailFrom        string
}

func (c Config) isAdmin(email string) bool {
	return slices.ContainsFunc(c.AdminEmails, func(a string) bool { return strings.EqualFold(a, email) })
}

// Service implements the account life.
type Service struct {
	db            store.DB
	mail          mail.Sender
	captcha       captcha.Verifier // nil when captcha verification is off
	limits        *ratelimit.Limiter
	cfg           Config
	sessionSecret []byte
	holders       []Holder
	now           func() time.Time
	log           *slog.Logger
}

// Deps are the Service's collaborators.
type Deps struct {
	DB            store.DB
	Mail          mail.Sender
	Captcha       captcha.Verifier
	Limits        *ratelimit.Limiter
	SessionSecret []byte
	Now           func() time.Time
	Log           *slog.Logger
}

// New returns the account service.
func New(d Deps, cfg Config) *Service {
	return &Service{
		db: d.DB, mail: d.Mail, captcha: d.Captcha, limits: d.Limits, cfg: cfg,
		sessionSecret: d.SessionSecret, now: d.Now, log: d.Log,
	}
}

// AddHolder registers a concept owning records of accounts, so that account
// deletion purges them and the data export includes them.
func (s *Service) AddHolder(h Holder) { s.holders = append(s.holders, h) }

// Now is the service clock.
func (s *Service) Now() time.Time { return s.now() }

// SignupRequest is the body of POST /api/auth/signup.
type SignupRequest struct {
	Email                string  `json:"email"`
	Password             string  `json:"password"`
	InvitationCode       string  `json:"invitation_code"`
	AcceptResponsibility bool    `json:"accept_responsibility"`
	CaptchaToken         *string `json:"captcha_token"`
}

// Signup creates an account and its first session, then sends the welcome and
// verification mails.
func (s *Service) Signup(ctx context.Context, req SignupRequest, ip string) (*User, *Session, error) {
	if err := s.limits.Allow(ctx, ratelimit.Signup, ip); err != nil {
		return nil, nil, err
	}
	email := NormalizeEmail(req.Email)
	var fields []apperr.FieldError
	if !validEmail(email) {
		fields = append(fields, apperr.Field("email", "Adresse email invalide", "Invalid email address"))
	}
	if err := checkPolicy("password", req.Password, 128); err != nil {
		fields = append(fields, err.(*apperr.Error).Fields...)
	}
	if !req.AcceptResponsibility {
		fields = append(fields, apperr.Field("accept_responsibility",
			"Tu dois accepter la responsabilité de l'usage des données", "accept_responsibility must be true"))
	}
	if len(fields) > 0 {
		return nil, nil, apperr.Fields(fields...)
	}
	if s.captcha != nil {
		tok := ""
		if req.CaptchaToken != nil {
			tok = *req.CaptchaToken
		}
		ok, err := s.captcha.Verify(ctx, tok, ip)
		if err != nil {
			s.log.WarnContext(ctx, "captcha verification failed", "err", err)
		}
		if !ok {
			return nil, nil, apperr.New(apperr.Invalid, "Captcha invalide. Réessaie.", "Invalid captcha. Try again.")
		}
	}
	if req.InvitationCode == "" || len(req.InvitationCode) > 64 || !slices.Contains(s.cfg.InvitationCodes, req.InvitationCode) {
		return nil, nil, apperr.New(apperr.Invalid, "Code invitation invalide", "Invalid invitation code")
	}
	hash, err := HashPassword(req.Password)
	if err != nil {
		return nil, nil, err
	}
	id, err := s.nextID(ctx, "users")
	if err != nil {
		return nil, nil, err
	}
	now := s.now().UTC()
	u := &User{ID: id, Email: email, PasswordHash: hash, IsActive: true, CreatedAt: now.Format(timeFmt), Created: now}
	ek := emailKey(email)
	err = s.db.Transact(ctx,
		store.PutOp(Table, store.Item{"pk": ek.PK, "sk": ek.SK, "user_id": id, "gsi1pk": UserPK(id), "gsi1sk": "EMAIL"},
			store.NotExists("pk")),
		store.PutOp(Table, userItem(u), store.NotExists("pk")))
	if errors.Is(err, store.ErrConditionFailed) {
		return nil, nil, apperr.New(apperr.Invalid, "Email existe déjà", "Email already exists")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("create user: %w", err)
	}
	u.IsAdmin = s.cfg.isAdmin(email)
	sess, err := s.NewSession(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	// A mail that cannot be sent does not undo the account: the user can ask
	// for the verification mail again.
	if err := s.sendMail(ctx, email, "welcome", "Bienvenue", welcomeText(s.cfg.BaseURL)); err != nil {
		s.log.ErrorContext(ctx, "welcome mail", "err", err)
	}
	if err := s.sendVerification(ctx, u); err != nil {
		s.log.ErrorContext(ctx, "verification mail", "err", err)
	}
	return u, sess, nil
}

// LoginRequest is the body of POST /api/auth/login.
type LoginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// Login checks the credentials and opens a session.
func (s *Service) Login(ctx context.Context, req LoginRequest, ip string) (*User, *Session, error) {
	email := NormalizeEmail(req.Email)
	if err := s.limits.Allow(ctx, ratelimit.LoginIP, ip); err != nil {
		return nil, nil, err
	}
	// Checked after the IP limit (a bad email still counts against the
	// caller) and before the email limit, whose key it would become: no
	// account can have such an email, and a store key must be valid UTF-8.
	if email != "" && !plausibleEmail(email) {
		return nil, nil, apperr.New(apperr.Invalid, "email : Adresse email invalide", "email: Invalid email address")
	}
	if err := s.limits.Allow(ctx, ratelimit.LoginEmail, email); err != nil {
		return nil, nil, err
	}
	var fields []apperr.FieldError
	if email == "" || len(email) > 254 {
		fields = append(fields, apperr.Field("email", "Adresse email invalide", "Invalid email address"))
	}
	if req.Password == "" || len(req.Password) > 128 {
		fields = append(fields, apperr.Field("password", "Mot de passe invalide", "Invalid password"))
	}
	if len(fields) > 0 {
		return nil, nil, apperr.Fields(fields...)
	}
	bad := apperr.New(apperr.Unauthorized, "Email ou mot de passe incorrect", "Incorrect email or password")
	u, err := s.userByEmail(ctx, email)
	if apperr.Is(err, apperr.NotFound) {
		CheckPassword(dummyHash, req.Password)
		return nil, nil, bad
	}
	if err != nil {
		return nil, nil, err
	}
	if !CheckPassword(u.PasswordHash, req.Password) {
		return nil, nil, bad
	}
	if !u.IsActive {
		return nil, nil, apperr.New(apperr.Unauthorized, "Compte désactivé", "Account deactivated")
	}
	sess, err := s.NewSession(ctx, u.ID)
	if err != nil {
		return nil, nil, err
	}
	return u, sess, nil
}

// RequestReset sends a reset link when an active account has the email. It
// says nothing either way, and goes silent when its limits are reached, so
// that it neither reveals accounts nor mails anyone in a loop.
func (s *Service) RequestReset(ctx context.Context, email, ip string) error {
	email = NormalizeEmail(email)
	if err := s.limits.Allow(ctx, ratelimit.ResetIP, ip); err != nil {
		return nil
	}
	if !validEmail(email) {
		return nil
	}
	if err := s.limits.Allow(ctx, ratelimit.ResetEmail, email); err != nil {
		return nil
	}
	u, err := s.userByEmail(ctx, email)
	if err != nil || !u.IsActive {
		if err != nil && !apperr.Is(err, apperr.NotFound) {
			s.log.ErrorContext(ctx, "reset request", "err", err)
		}
		return nil
	}
	tok, err := s.newToken(ctx, tokenReset, u.ID, ResetTTL)
	if err != nil {
		return err
	}
	link := s.cfg.BaseURL + "/reset-password?token=" + url.QueryEscape(tok)
	return s.sendMail(ctx, email, "reset", "Réinitialisation de ton mot de passe", resetText(link))
}

// ConfirmReset sets a new password from a reset token and ends every session.
func (s *Service) ConfirmReset(ctx context.Context, token, newPassword string) error {
	if err := checkPolicy("new_password", newPassword, 128); err != nil {
		return err
	}
	invalid := apperr.New(apperr.Invalid, "Lien invalide ou expiré", "Invalid or expired link")
	uid, ok, err := s.consumeToken(ctx, tokenReset, token)
	if err != nil {
		return err
	}
	if !ok {
		return invalid
	}
	u, err := s.User(ctx, uid)
	if apperr.Is(err, apperr.NotFound) || (err == nil && !u.IsActive) {
		return invalid
	}
	if err != nil {
		return err
	}
	if err := s.setPassword(ctx, uid, newPassword); err != nil {
		return err
	}
	return s.endSessions(ctx, uid)
}

// ChangePassword replaces the password, ends every session and opens a fresh
// one for the caller.
func (s *Service) ChangePassword(ctx context.Context, u *User, current, next string) (*Session, error) {
	if err := s.limits.Allow(ctx, ratelimit.PasswordChange, UserPK(u.ID)); err != nil {
		return nil, err
	}
	if current == "" || len(current) > 200 {
		return nil, apperr.Fields(apperr.Field("current_password", "Mot de passe actuel requis", "Current password required"))
	}
	if err := checkPolicy("new_password", next, 200); err != nil {
		return nil, err
	}
	if !CheckPassword(u.PasswordHash, current) {
		return nil, apperr.New(apperr.Invalid, "Mot de passe actuel incorrect", "Current password is incorrect")
	}
	if current == next {
		return nil, apperr.New(apperr.Invalid, "Le nouveau mot de passe doit être différent de l'actuel",
			"The new password must differ from the current one")
	}
	if err := s.setPassword(ctx, u.ID, next); err != nil {
		return nil, err
	}
	if err := s.endSessions(ctx, u.ID); err != nil {
		return nil, err
	}
	return s.NewSession(ctx, u.ID)
}

func (s *Service) setPassword(ctx context.Context, uid int64, pw string) error {
	hash, err := HashPassword(pw)
	if err != nil {
		return err
	}
	_, err = s.db.Table(Table).Update(ctx, store.Key{PK: UserPK(uid), SK: profileSK},
		store.Update{}.Set("password_hash", hash), store.Exists("pk"))
	if err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	return nil
}

// VerifyEmail marks the token's account verified.
func (s *Service) VerifyEmail(ctx context.Context, token string) error {
	uid, ok, err := s.consumeToken(ctx, tokenVerify, token)
	if err != nil {
		return err
	}
	invalid := apperr.New(apperr.Invalid, "Lien de vérification invalide ou expiré", "Invalid or expired verification link")
	if !ok {
		return invalid
	}
	_, err = s.db.Table(Table).Update(ctx, store.Key{PK: UserPK(uid), SK: profileSK},
		store.Update{}.Set("email_verified", true), store.Exists("pk"))
	if errors.Is(err, store.ErrConditionFailed) {
		return invalid
	}
	if err != nil {
		return fmt.Errorf("verify email: %w", err)
	}
	return nil
}

// ResendVerification mails a new verification link; it reports whether the
// address was already verified (then nothing is sent).
func (s *Service) ResendVerification(ctx context.Context, u *User) (already bool, err error) {
	if u.EmailVerified {
		return true, nil
	}
	if err := s.limits.Allow(ctx, ratelimit.ResendVerify, UserPK(u.ID)); err != nil {
		return false, err
	}
	return false, s.sendVerification(ctx, u)
}

func (s *Service) sendVerification(ctx context.Context, u *User) error {
	tok, err := s.newToken(ctx, tokenVerify, u.ID, VerifyTTL)
	if err != nil {
		return err
	}
	link := s.cfg.BaseURL + "/verify-email?token=" + url.QueryEscape(tok)
	return s.sendMail(ctx, u.Email, "verify", "Confirme ton adresse email", verifyText(link))
}

func (s *Service) sendMail(ctx context.Context, to, kind, subject, text string) error {
	return s.mail.Send(ctx, mail.Message{From: s.cfg.MailFrom, To: to, Subject: subject, Text: text, Kind: kind})
}

func welcomeText(base string) string {
	return "Bienvenue !\n\nTon compte est créé. Confirme ton adresse email avec le lien du message suivant, " +
		"puis crée une clé d'API pour tes intégrations.\n\n" + base + "\n"
}

func verifyText(link string) string {
	return fmt.Sprintf("Bonjour,\n\nConfirme ton adresse email en ouvrant ce lien (valable %d heures) :\n\n%s\n\n"+
		"Si tu n'as pas créé de compte, ignore ce message.\n", int(VerifyTTL.Hours()), link)
}

func resetText(link string) string {
	return fmt.Sprintf("Bonjour,\n\nPour choisir un nouveau mot de passe, ouvre ce lien (valable %d minutes) :\n\n%s\n\n"+
		"Si tu n'as rien demandé, ignore ce message : ton mot de passe reste inchangé.\n", int(ResetTTL.Minutes()), link)
}
