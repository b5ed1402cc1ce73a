// Pipelines: the list; a new one from the portable envelope (pasted or a
// file), checked before it is created with the message where it applies;
// a pipeline's DAG with each stage's status, progress and rows, continue
// and cancel, and the filter stages' preview.

import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { t, when } from '../i18n.js';
import { Link, navigate } from '../router.jsx';
import { Notice, Page, useSubmit } from '../ui.jsx';
import { Watch } from './veille.jsx';

const terminal = ['done', 'failed', 'cancelled'];

export function Pipelines() {
  const [list, setList] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    get('/api/pipelines').then(setList).catch((e) => setError(e.message));
  }, []);
  return (
    <Page title={t('pipelines')} wide>
      <NewPipeline />
      <h2>{t('pipelinesList')}</h2>
      <Notice kind="error">{error}</Notice>
      {list === null ? !error && <p role="status">{t('loading')}</p> : list.length === 0 ? <p>{t('noPipelines')}</p> : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={t('pipelines')}>
          <table>
            <caption class="visually-hidden">{t('pipelines')}</caption>
            <thead><tr><th scope="col">{t('name')}</th><th scope="col">{t('status')}</th><th scope="col">{t('progress')}</th>
              <th scope="col">{t('stages')}</th><th scope="col">{t('results')}</th><th scope="col">{t('created_at')}</th></tr></thead>
            <tbody>
              {list.map((p) => (
                <tr key={p.id}>
                  <td><Link href={`/pipelines/${encodeURIComponent(p.id)}`}>{p.name}</Link></td>
                  <td>{t('status_' + p.status)}</td>
                  <td class="num">{p.progress_pct} %</td>
                  <td class="num">{p.done_count} / {p.nodes_count}</td>
                  <td class="num">{p.results_count}</td>
                  <td>{when(p.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

// NewPipeline reads an envelope, checks it (POST /api/pipelines/validate),
// then creates it.
function NewPipeline() {
  const [text, setText] = useState('');
  const [check, setCheck] = useState(null);
  const [parseError, setParseError] = useState(null);
  const parsed = () => {
    try {
      const v = JSON.parse(text);
      setParseError(null);
      return v;
    } catch (e) {
      setParseError(t('notJSON'));
      return null;
    }
  };
  const validate = useSubmit(async () => {
    setCheck(null);
    const v = parsed();
    if (!v) return;
    const definition = v.definition || v;
    setCheck(await post('/api/pipelines/validate', { definition, schema_version: 1 }));
  });
  const create = useSubmit(async () => {
    const v = parsed();
    if (!v) return;
    const r = await post('/api/pipelines', v);
    navigate(`/pipelines/${encodeURIComponent(r.id)}`);
  });
  const onFile = async (e) => {
    const f = e.currentTarget.files && e.currentTarget.files[0];
    if (f) setText(await f.text());
  };
  const problem = parseError || (check && !check.ok && `${t('reason_' + check.reason)} ${check.error}`) || validate.error || create.error;
  return (
    <section aria-labelledby="new-pipeline">
      <h2 id="new-pipeline">{t('newPipeline')}</h2>
      <form onSubmit={create.submit} noValidate>
        <div class="field">
          <label for="envelope">{t('envelope')}</label>
          <textarea id="envelope" name="envelope" rows={8} value={text} aria-describedby="envelope-hint envelope-check"
            aria-invalid={problem ? 'true' : undefined} onInput={(e) => { setText(e.currentTarget.value); setCheck(null); }} />
          <p class="hint" id="envelope-hint">{t('envelopeHint')}</p>
          <div id="envelope-check">
            {problem && <p class="error" role="alert">{problem}</p>}
            {check && check.ok && (
              <p class="success" role="status">{t('pipelineValid')} {check.summary.n_nodes} {t('stages')}, {check.summary.types.join(', ')}</p>
            )}
          </div>
        </div>
        <div class="field">
          <label for="envelope-file">{t('envelopeFile')}</label>
          <input id="envelope-file" name="envelope_file" type="file" accept="application/json,.json" onChange={onFile} />
        </div>
        <div class="actions">
          <button type="button" class="secondary" onClick={validate.submit} disabled={validate.busy || !text}>{t('check')}</button>
          <button type="submit" disabled={create.busy || !(check && check.ok)}>{t('createPipeline')}</button>
        </div>
      </form>
    </section>
  );
}

export function Pipeline({ id }) {
  const [p, setP] = useState(null);
  const [error, setError] = useState(null);
  const load = () => get(`/api/pipelines/${encodeURIComponent(id)}`).then(setP).catch((e) => setError(e.message));
  const ended = p && terminal.includes(p.status);
  useEffect(() => {
    load();
  }, [id]);
  // Read again while it moves; an ended pipeline no longer changes.
  useEffect(() => {
    if (ended) return;
    const timer = setInterval(() => load(), 1500);
    return () => clearInterval(timer);
  }, [id, ended]);
  const [actError, setActError] = useState(null);
  const doAct = async (path) => {
    setActError(null);
    try {
      await post(path);
      await load();
    } catch (e) {
      setActError(e.message);
    }
  };
  if (error) return <Page title={t('pipelines')}><Notice kind="error">{error}</Notice></Page>;
  if (!p) return <Page title={t('pipelines')}><p role="status">{t('loading')}</p></Page>;
  const base = `/api/pipelines/${encodeURIComponent(id)}`;
  const lastJob = (node) => p.jobs.filter((j) => j.pipeline_node_id === node).sort((a, b) => (a.created_at < b.created_at ? 1 : -1))[0];
  const running = !terminal.includes(p.status);
  return (
    <Page title={p.name} wide>
      <dl class="facts" aria-live="polite">
        <div><dt>{t('status')}</dt><dd data-fact="pipeline-status">{t('status_' + p.status)}</dd></div>
        <div><dt>{t('progress')}</dt><dd>{p.progress_pct} %</dd></div>
      </dl>
      <progress max="100" value={p.progress_pct} aria-label={t('progress')}>{p.progress_pct} %</progress>
      <Notice kind="error">{actError}</Notice>
      <div class="actions">
        {running && <button type="button" class="secondary" onClick={() => doAct(`${base}/cancel`)}>{t('cancel')}</button>}
        {p.output_job && p.output_job.download_available && (
          <a class="button secondary" href={`/api/jobs/${encodeURIComponent(p.output_job.id)}/download?format=csv`} download>{t('downloadOutput')}</a>
        )}
      </div>
      {p.status === 'done' && (
        <section aria-labelledby="watch">
          <h2 id="watch">{t('watchTitle')}</h2>
          <Watch pipelineID={p.id} name={p.name} />
        </section>
      )}
      <Dag definition={p.definition} status={(n) => lastJob(n)} />
      <h2>{t('stagesTitle')}</h2>
      <ol class="stages">
        {p.definition.nodes.map((n) => {
          const j = lastJob(n.id);
          const continuable = running && j && (j.status === 'cancelled' || j.status === 'failed');
          return (
            <li key={n.id} data-node={n.id}>
              <strong>{n.type}</strong> <code>{n.id}</code> — {j ? `${t('status_' + j.status)}, ${j.results_count} ${t('rowsLower')}` : t('waiting')}
              {j && <> · <Link href={`/jobs/${encodeURIComponent(j.id)}`}>{t('job')}</Link></>}
              {continuable && <> <button type="button" onClick={() => doAct(`${base}/nodes/${encodeURIComponent(n.id)}/continue`)}>{t('continue')}</button></>}
              {n.type === 'filter' && <FilterPreview base={base} node={n} />}
            </li>
          );
        })}
      </ol>
    </Page>
  );
}

// Dag draws the stages and their edges from the definition's layout.
function Dag({ definition, status }) {
  const nodes = definition.nodes;
  if (!nodes.length) return null;
  const xs = nodes.map((n) => n.x || 0);
  const ys = nodes.map((n) => n.y || 0);
  const minX = Math.min(...xs), minY = Math.min(...ys);
  const w = 170, h = 56, pad = 20;
  const pos = {};
  nodes.forEach((n) => { pos[n.id] = { x: (n.x || 0) - minX + pad, y: (n.y || 0) - minY + pad }; });
  const width = Math.max(...nodes.map((n) => pos[n.id].x)) + w + pad;
  const height = Math.max(...nodes.map((n) => pos[n.id].y)) + h + pad;
  return (
    <svg class="dag" viewBox={`0 0 ${width} ${height}`} role="img" aria-label={t('dagLabel')}>
      {definition.edges.map((e) => {
        const a = pos[e.from], b = pos[e.to];
        if (!a || !b) return null;
        return <line key={e.id} x1={a.x + w} y1={a.y + h / 2} x2={b.x} y2={b.y + h / 2} class="edge" />;
      })}
      {nodes.map((n) => {
        const j = status(n.id);
        const st = j ? j.status : 'waiting';
        return (
          <g key={n.id} transform={`translate(${pos[n.id].x},${pos[n.id].y})`} class={`node ${st}`}>
            <rect width={w} height={h} rx="6" />
            <text x="10" y="22">{n.type}</text>
            <text x="10" y="42" class="sub">{j ? `${t('status_' + j.status)} · ${j.results_count}` : t('waiting')}</text>
          </g>
        );
      })}
    </svg>
  );
}

function FilterPreview({ base, node }) {
  const [res, setRes] = useState(null);
  const run = useSubmit(async () => {
    setRes(await post(`${base}/nodes/${encodeURIComponent(node.id)}/filter-preview`, { rules: (node.config && node.config.rules) || { logic: 'and', conditions: [] } }));
  });
  return (
    <div class="preview">
      <button type="button" class="secondary" onClick={run.submit} disabled={run.busy}>{t('filterPreview')}</button>
      <Notice kind="error">{run.error}</Notice>
      {res && (
        <p role="status" data-fact="filter-preview">
          {res.reason ? t('previewNotReady') : `${res.matched} / ${res.total} ${t('rowsMatched')}${res.capped ? ` (${t('capped')})` : ''}`}
        </p>
      )}
    </div>
  );
}
