// Veille: watch a done job or pipeline (a replay every n days), the
// watches with pause, resume and delete, a watch's runs with their counts,
// a run's samples of changes side by side and its reputation signals with
// their downloads.

import { useEffect, useState } from 'preact/hooks';
import { call, del, get, post } from '../api.js';
import { t, when } from '../i18n.js';
import { Link, navigate } from '../router.jsx';
import { Field, Notice, Page, useSubmit } from '../ui.jsx';

// Watch is the form that puts a done job or pipeline under watch.
export function Watch({ jobID, pipelineID, name }) {
  const [label, setLabel] = useState(name || '');
  const [days, setDays] = useState('7');
  const f = useSubmit(async () => {
    const body = { name: label, frequency_days: Number(days) };
    if (jobID) body.source_job_id = jobID;
    else body.source_pipeline_id = pipelineID;
    const v = await post('/api/veille', body);
    navigate(`/veille/${v.id}`);
  });
  return (
    <form onSubmit={f.submit} noValidate class="inline watch">
      <Notice kind="error">{f.error}</Notice>
      <Field label={t('watchName')} name="veille_name" value={label} onInput={setLabel} error={f.fields.name} required />
      <Field label={t('everyDays')} name="frequency_days" type="number" min="1" max="365" value={days} onInput={setDays} error={f.fields.frequency_days} required />
      <button type="submit" disabled={f.busy || label.trim().length < 2}>{t('watch')}</button>
    </form>
  );
}

export function VeilleList() {
  const [items, setItems] = useState(null);
  const [error, setError] = useState(null);
  const load = () => get('/api/veille').then((r) => setItems(r.items)).catch((e) => setError(e.message));
  useEffect(() => {
    load();
  }, []);
  const act = async (fn) => {
    setError(null);
    try {
      await fn();
      await load();
    } catch (e) {
      setError(e.message);
    }
  };
  return (
    <Page title={t('veille')} wide>
      <p class="hint">{t('veilleHint')}</p>
      <Notice kind="error">{error}</Notice>
      {items === null ? !error && <p role="status">{t('loading')}</p> : items.length === 0 ? <p>{t('noVeille')}</p> : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('veille')}>
          <table>
            <caption class="visually-hidden">{t('veille')}</caption>
            <thead><tr><th scope="col">{t('name')}</th><th scope="col">{t('status')}</th><th scope="col">{t('every')}</th>
              <th scope="col">{t('nextRun')}</th><th scope="col">{t('lastRun')}</th><th scope="col">{t('runs')}</th>
              <th scope="col"><span class="visually-hidden">{t('actions')}</span></th></tr></thead>
            <tbody>
              {items.map((v) => (
                <tr key={v.id}>
                  <td><Link href={`/veille/${v.id}`}>{v.name}</Link></td>
                  <td>{t('veille_' + v.status)}</td>
                  <td class="num">{v.frequency_days} {t('days')}</td>
                  <td>{when(v.next_run_at)}</td>
                  <td>{when(v.last_run_at)}</td>
                  <td class="num">{v.run_count}</td>
                  <td class="actions">
                    <button type="button" class="secondary" aria-label={`${v.status === 'active' ? t('pause') : t('resumeWatch')} ${v.name}`}
                      onClick={() => act(() => call('PATCH', `/api/veille/${v.id}`, { status: v.status === 'active' ? 'paused' : 'active' }))}>
                      {v.status === 'active' ? t('pause') : t('resumeWatch')}
                    </button>
                    <button type="button" class="secondary" aria-label={`${t('delete')} ${v.name}`} onClick={() => act(() => del(`/api/veille/${v.id}`))}>{t('delete')}</button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

export function Veille({ id, runID }) {
  const [v, setV] = useState(null);
  const [runs, setRuns] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    get(`/api/veille/${id}`).then(setV).catch((e) => setError(e.message));
    get(`/api/veille/${id}/runs`).then((r) => setRuns(r.items)).catch((e) => setError(e.message));
  }, [id]);
  if (error) return <Page title={t('veille')}><Notice kind="error">{error}</Notice></Page>;
  if (!v || !runs) return <Page title={t('veille')}><p role="status">{t('loading')}</p></Page>;
  const chosen = runID ? runs.find((r) => String(r.id) === String(runID)) : runs.find((r) => !r.is_baseline);
  return (
    <Page title={v.name} wide>
      <p class="subtitle">{t('every')} {v.frequency_days} {t('days')} · {t('nextRun')} {when(v.next_run_at)} · {t('veille_' + v.status)}</p>
      <h2>{t('runs')}</h2>
      <div class="table-wrap" tabIndex={0} role="region" aria-label={t('runs')}>
        <table>
          <caption class="visually-hidden">{t('runs')}</caption>
          <thead><tr><th scope="col">{t('when')}</th><th scope="col">{t('total')}</th><th scope="col">{t('newRows')}</th>
            <th scope="col">{t('removedRows')}</th><th scope="col">{t('modifiedRows')}</th><th scope="col">{t('unchangedRows')}</th></tr></thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id} aria-current={chosen && chosen.id === r.id ? 'true' : undefined}>
                <td>{r.is_baseline ? `${when(r.computed_at)} (${t('baseline')})` : <Link href={`/veille/${id}/runs/${r.id}`}>{when(r.computed_at)}</Link>}</td>
                <td class="num">{r.total_count}</td>
                <td class="num">{r.is_baseline ? '' : r.new_count}</td>
                <td class="num">{r.is_baseline ? '' : r.removed_count}</td>
                <td class="num">{r.is_baseline ? '' : r.modified_count}</td>
                <td class="num">{r.is_baseline ? '' : r.unchanged_count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {chosen && <Run veille={id} run={chosen.id} />}
    </Page>
  );
}

function Run({ veille, run }) {
  const [r, setR] = useState(null);
  const [sig, setSig] = useState(null);
  const [error, setError] = useState(null);
  const base = `/api/veille/${veille}/runs/${run}`;
  useEffect(() => {
    get(base).then(setR).catch((e) => setError(e.message));
    get(`${base}/signals`).then(setSig).catch((e) => setError(e.message));
  }, [veille, run]);
  if (error) return <Notice kind="error">{error}</Notice>;
  if (!r || !sig) return <p role="status">{t('loading')}</p>;
  const s = r.samples || { new: [], removed: [], modified: [] };
  return (
    <section aria-labelledby="run">
      <h2 id="run">{t('changes')} · {when(r.computed_at)}</h2>
      <div class="columns">
        <div>
          <h3>{t('newRows')} ({r.new_count})</h3>
          <ul class="samples" data-bucket="new">{s.new.map((x) => <li key={x.key}>{x.nom}</li>)}</ul>
        </div>
        <div>
          <h3>{t('removedRows')} ({r.removed_count})</h3>
          <ul class="samples" data-bucket="removed">{s.removed.map((x) => <li key={x.key}>{x.nom}</li>)}</ul>
        </div>
      </div>
      <h3>{t('modifiedRows')} ({r.modified_count})</h3>
      <div class="table-wrap" tabIndex={0} role="region" aria-label={t('modifiedRows')}>
        <table class="changes">
          <caption class="visually-hidden">{t('modifiedRows')}</caption>
          <thead><tr><th scope="col">{t('name')}</th><th scope="col">{t('field')}</th><th scope="col">{t('before')}</th><th scope="col">{t('after')}</th></tr></thead>
          <tbody>
            {s.modified.flatMap((m) => m.changed_fields.map((f, i) => (
              <tr key={m.key + f}>
                {i === 0 ? <th scope="row" rowSpan={m.changed_fields.length}>{m.nom}</th> : null}
                <td><code>{f}</code></td>
                <td>{String(m.before[f] ?? '')}</td>
                <td>{String(m.after[f] ?? '')}</td>
              </tr>
            )))}
          </tbody>
        </table>
      </div>
      <h3>{t('signals')} ({sig.total})</h3>
      <ul class="downloads">
        {['csv', 'json', 'xlsx'].map((f) => <li key={f}><a href={`${base}/signals.${f}`} download>{f.toUpperCase()}</a></li>)}
      </ul>
      {sig.items.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('signals')}>
          <table>
            <caption class="visually-hidden">{t('signals')}</caption>
            <thead><tr><th scope="col">{t('name')}</th><th scope="col">{t('ratingBefore')}</th><th scope="col">{t('ratingAfter')}</th>
              <th scope="col">{t('reviewsDelta')}</th><th scope="col">{t('score')}</th></tr></thead>
            <tbody>
              {sig.items.map((x, i) => (
                <tr key={i}>
                  <td>{x.nom}</td>
                  <td class="num">{x.note_avant}</td>
                  <td class="num">{x.note_apres}</td>
                  <td class="num">{x.delta_avis}</td>
                  <td class="num">{Number(x.score).toFixed(2)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
