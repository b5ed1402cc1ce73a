// The console's words in French (the default, as the contract's messages
// for the web app) and English. The choice is kept in the browser's local
// storage: a preference, never a secret.

const KEY = 'svc-lang';

export function lang() {
  try {
    return localStorage.getItem(KEY) === 'en' ? 'en' : 'fr';
  } catch {
    return 'fr';
  }
}

export function setLang(l) {
  try {
    localStorage.setItem(KEY, l === 'en' ? 'en' : 'fr');
  } catch {
    // Storage refused (a private window): the choice lasts the page.
  }
  document.documentElement.lang = lang();
}

const words = {
  fr: {
    appName: 'Console de prospection',
    skip: 'Aller au contenu',
    jobs: 'Jobs',
    pipelines: 'Pipelines',
    veille: 'Veille',
    keys: "Clés d'API",
    webhooks: 'Webhooks',
    account: 'Compte',
    logout: 'Se déconnecter',
    login: 'Se connecter',
    signup: 'Créer un compte',
    email: 'E-mail',
    password: 'Mot de passe',
    passwordHint: '8 caractères au moins, dont une lettre et un chiffre ou un symbole.',
    invitation: "Code d'invitation",
    accept: "J'accepte d'être responsable de l'usage que je fais des données collectées.",
    noAccount: 'Pas encore de compte ?',
    haveAccount: 'Déjà un compte ?',
    forgot: 'Mot de passe oublié ?',
    resetTitle: 'Réinitialiser le mot de passe',
    resetSend: 'Envoyer le lien',
    resetSent: "Si un compte correspond à cette adresse, un lien vient d'y être envoyé.",
    newPassword: 'Nouveau mot de passe',
    currentPassword: 'Mot de passe actuel',
    resetDone: 'Mot de passe changé. Connecte-toi avec le nouveau.',
    save: 'Enregistrer',
    verifyTitle: "Vérification de l'e-mail",
    verifying: 'Vérification…',
    verified: 'Adresse vérifiée. Tu peux lancer des jobs.',
    notVerified: "Ton adresse n'est pas encore vérifiée : les jobs attendront le lien reçu par e-mail.",
    resend: 'Renvoyer le lien',
    resent: 'Lien renvoyé.',
    alreadyVerified: 'Adresse déjà vérifiée.',
    changePassword: 'Changer le mot de passe',
    passwordChanged: 'Mot de passe changé. Tes autres sessions sont fermées.',
    exportTitle: 'Exporter mes données',
    exportText: 'Une archive ZIP de ton compte, de tes jobs et de leurs fichiers, pipelines et veilles.',
    exportLink: "Télécharger l'archive",
    deleteTitle: 'Supprimer le compte',
    deleteText: 'Tout est supprimé : jobs, fichiers, pipelines, veilles, clés. Tape ton e-mail pour confirmer.',
    deleteButton: 'Supprimer définitivement',
    efUsage: 'EF ce mois',
    keyName: 'Nom de la clé',
    createKey: 'Créer une clé',
    keyShown: "Voici la clé. Elle ne sera plus jamais affichée : copie-la maintenant.",
    copy: 'Copier',
    copied: 'Copié',
    revoke: 'Révoquer',
    revoked: 'Révoquée',
    lastUsed: 'Dernier usage',
    created: 'Créée',
    never: 'jamais',
    name: 'Nom',
    prefix: 'Préfixe',
    status: 'État',
    active: 'Active',
    noKeys: 'Aucune clé pour le moment.',
    close: 'Fermer',
    loading: 'Chargement…',
    language: 'Language: English',
    notFound: 'Cette page n’existe pas.',
    noJobs: 'Aucun job pour le moment.',
    created_at: 'Créé',
    results: 'Résultats',
    zones: 'Zones',
    queries: 'Requêtes',
  },
  en: {
    appName: 'Prospecting console',
    skip: 'Skip to content',
    jobs: 'Jobs',
    pipelines: 'Pipelines',
    veille: 'Watch',
    keys: 'API keys',
    webhooks: 'Webhooks',
    account: 'Account',
    logout: 'Log out',
    login: 'Log in',
    signup: 'Sign up',
    email: 'Email',
    password: 'Password',
    passwordHint: 'At least 8 characters, with a letter and a digit or symbol.',
    invitation: 'Invitation code',
    accept: 'I accept responsibility for how I use the data collected.',
    noAccount: 'No account yet?',
    haveAccount: 'Already have an account?',
    forgot: 'Forgot your password?',
    resetTitle: 'Reset the password',
    resetSend: 'Send the link',
    resetSent: 'If an account matches this address, a link was just sent to it.',
    newPassword: 'New password',
    currentPassword: 'Current password',
    resetDone: 'Password changed. Log in with the new one.',
    save: 'Save',
    verifyTitle: 'Email verification',
    verifying: 'Verifying…',
    verified: 'Address verified. You can run jobs.',
    notVerified: 'Your address is not verified yet: jobs wait for the link sent by email.',
    resend: 'Send the link again',
    resent: 'Link sent again.',
    alreadyVerified: 'Address already verified.',
    changePassword: 'Change the password',
    passwordChanged: 'Password changed. Your other sessions are closed.',
    exportTitle: 'Export my data',
    exportText: 'A ZIP archive of your account, your jobs and their files, pipelines and watches.',
    exportLink: 'Download the archive',
    deleteTitle: 'Delete the account',
    deleteText: 'Everything is deleted: jobs, files, pipelines, watches, keys. Type your email to confirm.',
    deleteButton: 'Delete for good',
    efUsage: 'EF this month',
    keyName: 'Key name',
    createKey: 'Create a key',
    keyShown: 'Here is the key. It will never be shown again: copy it now.',
    copy: 'Copy',
    copied: 'Copied',
    revoke: 'Revoke',
    revoked: 'Revoked',
    lastUsed: 'Last used',
    created: 'Created',
    never: 'never',
    name: 'Name',
    prefix: 'Prefix',
    status: 'Status',
    active: 'Active',
    noKeys: 'No key yet.',
    close: 'Close',
    loading: 'Loading…',
    language: 'Langue : français',
    notFound: 'This page does not exist.',
    noJobs: 'No job yet.',
    created_at: 'Created',
    results: 'Results',
    zones: 'Zones',
    queries: 'Queries',
  },
};

// t is the word for key in the console's language.
export function t(key) {
  return words[lang()][key] ?? key;
}

// when formats a timestamp in the console's language, or the word for never.
export function when(ts) {
  if (!ts) return t('never');
  const d = new Date(ts);
  return isNaN(d) ? String(ts) : d.toLocaleString(lang() === 'en' ? 'en-GB' : 'fr-FR');
}
