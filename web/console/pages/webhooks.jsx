// Webhooks: create an endpoint (its secret shown once), list them, see an
// endpoint's last deliveries with their attempts, delete.

import { useEffect, useState } from 'preact/hooks';
import { del, get, post } from '../api.js';
import { t, when } from '../i18n.js';
import { Copy, Field, Notice, Page, useSubmit } from '../ui.jsx';

const eventTypes = ['job.completed', 'job.failed', 'job.cancelled', 'pipeline.completed', 'pipeline.failed',
  'pipeline.cancelled', 'veille.run_completed'];

export function Webhooks() {
  const [hooks, setHooks] = useState(null);
  const [error, setError] = useState(null);
  const [url, setURL] = useState('');
  const [events, setEvents] = useState(['job.completed']);
  const [shown, setShown] = useState(null);
  const [open, setOpen] = useState(null);
  const load = () => get('/api/webhooks').then((r) => setHooks(r.webhooks)).catch((e) => setError(e.message));
  useEffect(() => {
    load();
  }, []);
  const create = useSubmit(async () => {
    const h = await post('/api/webhooks', { url, events });
    setShown(h);
    setURL('');
    await load();
  });
  const remove = async (id) => {
    setError(null);
    try {
      await del(`/api/webhooks/${id}`);
      if (open === id) setOpen(null);
      await load();
    } catch (e) {
      setError(e.message);
    }
  };
  const toggle = (ev) => setEvents(events.includes(ev) ? events.filter((x) => x !== ev) : [...events, ev]);
  return (
    <Page title={t('webhooks')} wide>
      <form onSubmit={create.submit} noValidate>
        <Notice kind="error">{create.error}</Notice>
        <Field label={t('webhookURL')} name="url" type="url" value={url} onInput={setURL} error={create.fields.url}
          hint={t('webhookURLHint')} required />
        <fieldset class="field">
          <legend>{t('events')}</legend>
          {eventTypes.map((ev) => (
            <label key={ev} class="radio"><input type="checkbox" name="events" value={ev} checked={events.includes(ev)} onChange={() => toggle(ev)} /> <code>{ev}</code></label>
          ))}
          {create.fields.events && <p class="error">{create.fields.events}</p>}
        </fieldset>
        <button type="submit" disabled={create.busy || !url || !events.length}>{t('createWebhook')}</button>
      </form>
      {shown && (
        <div class="notice success secret" role="status">
          <p>{t('secretShown')}</p>
          <p><code data-secret="webhook">{shown.secret}</code> <Copy text={shown.secret} /></p>
          <button type="button" class="secondary" onClick={() => setShown(null)}>{t('close')}</button>
        </div>
      )}
      <Notice kind="error">{error}</Notice>
      {hooks === null ? !error && <p role="status">{t('loading')}</p> : hooks.length === 0 ? <p>{t('noWebhooks')}</p> : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('webhooks')}>
          <table>
            <caption class="visually-hidden">{t('webhooks')}</caption>
            <thead><tr><th scope="col">URL</th><th scope="col">{t('events')}</th><th scope="col">{t('status')}</th>
              <th scope="col">{t('created')}</th><th scope="col"><span class="visually-hidden">{t('actions')}</span></th></tr></thead>
            <tbody>
              {hooks.map((h) => (
                <tr key={h.id}>
                  <td><code>{h.url}</code></td>
                  <td>{h.events.join(', ')}</td>
                  <td>{h.is_active ? t('active') : `${t('disabled')} (${when(h.disabled_at)})`}{h.consecutive_failures > 0 && ` · ${h.consecutive_failures} ${t('failures')}`}</td>
                  <td>{when(h.created_at)}</td>
                  <td class="actions">
                    <button type="button" class="secondary" aria-expanded={open === h.id ? 'true' : 'false'}
                      aria-label={`${t('deliveries')} ${h.url}`} onClick={() => setOpen(open === h.id ? null : h.id)}>{t('deliveries')}</button>
                    <button type="button" class="secondary" aria-label={`${t('delete')} ${h.url}`} onClick={() => remove(h.id)}>{t('delete')}</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open !== null && <Deliveries id={open} />}
    </Page>
  );
}

function Deliveries({ id }) {
  const [list, setList] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    get(`/api/webhooks/${id}/deliveries`).then((r) => setList(r.deliveries)).catch((e) => setError(e.message));
  }, [id]);
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">{t('deliveries')}</h2>
      <Notice kind="error">{error}</Notice>
      {list === null ? !error && <p role="status">{t('loading')}</p> : list.length === 0 ? <p>{t('noDeliveries')}</p> : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('deliveries')}>
          <table>
            <caption class="visually-hidden">{t('deliveries')}</caption>
            <thead><tr><th scope="col">{t('event')}</th><th scope="col">{t('status')}</th><th scope="col">{t('attempts')}</th>
              <th scope="col">HTTP</th><th scope="col">{t('error')}</th><th scope="col">{t('when')}</th><th scope="col">{t('nextAttempt')}</th></tr></thead>
            <tbody>
              {list.map((d) => (
                <tr key={d.delivery_id}>
                  <td><code>{d.event_type}</code> #{d.event_id}</td>
                  <td>{d.status}</td>
                  <td class="num">{d.attempts}</td>
                  <td class="num">{d.http_code ?? ''}</td>
                  <td>{d.error ?? ''}</td>
                  <td>{when(d.attempted_at)}</td>
                  <td>{d.next_attempt_at ? when(d.next_attempt_at) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
