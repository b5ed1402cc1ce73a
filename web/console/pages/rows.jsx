// A done job's rows, a page at a time, in the CSV's column order, each
// value shown for its type: numbers aligned and in the reader's format,
// yes or no for a boolean, a link for a web address.

import { useEffect, useState } from 'preact/hooks';
import { get } from '../api.js';
import { lang, t } from '../i18n.js';
import { Notice } from '../ui.jsx';

const pageSize = 50;

export function Rows({ id }) {
  const [cols, setCols] = useState(null);
  const [page, setPage] = useState(null);
  const [offset, setOffset] = useState(0);
  const [error, setError] = useState(null);
  const base = `/api/jobs/${encodeURIComponent(id)}`;
  useEffect(() => {
    get(`${base}/output-columns`).then(setCols).catch((e) => setError(e.message));
  }, [id]);
  useEffect(() => {
    get(`${base}/items?offset=${offset}&limit=${pageSize}`).then(setPage).catch((e) => setError(e.message));
  }, [id, offset]);
  if (error) return <Notice kind="error">{error}</Notice>;
  if (!cols || !page) return <p role="status">{t('loading')}</p>;
  const shown = cols.non_empty_columns && cols.non_empty_columns.length ? cols.columns.filter((c) => cols.non_empty_columns.includes(c)) : cols.columns;
  const from = page.total ? offset + 1 : 0;
  const to = offset + page.count;
  return (
    <div>
      <div class="table-wrap" tabIndex={0} role="region" aria-label={t('rows')}>
        <table class="rows">
          <caption class="visually-hidden">{t('rows')}</caption>
          <thead><tr>{shown.map((c) => <th scope="col" key={c}>{c}</th>)}</tr></thead>
          <tbody>
            {page.items.map((row, i) => (
              <tr key={offset + i}>{shown.map((c) => <Cell key={c} v={row[c]} />)}</tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label={t('rowsPages')}>
        <button type="button" class="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - pageSize))}>{t('previous')}</button>
        <span aria-live="polite">{from}–{to} / {page.total}</span>
        <button type="button" class="secondary" disabled={to >= page.total} onClick={() => setOffset(offset + pageSize)}>{t('next')}</button>
      </nav>
    </div>
  );
}

function Cell({ v }) {
  if (v === null || v === undefined || v === '') return <td />;
  if (typeof v === 'number') {
    return <td class="num">{v.toLocaleString(lang() === 'en' ? 'en-GB' : 'fr-FR', { maximumFractionDigits: 6 })}</td>;
  }
  if (typeof v === 'boolean') return <td>{v ? t('yes') : t('no')}</td>;
  if (typeof v === 'object') return <td>{JSON.stringify(v)}</td>;
  const s = String(v);
  if (/^https?:\/\/\S+$/.test(s)) {
    return <td><a href={s} rel="noopener noreferrer nofollow" target="_blank">{s.replace(/^https?:\/\//, '')}</a></td>;
  }
  return <td>{s}</td>;
}
