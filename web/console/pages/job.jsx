// A job: its status and progress as it runs (the job's stream), its log,
// the map of its tiles, cancel and resume, and its downloads once done.

import { useEffect, useState } from 'preact/hooks';
import { get, post, stream } from '../api.js';
import { t, when } from '../i18n.js';
import { ZoneMap } from '../map.jsx';
import { navigate } from '../router.jsx';
import { Notice, Page, useSubmit } from '../ui.jsx';
import { Enrich } from './enrich.jsx';
import { Rows } from './rows.jsx';
import { Watch } from './veille.jsx';

const terminal = ['done', 'failed', 'cancelled', 'expired'];

export function Job({ id }) {
  const [job, setJob] = useState(null);
  const [error, setError] = useState(null);
  const [log, setLog] = useState([]);
  const [tiles, setTiles] = useState(null);
  const [breakdown, setBreakdown] = useState(null);
  const [places, setPlaces] = useState([]);
  const load = () => get(`/api/jobs/${encodeURIComponent(id)}`).then(setJob).catch((e) => setError(e.message));
  useEffect(() => {
    setJob(null);
    setLog([]);
    load();
    const stop = stream(`/api/jobs/${encodeURIComponent(id)}/stream`, (event, data) => {
      if (event === 'log') setLog((l) => (l.some((x) => x.id === data.id) ? l : [...l, data]));
      else if (event === 'progress') setJob((j) => (j ? { ...j, ...data } : j));
      else if (event === 'status') setJob((j) => (j ? { ...j, status: data.status } : j));
      else if (event === 'done' || event === 'error') {
        load();
        return false;
      }
      return true;
    });
    return stop;
  }, [id]);
  const scrape = job && job.job_type === 'scrap';
  useEffect(() => {
    if (!scrape) return;
    get(`/api/jobs/${encodeURIComponent(id)}/map`).then(setTiles).catch(() => setTiles(null));
  }, [id, scrape, job && job.status, job && job.processed_points]);
  useEffect(() => {
    if (!scrape) return;
    get(`/api/jobs/${encodeURIComponent(id)}/breakdown`).then(setBreakdown).catch(() => setBreakdown(null));
  }, [id, scrape, job && job.status, job && job.results_count]);
  // The places found, once the output is written.
  useEffect(() => {
    if (!scrape || !job.download_available) return;
    get(`/api/jobs/${encodeURIComponent(id)}/places`).then((p) => setPlaces(p.places)).catch(() => setPlaces([]));
  }, [id, scrape, job && job.download_available]);
  const cancel = useSubmit(async () => {
    await post(`/api/jobs/${encodeURIComponent(id)}/cancel`);
    await load();
  });
  const resume = useSubmit(async () => {
    const j = await post(`/api/jobs/${encodeURIComponent(id)}/resume`);
    navigate(`/jobs/${encodeURIComponent(j.id)}`);
  });
  if (error) return <Page title={t('job')}><Notice kind="error">{error}</Notice></Page>;
  if (!job) return <Page title={t('job')}><p role="status">{t('loading')}</p></Page>;
  const title = (job.queries || []).join(', ') || job.job_type;
  const total = job.grid_points_count || 0;
  const done = job.processed_points || 0;
  const base = `/api/jobs/${encodeURIComponent(id)}/download`;
  return (
    <Page title={title} wide>
      <p class="subtitle">{(job.zones || []).join(', ')} · {when(job.created_at)}</p>
      <dl class="facts" aria-live="polite">
        <div><dt>{t('status')}</dt><dd data-fact="status">{t('status_' + job.status)}</dd></div>
        <div><dt>{t('results')}</dt><dd data-fact="results">{job.results_count}</dd></div>
        <div><dt>EF</dt><dd>{job.ef_cost}</dd></div>
        <div><dt>{t('errors')}</dt><dd>{job.error_count}</dd></div>
      </dl>
      {total > 0 && (
        <p>
          <label for="progress">{t('progress')}</label>{' '}
          <progress id="progress" max={total} value={done}>{done}/{total}</progress> {done} / {total} {t('tiles')}
        </p>
      )}
      <Notice kind="error">{cancel.error || resume.error}</Notice>
      <div class="actions">
        {!terminal.includes(job.status) && (
          <button type="button" class="secondary" onClick={cancel.submit} disabled={cancel.busy}>{t('cancel')}</button>
        )}
        {scrape && (job.status === 'cancelled' || job.status === 'failed') && (
          <button type="button" onClick={resume.submit} disabled={resume.busy}>{t('resume')}</button>
        )}
      </div>
      {job.download_available && (
        <section aria-labelledby="dl">
          <h2 id="dl">{t('downloads')}</h2>
          <ul class="downloads">
            <li><a href={`${base}?format=csv`} download>CSV</a></li>
            <li><a href={`${base}?format=json`} download>JSON</a></li>
            <li><a href={`${base}?format=xlsx`} download>XLSX</a></li>
          </ul>
        </section>
      )}
      {breakdown && (Object.keys(breakdown.by_query).length > 0 || Object.keys(breakdown.by_zone).length > 0) && (
        <section aria-labelledby="breakdown">
          <h2 id="breakdown">{t('breakdown')}</h2>
          <div class="columns">
            <Counts title={t('byQuery')} counts={breakdown.by_query} />
            <Counts title={t('byZone')} counts={breakdown.by_zone} />
          </div>
          {breakdown.dead_queries.length > 0 && <p>{t('deadQueries')} {breakdown.dead_queries.join(', ')}</p>}
        </section>
      )}
      {scrape && job.status === 'done' && (
        <section aria-labelledby="watch">
          <h2 id="watch">{t('watchTitle')}</h2>
          <Watch jobID={job.id} name={title} />
        </section>
      )}
      {job.download_available && job.status === 'done' && (
        <section aria-labelledby="enrich">
          <h2 id="enrich">{t('enrich')}</h2>
          <Enrich job={job} />
        </section>
      )}
      {scrape && tiles && (
        <section aria-labelledby="map">
          <h2 id="map">{t('mapTitle')}</h2>
          <ZoneMap label={t('mapTitle')} tiles={tiles.tiles.map((x) => x.bounds)} done={tiles.tiles.map((x) => x.processed === 1)}
            places={places.map((p) => ({ lat: p.lat, lon: p.lon, name: p.nom }))}
            summary={`${Math.round(tiles.processed_ratio * 100)} % ${t('tilesSearched')}` + (places.length ? ` · ${places.length} ${t('placesShown')}` : '')} />
        </section>
      )}
      {job.download_available && (
        <section aria-labelledby="rows">
          <h2 id="rows">{t('rows')}</h2>
          <Rows id={id} />
        </section>
      )}
      <section aria-labelledby="log">
        <h2 id="log">{t('log')}</h2>
        <ol class="log">
          {log.map((l) => <li key={l.id}><time>{when(l.at)}</time> {l.message}</li>)}
        </ol>
      </section>
    </Page>
  );
}

// Counts is a table of counts by name, the largest first.
function Counts({ title, counts }) {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return (
    <table>
      <caption>{title}</caption>
      <tbody>
        {rows.map(([k, n]) => <tr key={k}><th scope="row">{k}</th><td class="num">{n}</td></tr>)}
      </tbody>
    </table>
  );
}
