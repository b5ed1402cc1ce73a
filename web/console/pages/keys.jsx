// API keys: create one (shown once, with a copy button), list them with
// their last use, revoke.

import { useEffect, useState } from 'preact/hooks';
import { del, get, post } from '../api.js';
import { t, when } from '../i18n.js';
import { Copy, Field, Notice, Page, useSubmit } from '../ui.jsx';

export function Keys() {
  const [keys, setKeys] = useState(null);
  const [loadError, setLoadError] = useState(null);
  const [name, setName] = useState('');
  const [shown, setShown] = useState(null);
  const load = () => get('/api/keys').then((r) => setKeys(r.keys)).catch((e) => setLoadError(e.message));
  useEffect(() => {
    load();
  }, []);
  const create = useSubmit(async () => {
    const k = await post('/api/keys', { name });
    setShown(k);
    setName('');
    await load();
  });
  const revoke = async (id) => {
    setLoadError(null);
    try {
      await del(`/api/keys/${id}`);
      await load();
    } catch (e) {
      setLoadError(e.message);
    }
  };
  return (
    <Page title={t('keys')}>
      <form onSubmit={create.submit} noValidate class="inline">
        <Notice kind="error">{create.error}</Notice>
        <Field label={t('keyName')} name="name" value={name} onInput={setName} error={create.fields.name} maxLength={60} required />
        <button type="submit" disabled={create.busy || !name}>{t('createKey')}</button>
      </form>
      {shown && (
        <div class="notice success secret" role="status">
          <p>{t('keyShown')}</p>
          <p><code data-secret="key">{shown.key}</code> <Copy text={shown.key} /></p>
          <button type="button" class="secondary" onClick={() => setShown(null)}>{t('close')}</button>
        </div>
      )}
      <Notice kind="error">{loadError}</Notice>
      {keys === null ? <p role="status">{t('loading')}</p> : keys.length === 0 ? <p>{t('noKeys')}</p> : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('keys')}>
          <table>
            <caption class="visually-hidden">{t('keys')}</caption>
            <thead>
              <tr><th scope="col">{t('name')}</th><th scope="col">{t('prefix')}</th><th scope="col">{t('created')}</th>
                <th scope="col">{t('lastUsed')}</th><th scope="col">{t('status')}</th><th scope="col"><span class="visually-hidden">{t('revoke')}</span></th></tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td><code>{k.prefix}</code></td>
                  <td>{when(k.created_at)}</td>
                  <td>{when(k.last_used_at)}</td>
                  <td>{k.revoked_at ? `${t('revoked')} (${when(k.revoked_at)})` : t('active')}</td>
                  <td>{!k.revoked_at && (
                    <button type="button" class="secondary" aria-label={`${t('revoke')} ${k.name}`}
                      onClick={() => revoke(k.id)}>{t('revoke')}</button>
                  )}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
