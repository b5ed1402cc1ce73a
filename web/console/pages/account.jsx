// The account page: the address and its verification, the password, the
// export of every record, the deletion of the account.

import { useState } from 'preact/hooks';
import { call, post } from '../api.js';
import { t } from '../i18n.js';
import { navigate } from '../router.jsx';
import { Field, Notice, Page, useSubmit } from '../ui.jsx';

export function Account({ user, onSession }) {
  const [sent, setSent] = useState('');
  const resend = useSubmit(async () => {
    const r = await post('/api/auth/email/resend-verify');
    setSent(r.already_verified ? t('alreadyVerified') : t('resent'));
  });
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [changed, setChanged] = useState(false);
  const change = useSubmit(async () => {
    await post('/api/auth/password/change', { current_password: current, new_password: next });
    setCurrent('');
    setNext('');
    setChanged(true);
  });
  const [confirm, setConfirm] = useState('');
  const remove = useSubmit(async () => {
    await call('DELETE', '/api/auth/me', { confirm_email: confirm });
    onSession(null);
    navigate('/signup', true);
  });
  return (
    <Page title={t('account')}>
      <section aria-labelledby="who">
        <h2 id="who">{user.email}</h2>
        {user.email_verified ? <p>{t('verified')}</p> : (
          <div>
            <p>{t('notVerified')}</p>
            <Notice kind="error">{resend.error}</Notice>
            <Notice>{sent}</Notice>
            <button type="button" class="secondary" onClick={resend.submit} disabled={resend.busy}>{t('resend')}</button>
          </div>
        )}
      </section>
      <section aria-labelledby="pw">
        <h2 id="pw">{t('changePassword')}</h2>
        <form onSubmit={change.submit} noValidate>
          <Notice kind="error">{change.error}</Notice>
          <Notice kind="success">{changed && t('passwordChanged')}</Notice>
          <Field label={t('currentPassword')} name="current_password" type="password" autocomplete="current-password"
            value={current} onInput={setCurrent} error={change.fields.current_password} required />
          <Field label={t('newPassword')} name="new_password" type="password" autocomplete="new-password"
            value={next} onInput={setNext} error={change.fields.new_password} hint={t('passwordHint')} required />
          <button type="submit" disabled={change.busy}>{t('save')}</button>
        </form>
      </section>
      <section aria-labelledby="export">
        <h2 id="export">{t('exportTitle')}</h2>
        <p>{t('exportText')}</p>
        <p><a class="button secondary" href="/api/auth/me/export" download>{t('exportLink')}</a></p>
      </section>
      <section aria-labelledby="delete" class="danger">
        <h2 id="delete">{t('deleteTitle')}</h2>
        <form onSubmit={remove.submit} noValidate>
          <p>{t('deleteText')}</p>
          <Notice kind="error">{remove.error}</Notice>
          <Field label={t('email')} name="confirm_email" type="email" autocomplete="off" value={confirm}
            onInput={setConfirm} error={remove.fields.confirm_email} required />
          <button type="submit" class="danger" disabled={remove.busy || !confirm}>{t('deleteButton')}</button>
        </form>
      </section>
    </Page>
  );
}
