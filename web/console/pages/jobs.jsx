// The jobs: the list, most recent first, with the status and a progress
// bar of each job still pending or running kept live by its stream.

import { useEffect, useState } from 'preact/hooks';
import { get, stream } from '../api.js';
import { t, when } from '../i18n.js';
import { Link } from '../router.jsx';
import { Notice, Page } from '../ui.jsx';

const live = ['pending', 'running'];

export function Jobs() {
  const [jobs, setJobs] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    get('/api/jobs').then(setJobs).catch((e) => setError(e.message));
  }, []);
  // One stream per job still moving (an account runs 5 at most at once).
  const moving = jobs ? jobs.filter((j) => live.includes(j.status)).map((j) => j.id) : [];
  const key = moving.join(',');
  useEffect(() => {
    const update = (id, patch) => setJobs((js) => js && js.map((j) => (j.id === id ? { ...j, ...patch } : j)));
    const stops = moving.map((id) => stream(`/api/jobs/${encodeURIComponent(id)}/stream`, (event, data) => {
      if (event === 'progress') update(id, data);
      else if (event === 'status') update(id, { status: data.status });
      else if (event === 'done') {
        update(id, data);
        return false;
      } else if (event === 'error') {
        update(id, { status: data.status });
        return false;
      }
      return true;
    }));
    return () => stops.forEach((s) => s());
  }, [key]);
  return (
    <Page title={t('jobs')} wide>
      <p><Link class="button" href="/new">{t('newJob')}</Link></p>
      <Notice kind="error">{error}</Notice>
      {jobs === null ? !error && <p role="status">{t('loading')}</p> : jobs.length === 0 ? <p>{t('noJobs')}</p> : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('jobs')}>
          <table>
            <caption class="visually-hidden">{t('jobs')}</caption>
            <thead>
              <tr><th scope="col">{t('queries')}</th><th scope="col">{t('zones')}</th><th scope="col">{t('status')}</th>
                <th scope="col">{t('progress')}</th><th scope="col">{t('results')}</th><th scope="col">{t('created_at')}</th></tr>
            </thead>
            <tbody>
              {jobs.map((j) => (
                <tr key={j.id} data-job={j.id}>
                  <td><Link href={`/jobs/${encodeURIComponent(j.id)}`}>{(j.queries || []).join(', ') || j.job_type}</Link></td>
                  <td>{(j.zones || []).join(', ')}</td>
                  <td data-fact="status">{t('status_' + j.status)}</td>
                  <td>{j.grid_points_count > 0 && (
                    <progress max={j.grid_points_count} value={j.processed_points || 0}
                      aria-label={`${t('progress')} ${(j.queries || []).join(', ')}`}>{j.processed_points || 0}/{j.grid_points_count}</progress>
                  )}</td>
                  <td class="num" data-fact="results">{j.results_count}</td>
                  <td>{when(j.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
