package emails

import (
	"encoding/hex"
	"fmt"
)

// decodeCloudflare undoes Cloudflare's email address obfuscation: hex
// bytes, the first one a key every following byte is XORed with.
func decodeCloudflare(h string) (string, error) {
	b, err := hex.DecodeString(h)
	if err != nil {
		return "", fmt.Errorf("cloudflare email %q: %w", h, err)
	}
	if len(b) < 2 {
		return "", fmt.Errorf("cloudflare email %q: too short", h)
	}
	out := make([]byte, len(b)-1)
	for i, x := range b[1:] {
		out[i] = x ^ b[0]
	}
	return string(out), nil
}
