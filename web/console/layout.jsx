// The frame of every page: a link to skip to the content, the navigation,
// the month's EF usage against the quota (signed-in pages), the language
// and the logout.

import { useEffect, useState } from 'preact/hooks';
import { get, post } from './api.js';
import { lang, setLang, t } from './i18n.js';
import { Link, navigate } from './router.jsx';

export function Layout({ user, path, onSession, onLang, children }) {
  const [usage, setUsage] = useState(null);
  useEffect(() => {
    if (!user) return;
    get('/api/ef/usage').then(setUsage).catch(() => setUsage(null));
  }, [user, path]);
  const logout = async () => {
    try {
      await post('/api/auth/logout');
    } finally {
      onSession(null);
      navigate('/login', true);
    }
  };
  const nav = [
    ['/new', t('newJob')],
    ['/jobs', t('jobs')],
    ['/pipelines', t('pipelines')],
    ['/veille', t('veille')],
    ['/keys', t('keys')],
    ['/webhooks', t('webhooks')],
    ['/account', t('account')],
  ];
  return (
    <>
      <a class="skip" href="#main">{t('skip')}</a>
      <header>
        <div class="brand"><Link href={user ? '/jobs' : '/login'}>{t('appName')}</Link></div>
        {user && (
          <nav aria-label={t('appName')}>
            <ul>
              {nav.map(([href, label]) => (
                <li key={href}><Link href={href} aria-current={path.startsWith(href) ? 'page' : undefined}>{label}</Link></li>
              ))}
            </ul>
          </nav>
        )}
        <div class="tools">
          {usage && (
            <p class="usage" aria-label={t('efUsage')}>
              <span>{t('efUsage')}</span>{' '}
              <meter min="0" max={usage.quota} value={usage.spent} aria-hidden="true" />{' '}
              <span>{fmt(usage.spent)} / {fmt(usage.quota)}</span>
            </p>
          )}
          <button type="button" class="link" lang={lang() === 'fr' ? 'en' : 'fr'}
            onClick={() => { setLang(lang() === 'fr' ? 'en' : 'fr'); onLang(); }}>{t('language')}</button>
          {user && <button type="button" class="secondary" onClick={logout}>{t('logout')}</button>}
        </div>
      </header>
      {children}
    </>
  );
}

function fmt(n) {
  return Number(n).toLocaleString(lang() === 'en' ? 'en-GB' : 'fr-FR', { maximumFractionDigits: 2 });
}
