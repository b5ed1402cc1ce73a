// The console: reads the session, then draws the page of the address.

import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get } from './api.js';
import { lang, t } from './i18n.js';
import { Layout } from './layout.jsx';
import { Account } from './pages/account.jsx';
import { Login, ResetPassword, Signup, VerifyEmail } from './pages/auth.jsx';
import { Job } from './pages/job.jsx';
import { Jobs } from './pages/jobs.jsx';
import { Keys } from './pages/keys.jsx';
import { NewJob } from './pages/newjob.jsx';
import { Pipeline, Pipelines } from './pages/pipelines.jsx';
import { Veille, VeilleList } from './pages/veille.jsx';
import { Webhooks } from './pages/webhooks.jsx';
import { match, navigate, useLocation } from './router.jsx';
import { Page } from './ui.jsx';
import 'leaflet/dist/leaflet.css';
import './style.css';

// Pages anyone may open; the others need a session.
const open = ['/login', '/signup', '/verify-email', '/reset-password'];

function App() {
  const { path, query } = useLocation();
  const [user, setUser] = useState(undefined); // undefined: not read yet
  const [, setTick] = useState(0);
  const refresh = () =>
    get('/api/auth/me')
      .then((u) => setUser(u && u.id ? u : null))
      .catch((e) => {
        if (e instanceof ApiError && e.status === 401) setUser(null);
        else setUser(null);
      });
  useEffect(() => {
    refresh();
  }, []);
  useEffect(() => {
    document.documentElement.lang = lang();
  });
  const isOpen = open.some((p) => path === p);
  useEffect(() => {
    if (user === null && !isOpen) navigate('/login', true);
    if (user && (path === '/' || path === '/login' || path === '/signup')) navigate('/jobs', true);
  }, [user, path]);
  useEffect(() => {
    const title = document.querySelector('main h1');
    document.title = `${title ? title.textContent + ' · ' : ''}${t('appName')}`;
    const main = document.getElementById('main');
    if (main && document.activeElement === document.body) main.focus({ preventScroll: true });
  });
  if (user === undefined) return <p role="status">{t('loading')}</p>;
  let page;
  switch (true) {
    case path === '/login': page = <Login onSession={setUser} />; break;
    case path === '/signup': page = <Signup onSession={setUser} />; break;
    case path === '/verify-email': page = <VerifyEmail query={query} onVerified={refresh} />; break;
    case path === '/reset-password': page = <ResetPassword query={query} />; break;
    case !user: page = null; break;
    case path === '/jobs': page = <Jobs />; break;
    case path === '/new': page = <NewJob />; break;
    case !!match('/jobs/:id', path): page = <Job id={match('/jobs/:id', path).id} />; break;
    case path === '/keys': page = <Keys />; break;
    case path === '/webhooks': page = <Webhooks />; break;
    case path === '/pipelines': page = <Pipelines />; break;
    case path === '/veille': page = <VeilleList />; break;
    case !!match('/veille/:id', path): page = <Veille id={match('/veille/:id', path).id} />; break;
    case !!match('/veille/:id/runs/:run', path): {
      const m = match('/veille/:id/runs/:run', path);
      page = <Veille id={m.id} runID={m.run} />;
      break;
    }
    case !!match('/pipelines/:id', path): page = <Pipeline id={match('/pipelines/:id', path).id} />; break;
    case path === '/account': page = <Account user={user} onSession={setUser} />; break;
    default: page = <Page title={t('notFound')}><p>{path}</p></Page>;
  }
  return (
    <Layout user={user} path={path} onSession={setUser} onLang={() => setTick((n) => n + 1)}>
      {page}
    </Layout>
  );
}

render(<App />, document.getElementById('app'));
