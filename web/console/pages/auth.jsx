// The pages of a person without a session, and the links of the mails:
// log in, sign up, verify the address, reset the password.

import { useEffect, useRef, useState } from 'preact/hooks';
import { post } from '../api.js';
import { t } from '../i18n.js';
import { Link, navigate } from '../router.jsx';
import { Check, Field, Notice, Page, useSubmit } from '../ui.jsx';

export function Login({ onSession }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const f = useSubmit(async () => {
    const r = await post('/api/auth/login', { email, password });
    onSession(r.user);
    navigate('/jobs', true);
  });
  return (
    <Page title={t('login')}>
      <form onSubmit={f.submit} noValidate>
        <Notice kind="error">{f.error}</Notice>
        <Field label={t('email')} name="email" type="email" autocomplete="username" value={email} onInput={setEmail} error={f.fields.email} required />
        <Field label={t('password')} name="password" type="password" autocomplete="current-password" value={password} onInput={setPassword} error={f.fields.password} required />
        <button type="submit" disabled={f.busy}>{t('login')}</button>
      </form>
      <p><Link href="/reset-password">{t('forgot')}</Link></p>
      <p>{t('noAccount')} <Link href="/signup">{t('signup')}</Link></p>
    </Page>
  );
}

export function Signup({ onSession }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [accept, setAccept] = useState(false);
  const [token, setToken] = useState(null);
  const captcha = captchaSetting();
  const f = useSubmit(async () => {
    const r = await post('/api/auth/signup', {
      email, password, invitation_code: code, accept_responsibility: accept, captcha_token: token,
    });
    onSession(r.user);
    navigate('/account', true);
  });
  return (
    <Page title={t('signup')}>
      <form onSubmit={f.submit} noValidate>
        <Notice kind="error">{f.error}</Notice>
        <Field label={t('email')} name="email" type="email" autocomplete="username" value={email} onInput={setEmail} error={f.fields.email} required />
        <Field label={t('password')} name="password" type="password" autocomplete="new-password" value={password} onInput={setPassword}
          error={f.fields.password} hint={t('passwordHint')} required />
        <Field label={t('invitation')} name="invitation_code" value={code} onInput={setCode} error={f.fields.invitation_code} required />
        <Check label={t('accept')} name="accept_responsibility" checked={accept} onChange={setAccept} error={f.fields.accept_responsibility} />
        {captcha && <Captcha setting={captcha} onToken={setToken} error={f.fields.captcha_token} />}
        <button type="submit" disabled={f.busy || (captcha && !token)}>{t('signup')}</button>
      </form>
      <p>{t('haveAccount')} <Link href="/login">{t('login')}</Link></p>
    </Page>
  );
}

// VerifyEmail is the page of the mail's link: it sends the token once.
export function VerifyEmail({ query, onVerified }) {
  const token = query.get('token') || '';
  const [state, setState] = useState({ busy: true });
  useEffect(() => {
    let live = true;
    post('/api/auth/email/verify', { token })
      .then(() => {
        if (!live) return;
        setState({ ok: true });
        onVerified();
      })
      .catch((e) => live && setState({ error: e.message }));
    return () => {
      live = false;
    };
  }, [token]);
  return (
    <Page title={t('verifyTitle')}>
      {state.busy && <p role="status">{t('verifying')}</p>}
      <Notice kind="success">{state.ok && t('verified')}</Notice>
      <Notice kind="error">{state.error}</Notice>
      {state.ok && <p><Link href="/jobs">{t('jobs')}</Link></p>}
    </Page>
  );
}

// ResetPassword asks for the link without a token, sets the new password
// with one (the mail's link).
export function ResetPassword({ query }) {
  const token = query.get('token');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const f = useSubmit(async () => {
    if (token) await post('/api/auth/password/reset-confirm', { token, new_password: password });
    else await post('/api/auth/password/reset-request', { email });
    setDone(true);
  });
  return (
    <Page title={t('resetTitle')}>
      <Notice kind="success">{done && (token ? t('resetDone') : t('resetSent'))}</Notice>
      {!done && (
        <form onSubmit={f.submit} noValidate>
          <Notice kind="error">{f.error}</Notice>
          {token ? (
            <Field label={t('newPassword')} name="new_password" type="password" autocomplete="new-password" value={password}
              onInput={setPassword} error={f.fields.new_password} hint={t('passwordHint')} required />
          ) : (
            <Field label={t('email')} name="email" type="email" autocomplete="username" value={email} onInput={setEmail} error={f.fields.email} required />
          )}
          <button type="submit" disabled={f.busy}>{token ? t('save') : t('resetSend')}</button>
        </form>
      )}
      <p><Link href="/login">{t('login')}</Link></p>
    </Page>
  );
}

// captchaSetting is the captcha the server asks for at signup: its site
// key and the widget's script, or null.
function captchaSetting() {
  const m = document.querySelector('meta[name="svc-captcha"]');
  return m && m.content ? { key: m.content, script: m.dataset.script } : null;
}

// Captcha loads the provider's widget (a Turnstile-compatible script) and
// hands its token to the form; a widget that cannot load says so.
function Captcha({ setting, onToken, error }) {
  const el = useRef(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let done = false;
    const draw = () => {
      if (done || !window.turnstile || !el.current) return;
      done = true;
      window.turnstile.render(el.current, {
        sitekey: setting.key,
        callback: (tok) => onToken(tok),
        'expired-callback': () => onToken(null),
        'error-callback': () => setFailed(true),
      });
    };
    if (window.turnstile) {
      draw();
    } else {
      const sc = document.createElement('script');
      sc.src = setting.script;
      sc.async = true;
      sc.onload = draw;
      sc.onerror = () => setFailed(true);
      document.head.appendChild(sc);
    }
  }, []);
  return (
    <div class="field">
      <span class="label" id="captcha-label">{t('captcha')}</span>
      <div ref={el} role="group" aria-labelledby="captcha-label" />
      {failed && <p class="error" role="alert">{t('captchaFailed')}</p>}
      {error && <p class="error">{error}</p>}
    </div>
  );
}
