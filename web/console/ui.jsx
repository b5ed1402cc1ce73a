// Building blocks shared by the pages: labelled fields, forms that show
// the API's messages where they apply, notices read out by screen readers.

import { useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { t } from './i18n.js';

let ids = 0;
const nextID = (p) => `${p}-${++ids}`;

// Field is a labelled input; its error (from the API's field errors) is
// tied to it with aria-describedby.
export function Field({ label, name, type = 'text', value, onInput, error, hint, autocomplete, required, ...rest }) {
  const [id] = useState(() => nextID(name));
  const described = [error && `${id}-err`, hint && `${id}-hint`].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} name={name} type={type} value={value} required={required}
        autocomplete={autocomplete} aria-invalid={error ? 'true' : undefined} aria-describedby={described}
        onInput={(e) => onInput(e.currentTarget.value)} {...rest} />
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
      {error && <p class="error" id={`${id}-err`}>{error}</p>}
    </div>
  );
}

// Check is a labelled checkbox.
export function Check({ label, name, checked, onChange, error }) {
  const [id] = useState(() => nextID(name));
  return (
    <div class="field check">
      <input id={id} name={name} type="checkbox" checked={checked} aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-err` : undefined} onChange={(e) => onChange(e.currentTarget.checked)} />
      <label for={id}>{label}</label>
      {error && <p class="error" id={`${id}-err`}>{error}</p>}
    </div>
  );
}

// Notice is a message announced to screen readers: role status for news,
// alert for failures.
export function Notice({ kind = 'info', children }) {
  if (!children) return null;
  return <div class={`notice ${kind}`} role={kind === 'error' ? 'alert' : 'status'}>{children}</div>;
}

// useSubmit runs an action for a form: busy while it runs, its failure
// kept as the form's message and per-field errors.
export function useSubmit(action) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [fields, setFields] = useState({});
  const submit = async (e) => {
    if (e) e.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    setFields({});
    try {
      await action();
    } catch (err) {
      if (err instanceof ApiError) {
        setFields(err.fields);
        setError(err.message);
      } else {
        setError(String(err));
      }
    } finally {
      setBusy(false);
    }
  };
  return { submit, busy, error, fields };
}

// Copy is a button that copies text, saying so once done.
export function Copy({ text }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setDone(true);
    } catch {
      setDone(false);
    }
  };
  return (
    <button type="button" class="secondary" onClick={copy} aria-live="polite">
      {done ? t('copied') : t('copy')}
    </button>
  );
}

// Page is a page's main region with its title.
export function Page({ title, children, wide }) {
  return (
    <main id="main" tabIndex={-1} class={wide ? 'wide' : ''}>
      <h1>{title}</h1>
      {children}
    </main>
  );
}
