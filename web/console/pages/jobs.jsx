// The jobs: the list, most recent first.

import { useEffect, useState } from 'preact/hooks';
import { get } from '../api.js';
import { t, when } from '../i18n.js';
import { Link } from '../router.jsx';
import { Notice, Page } from '../ui.jsx';

export function Jobs() {
  const [jobs, setJobs] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    get('/api/jobs').then(setJobs).catch((e) => setError(e.message));
  }, []);
  return (
    <Page title={t('jobs')} wide>
      <p><Link class="button" href="/new">{t('newJob')}</Link></p>
      <Notice kind="error">{error}</Notice>
      {jobs === null ? !error && <p role="status">{t('loading')}</p> : jobs.length === 0 ? <p>{t('noJobs')}</p> : (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">{t('jobs')}</caption>
            <thead>
              <tr><th scope="col">{t('queries')}</th><th scope="col">{t('zones')}</th><th scope="col">{t('status')}</th>
                <th scope="col">{t('results')}</th><th scope="col">{t('created_at')}</th></tr>
            </thead>
            <tbody>
              {jobs.map((j) => (
                <tr key={j.id}>
                  <td><Link href={`/jobs/${encodeURIComponent(j.id)}`}>{(j.queries || []).join(', ') || j.job_type}</Link></td>
                  <td>{(j.zones || []).join(', ')}</td>
                  <td>{t('status_' + j.status)}</td>
                  <td>{j.results_count}</td>
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
