package api

import (
	"fmt"
	"net/http"
	"strconv"
)

// The pages behind the links of the verification and reset mails. Opening a
// link changes nothing (mail scanners open links): the page asks the person to
// confirm, then posts the token to the API route. The token is read by the
// page's script from its own address and never written into the markup.

const pageHead = `<!doctype html><html lang="fr"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer">
<title>%s</title><style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}
button,input{font-size:1rem;padding:.5rem;margin:.25rem 0;width:100%%}#msg{margin-top:1rem}</style></head><body>`

const verifyPage = `<h1>Confirmer ton adresse email</h1>
<button id="go">Confirmer</button><p id="msg" role="status"></p>
<script>
const token = new URLSearchParams(location.search).get("token") || "";
document.getElementById("go").onclick = async () => {
  const r = await fetch("/api/auth/email/verify", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({token})});
  const b = await r.json().catch(() => ({}));
  document.getElementById("msg").textContent = r.ok ? "Adresse confirmée. Tu peux fermer cette page." : (b.detail || "Erreur");
};
</script></body></html>`

const resetPage = `<h1>Choisir un nouveau mot de passe</h1>
<form id="f"><input id="pw" type="password" autocomplete="new-password" minlength="8" maxlength="128" required
placeholder="Nouveau mot de passe"><button>Enregistrer</button></form><p id="msg" role="status"></p>
<script>
const token = new URLSearchParams(location.search).get("token") || "";
document.getElementById("f").onsubmit = async (e) => {
  e.preventDefault();
  const r = await fetch("/api/auth/password/reset-confirm", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({token, new_password: document.getElementById("pw").value})});
  const b = await r.json().catch(() => ({}));
  document.getElementById("msg").textContent = r.ok ? "Mot de passe changé. Tu peux te connecter." : (b.detail || "Erreur");
};
</script></body></html>`

func page(title, body string) func(http.ResponseWriter, *http.Request, *Caller) error {
	html := []byte(fmt.Sprintf(pageHead, title) + body)
	return func(w http.ResponseWriter, _ *http.Request, _ *Caller) error {
		h := w.Header()
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Length", strconv.Itoa(len(html)))
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
		h.Set("Cache-Control", "no-store")
		w.Write(html)
		return nil
	}
}

func (s *Server) pageRoutes() []Route {
	return []Route{
		{Method: http.MethodGet, Path: "/verify-email", Auth: Public, Tag: "pages", ResponseType: "text/html",
			Summary: "Page of the verification link", Status: http.StatusOK, Handle: page("Confirmer ton adresse", verifyPage)},
		{Method: http.MethodGet, Path: "/reset-password", Auth: Public, Tag: "pages", ResponseType: "text/html",
			Summary: "Page of the reset link", Status: http.StatusOK, Handle: page("Nouveau mot de passe", resetPage)},
	}
}
