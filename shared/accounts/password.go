package accounts

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/prospectdata/svc/shared/apperr"
)

// Argon2id parameters: OWASP's recommended minimum (19 MiB, 2 passes, one
// lane). The encoded hash carries them, so raising them later keeps old hashes
// verifiable.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// HashPassword returns an encoded argon2id hash (PHC string format).
func HashPassword(pw string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password salt: %w", err)
	}
	sum := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum)), nil
}

// CheckPassword reports whether pw matches the encoded hash.
func CheckPassword(encoded, pw string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is verified when a login names no account, so that the answer
// takes as long as for a wrong password and does not reveal which emails exist.
const dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$0YBzKQ3Ew8CxS6p3HnVzWq8Rrj0k9M3wP9fWz6hVx2I"

// checkPolicy applies the spec's password rule: maxLen characters at most, at
// least 8, with at least one letter and one digit or symbol. It returns a 422
// naming the field.
func checkPolicy(field, pw string, maxLen int) error {
	n := utf8.RuneCountInString(pw)
	if n < 8 || n > maxLen {
		return apperr.Fields(apperr.Field(field,
			fmt.Sprintf("Le mot de passe doit contenir entre 8 et %d caractères", maxLen),
			fmt.Sprintf("Password must be 8 to %d characters long", maxLen)))
	}
	var letter, other bool
	for _, r := range pw {
		switch {
		case unicode.IsLetter(r):
			letter = true
		case unicode.IsDigit(r) || unicode.IsPunct(r) || unicode.IsSymbol(r):
			other = true
		}
	}
	if !letter || !other {
		return apperr.Fields(apperr.Field(field,
			"Le mot de passe doit contenir au moins une lettre et un chiffre ou un symbole",
			"Password must contain at least one letter and one digit or symbol"))
	}
	return nil
}
