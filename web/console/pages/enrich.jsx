// Enriching a done job: a module run over its rows, with its options and
// its cost shown before it starts (POST /api/estimate/items), then the new
// job (POST /api/jobs/{type} with the rows and source_job_id).

import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { t } from '../i18n.js';
import { navigate } from '../router.jsx';
import { Field, Notice, useSubmit } from '../ui.jsx';

const maxItems = 10000;

export function Enrich({ job }) {
  const [modules, setModules] = useState(null);
  const [slug, setSlug] = useState('');
  const [deep, setDeep] = useState(false);
  const [shot, setShot] = useState(false);
  const [maxReviews, setMaxReviews] = useState('10');
  const [months, setMonths] = useState('0');
  const [cost, setCost] = useState(null);
  const [error, setError] = useState(null);
  const count = job.results_count || 0;
  useEffect(() => {
    get('/api/modules').then((r) => setModules(r.modules)).catch((e) => setError(e.message));
  }, []);
  const options = () => {
    const o = {};
    if (slug === 'emails') o.mode = deep ? 'deep' : 'normal';
    if (slug === 'brand_assets') o.capture_screenshot = shot;
    return o;
  };
  // Options that change what a job does, not its price.
  const jobOptions = () => {
    const o = options();
    if (slug === 'reviews') {
      o.max_reviews = Number(maxReviews);
      o.period_months = Number(months);
    }
    return o;
  };
  useEffect(() => {
    setCost(null);
    if (!slug || count < 1 || count > maxItems) return;
    post('/api/estimate/items', { module: slug, count, ...options() }).then(setCost).catch((e) => setError(e.message));
  }, [slug, deep, shot, count]);
  const launch = useSubmit(async () => {
    const m = modules.find((x) => x.slug === slug);
    const rows = await get(`/api/jobs/${encodeURIComponent(job.id)}/items?limit=${maxItems}`);
    const j = await post(m.endpoint, { items: rows.items, source_job_id: job.id, ...jobOptions() });
    navigate(`/jobs/${encodeURIComponent(j.id)}`);
  });
  if (!modules) return error ? <Notice kind="error">{error}</Notice> : <p role="status">{t('loading')}</p>;
  const chosen = modules.find((m) => m.slug === slug);
  return (
    <form onSubmit={launch.submit} noValidate>
      <Notice kind="error">{launch.error || error}</Notice>
      <div class="field">
        <label for="module">{t('module')}</label>
        <select id="module" name="module" value={slug} onChange={(e) => setSlug(e.currentTarget.value)}>
          <option value="">{t('chooseModule')}</option>
          {modules.map((m) => <option key={m.slug} value={m.slug}>{m.label}</option>)}
        </select>
      </div>
      {chosen && <p class="hint">{t('needs')} {chosen.needs.join(', ')} · {t('adds')} {chosen.produces.join(', ')}</p>}
      {slug === 'emails' && (
        <label class="radio"><input type="checkbox" name="deep" checked={deep} onChange={(e) => setDeep(e.currentTarget.checked)} /> {t('deepMode')}</label>
      )}
      {slug === 'brand_assets' && (
        <label class="radio"><input type="checkbox" name="capture_screenshot" checked={shot} onChange={(e) => setShot(e.currentTarget.checked)} /> {t('screenshot')}</label>
      )}
      {slug === 'reviews' && (
        <div class="inline-fields">
          <Field label={t('maxReviews')} name="max_reviews" type="number" min="1" max="100" value={maxReviews} onInput={setMaxReviews} error={launch.fields.max_reviews} />
          <Field label={t('periodMonths')} name="period_months" type="number" min="0" max="120" value={months} onInput={setMonths}
            hint={t('periodHint')} error={launch.fields.period_months} />
        </div>
      )}
      {count > maxItems && <Notice kind="error">{t('tooManyRows')}</Notice>}
      {cost && <p data-fact="enrich-cost" aria-live="polite">{t('cost')} {cost.ef_cost} EF · {cost.count} {t('rowsLower')}</p>}
      <button type="submit" disabled={launch.busy || !cost}>{t('enrichLaunch')}</button>
    </form>
  );
}
