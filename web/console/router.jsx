// A small router over the address bar: pages are paths, links are plain
// anchors that navigate without reloading, and the back button works.

import { useEffect, useState } from 'preact/hooks';

const listeners = new Set();

export function navigate(to, replace) {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  listeners.forEach((f) => f());
  window.scrollTo(0, 0);
}

export function useLocation() {
  const [, set] = useState(0);
  useEffect(() => {
    const f = () => set((n) => n + 1);
    listeners.add(f);
    window.addEventListener('popstate', f);
    return () => {
      listeners.delete(f);
      window.removeEventListener('popstate', f);
    };
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

// match reads a pattern such as /jobs/:id against a path.
export function match(pattern, path) {
  const p = pattern.split('/');
  const s = path.replace(/\/+$/, '').split('/');
  if (p.length !== s.length) return null;
  const out = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i].startsWith(':')) out[p[i].slice(1)] = decodeURIComponent(s[i]);
    else if (p[i] !== s[i]) return null;
  }
  return out;
}

// Link is an anchor that navigates within the console.
export function Link(props) {
  const onClick = (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(props.href);
  };
  return <a {...props} onClick={onClick} />;
}
