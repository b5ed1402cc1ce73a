// The one way the console talks to the service: same-origin fetches with
// the session cookie, in the console's language, answers read as JSON and
// failures turned into ApiError with the contract's {detail} (and per-field
// errors when the API names fields).

import { lang } from './i18n.js';

export class ApiError extends Error {
  constructor(status, detail, fields) {
    super(detail);
    this.status = status;
    this.fields = fields || {};
  }
}

// call sends one request. body is sent as JSON unless it is a FormData or
// a string; the answer is JSON, text, or null for 204.
export async function call(method, path, body) {
  const headers = { 'Accept-Language': lang() };
  const init = { method, headers, credentials: 'same-origin' };
  if (body !== undefined) {
    if (typeof body === 'string') {
      headers['Content-Type'] = 'text/plain; charset=utf-8';
      init.body = body;
    } else {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, lang() === 'en' ? 'The service cannot be reached.' : 'Le service est injoignable.');
  }
  if (res.status === 204) return null;
  const type = res.headers.get('Content-Type') || '';
  const data = type.includes('json') ? await res.json().catch(() => null) : await res.text();
  if (!res.ok) {
    const fields = {};
    for (const e of (data && data.errors) || []) fields[e.field] = e.message;
    const detail = (data && data.detail) || `HTTP ${res.status}`;
    throw new ApiError(res.status, detail, fields);
  }
  return data;
}

export const get = (path) => call('GET', path);
export const post = (path, body) => call('POST', path, body === undefined ? {} : body);
export const del = (path, body) => call('DELETE', path, body);

// stream reads a Server-Sent Events route with fetch (so that it carries
// the console's language), calling on(event, data) for each event, and
// reconnects after the last event id when the server ends the stream (on
// AWS a stream lasts a few seconds). It stops when stop() is called or
// when on returns false.
export function stream(path, on) {
  let stopped = false;
  let last = '';
  const ctrl = new AbortController();
  const run = async () => {
    while (!stopped) {
      try {
        const headers = { 'Accept-Language': lang(), Accept: 'text/event-stream' };
        if (last) headers['Last-Event-ID'] = last;
        const res = await fetch(path, { headers, credentials: 'same-origin', signal: ctrl.signal });
        if (res.status >= 400 && res.status < 500 && res.status !== 429) {
          // Gone, not allowed or malformed: asking again will not mend it.
          stopped = true;
          return;
        }
        if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let event = 'message';
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('event: ')) event = line.slice(7);
              else if (line.startsWith('data: ')) data += line.slice(6);
              else if (line.startsWith('id: ')) last = line.slice(4);
            }
            if (!data) continue;
            if (on(event, JSON.parse(data)) === false) {
              stopped = true;
              ctrl.abort();
              return;
            }
          }
        }
      } catch (e) {
        if (stopped) return;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
  run();
  return () => {
    stopped = true;
    ctrl.abort();
  };
}
