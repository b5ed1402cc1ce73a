// A new scrape: queries, zones typed with completions, the country and the
// mode; the estimate (tiles, requests, EF, duration) and the map of the
// tiles over the zones' outlines follow what is typed.

import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { t } from '../i18n.js';
import { ZoneMap } from '../map.jsx';
import { navigate } from '../router.jsx';
import { Notice, Page, useSubmit } from '../ui.jsx';

const modes = ['fast', 'normal', 'ultra'];

export function NewJob() {
  const [queries, setQueries] = useState('');
  const [zones, setZones] = useState([]);
  const [country, setCountry] = useState('FRA');
  const [countries, setCountries] = useState(null);
  const [mode, setMode] = useState('normal');
  const [estimate, setEstimate] = useState(null);
  const [shape, setShape] = useState(null);
  const [estError, setEstError] = useState(null);
  useEffect(() => {
    get('/api/countries').then((c) => {
      setCountries(c);
      if (c.last_country) setCountry(c.last_country.code);
    }).catch(() => setCountries({ countries: [], pinned: [] }));
  }, []);
  const list = queries.split(/[\n,]/).map((q) => q.trim()).filter(Boolean);
  const request = { queries: list, zones, country, scrap_mode: mode };
  const key = JSON.stringify(request);
  // The estimate follows the form, a moment after the last change.
  useEffect(() => {
    if (!list.length || !zones.length) {
      setEstimate(null);
      setShape(null);
      return;
    }
    let live = true;
    const timer = setTimeout(async () => {
      try {
        const [est, m] = await Promise.all([post('/api/estimate', request), post('/api/estimate/map', request)]);
        if (!live) return;
        setEstimate(est);
        setShape(m);
        setEstError(null);
      } catch (e) {
        if (live) setEstError(e.message);
      }
    }, 350);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  const launch = useSubmit(async () => {
    const j = await post('/api/jobs', request);
    navigate(`/jobs/${encodeURIComponent(j.id)}`);
  });
  const pinned = countries ? countries.pinned || [] : [];
  return (
    <Page title={t('newJob')} wide>
      <div class="split">
        <form onSubmit={launch.submit} noValidate>
          <Notice kind="error">{launch.error}</Notice>
          <div class="field">
            <label for="queries">{t('queries')}</label>
            <textarea id="queries" name="queries" rows={3} value={queries} aria-describedby="queries-hint"
              onInput={(e) => setQueries(e.currentTarget.value)} />
            <p class="hint" id="queries-hint">{t('queriesHint')}</p>
          </div>
          <ZonePicker country={country} zones={zones} onChange={setZones} />
          <div class="field">
            <label for="country">{t('country')}</label>
            <select id="country" name="country" value={country} onChange={(e) => setCountry(e.currentTarget.value)}>
              {pinned.length > 0 && (
                <optgroup label={t('pinned')}>
                  {pinned.map((c) => <option key={'p' + c.code} value={c.code}>{c.name}</option>)}
                </optgroup>
              )}
              <optgroup label={t('allCountries')}>
                {(countries ? countries.countries : [{ code: 'FRA', name: 'France' }]).map((c) => (
                  <option key={c.code} value={c.code}>{c.name}</option>
                ))}
              </optgroup>
            </select>
          </div>
          <fieldset class="field">
            <legend>{t('mode')}</legend>
            {modes.map((m) => (
              <label key={m} class="radio">
                <input type="radio" name="scrap_mode" value={m} checked={mode === m} onChange={() => setMode(m)} /> {t('mode_' + m)}
              </label>
            ))}
          </fieldset>
          <Estimate estimate={estimate} error={estError} />
          <button type="submit" disabled={launch.busy || !estimate || !estimate.valid}>{t('launch')}</button>
        </form>
        <ZoneMap label={t('mapLabel')} zones={shape ? shape.zones : []} tiles={shape ? shape.tiles : []}
          summary={shape ? `${shape.tiles_total} ${t('tiles')}` : t('mapEmpty')} />
      </div>
    </Page>
  );
}

// Estimate says what the scrape would cost, or why it cannot run.
function Estimate({ estimate, error }) {
  if (error) return <Notice kind="error">{error}</Notice>;
  if (!estimate) return <p class="hint">{t('estimateEmpty')}</p>;
  return (
    <section aria-labelledby="est" aria-live="polite">
      <h2 id="est">{t('estimate')}</h2>
      <dl class="facts">
        <div><dt>{t('tiles')}</dt><dd data-fact="tiles">{estimate.grid_points}</dd></div>
        <div><dt>{t('requests')}</dt><dd>{estimate.total_requests}</dd></div>
        <div><dt>EF</dt><dd data-fact="ef">{estimate.ef_cost}</dd></div>
        <div><dt>{t('duration')}</dt><dd>{duration(estimate.estimated_duration_seconds)}</dd></div>
      </dl>
      {estimate.errors.length > 0 && (
        <ul class="errors" role="alert">
          {estimate.errors.map((e, i) => <li key={i}>{e.message}</li>)}
        </ul>
      )}
      {estimate.warnings.length > 0 && <ul>{estimate.warnings.map((w, i) => <li key={i}>{w}</li>)}</ul>}
    </section>
  );
}

function duration(s) {
  if (s < 90) return `${s} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 360) / 10} h`;
}

// ZonePicker is a combobox: the zones the resolver knows that start with
// what is typed, picked with the keyboard or the pointer, shown as a list
// that can be emptied again.
function ZonePicker({ country, zones, onChange }) {
  const [text, setText] = useState('');
  const [options, setOptions] = useState([]);
  const [active, setActive] = useState(-1);
  const seq = useRef(0);
  useEffect(() => {
    const q = text.trim();
    if (q.length < 2) {
      setOptions([]);
      return;
    }
    const n = ++seq.current;
    const timer = setTimeout(() => {
      get(`/api/zones/complete?country=${encodeURIComponent(country)}&q=${encodeURIComponent(q)}&limit=8`)
        .then((r) => {
          if (n === seq.current) {
            setOptions(r.completions);
            setActive(r.completions.length ? 0 : -1);
          }
        })
        .catch(() => setOptions([]));
    }, 150);
    return () => clearTimeout(timer);
  }, [text, country]);
  const add = (label) => {
    const l = label.trim();
    if (l && !zones.includes(l)) onChange([...zones, l]);
    setText('');
    setOptions([]);
  };
  const onKey = (e) => {
    if (e.key === 'ArrowDown' && options.length) {
      e.preventDefault();
      setActive((active + 1) % options.length);
    } else if (e.key === 'ArrowUp' && options.length) {
      e.preventDefault();
      setActive((active - 1 + options.length) % options.length);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      add(active >= 0 && options[active] ? options[active].label : text);
    } else if (e.key === 'Escape') {
      setOptions([]);
    }
  };
  const open = options.length > 0;
  return (
    <div class="field combo">
      <label for="zone-input">{t('zones')}</label>
      {zones.length > 0 && (
        <ul class="chips" aria-label={t('zonesChosen')}>
          {zones.map((z) => (
            <li key={z}>
              <span>{z}</span>
              <button type="button" class="link" aria-label={`${t('remove')} ${z}`} onClick={() => onChange(zones.filter((x) => x !== z))}>×</button>
            </li>
          ))}
        </ul>
      )}
      <input id="zone-input" name="zone" type="text" role="combobox" autocomplete="off" value={text}
        aria-autocomplete="list" aria-expanded={open ? 'true' : 'false'} aria-controls="zone-options"
        aria-activedescendant={open && active >= 0 ? `zone-opt-${active}` : undefined} aria-describedby="zone-hint"
        onInput={(e) => setText(e.currentTarget.value)} onKeyDown={onKey} />
      <p class="hint" id="zone-hint">{t('zonesHint')}</p>
      <ul id="zone-options" role="listbox" aria-label={t('zones')} class={open ? 'options' : 'options hidden'}>
        {options.map((o, i) => (
          <li key={o.label} id={`zone-opt-${i}`} role="option" aria-selected={i === active ? 'true' : 'false'}
            onMouseDown={(e) => { e.preventDefault(); add(o.label); }}>
            {o.label} <span class="hint">{t('kind_' + o.kind)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
