// A small local OpenID provider built on panva's certified `oidc-provider`: what Tankodrom's sign-on tests (and a
// developer trying OIDC by hand) log in through. Its own login and consent pages, password-checked accounts read
// from a JSON file on every use (so a test can disable a user or change their groups while it runs), PKCE required.
//
//   OIDC_DEV_PORT=9400 OIDC_DEV_ACCOUNTS=accounts.json OIDC_DEV_CLIENTS=clients.json node deploy/oidc-dev/server.mjs
//
// accounts.json: {"<login>": {"sub": "...", "password": "...", "email": "...", "name": "...", "groups": ["..."],
//                             "disabled": false}}
// clients.json:  [{"client_id": "...", "client_secret": "...", "redirect_uris": ["..."],
//                  "post_logout_redirect_uris": ["..."]}]
// It prints "oidc-dev listening on <issuer>" once it answers.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_DEV_PORT || 9400);
const host = process.env.OIDC_DEV_HOST || '127.0.0.1';
const issuer = process.env.OIDC_DEV_ISSUER || `http://${host}:${port}`;
const accountsFile = process.env.OIDC_DEV_ACCOUNTS;
const clientsFile = process.env.OIDC_DEV_CLIENTS;
if (!accountsFile || !clientsFile) {
  console.error('OIDC_DEV_ACCOUNTS and OIDC_DEV_CLIENTS must name JSON files');
  process.exit(2);
}

function accounts() {
  return JSON.parse(readFileSync(accountsFile, 'utf8'));
}

function accountBySub(sub) {
  for (const [login, account] of Object.entries(accounts())) {
    if (account.sub === sub && !account.disabled) return { login, ...account };
  }
  return undefined;
}

const clients = JSON.parse(readFileSync(clientsFile, 'utf8')).map((c) => ({
  grant_types: ['authorization_code'],
  response_types: ['code'],
  token_endpoint_auth_method: 'client_secret_basic',
  ...c,
}));

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function html(title, body) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"></head>
<body style="font-family: sans-serif; max-width: 26rem; margin: 3rem auto"><h1>${escape(title)}</h1>${body}</body></html>`;
}

function page(res, status, title, body) {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(html(title, body));
}

const provider = new Provider(issuer, {
  clients,
  // A disabled or deleted account is not found: its sessions at the provider end and it cannot sign in again.
  async findAccount(_ctx, sub) {
    const account = accountBySub(sub);
    if (!account) return undefined;
    return {
      accountId: sub,
      async claims() {
        return {
          sub,
          preferred_username: account.login,
          name: account.name,
          email: account.email,
          email_verified: true,
          groups: account.groups || [],
        };
      },
    };
  },
  claims: {
    openid: ['sub'],
    profile: ['name', 'preferred_username'],
    email: ['email', 'email_verified'],
    groups: ['groups'],
  },
  scopes: ['openid', 'profile', 'email', 'groups'],
  pkce: { required: () => true },
  features: {
    devInteractions: { enabled: false },
    // Plain pages of its own: the library's defaults load a web font from the internet, which is closed here.
    rpInitiatedLogout: {
      enabled: true,
      async logoutSource(ctx, form) {
        ctx.body = html('Sign out of the dev provider?', `${form}
<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button>`);
      },
      async postLogoutSuccessSource(ctx) {
        ctx.body = html('Signed out', '<p>You are signed out of the dev provider.</p>');
      },
    },
  },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
});
provider.proxy = false;

function loginForm(res, uid, clientId, error) {
  page(res, error ? 401 : 200, 'Sign in to the dev provider', `
${error ? `<p role="alert" style="color: #b00">${escape(error)}</p>` : ''}
<p>Client: <code>${escape(clientId)}</code></p>
<form method="post" action="/interaction/${escape(uid)}/login">
  <label>Login <input name="login" id="login" autocomplete="username" autofocus required></label><br>
  <label>Password <input name="password" id="password" type="password" autocomplete="current-password" required></label><br>
  <button type="submit">Sign in</button>
</form>`);
}

async function readForm(req) {
  let body = '';
  for await (const chunk of req) {
    body += chunk;
    if (body.length > 64 * 1024) throw new Error('form too large');
  }
  return new URLSearchParams(body);
}

async function interaction(req, res, uid, action) {
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) throw new Error('interaction mismatch');
  const { prompt, params, session } = details;
  if (req.method === 'GET' && !action) {
    if (prompt.name === 'login') return loginForm(res, uid, params.client_id);
    return page(res, 200, 'Allow access?', `
<p><code>${escape(params.client_id)}</code> asks for: <code>${escape(params.scope)}</code></p>
<form method="post" action="/interaction/${escape(uid)}/consent"><button type="submit">Allow</button></form>`);
  }
  if (req.method === 'POST' && action === 'login') {
    const form = await readForm(req);
    const account = accounts()[form.get('login') || ''];
    if (!account || account.disabled || account.password !== form.get('password')) {
      return loginForm(res, uid, params.client_id, 'Wrong login or password, or the account is disabled.');
    }
    return provider.interactionFinished(req, res, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
  }
  if (req.method === 'POST' && action === 'consent') {
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: session.accountId, clientId: params.client_id });
    const missing = prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    const grantId = await grant.save();
    return provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }
  return page(res, 405, 'Not allowed', '');
}

const handle = provider.callback();
const server = createServer(async (req, res) => {
  const match = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|consent))?$/.exec(req.url.split('?')[0]);
  if (!match) return handle(req, res);
  try {
    await interaction(req, res, match[1], match[2]);
  } catch (err) {
    page(res, 400, 'Sign-in failed', `<p>${escape(err.message)}</p>`);
  }
});
server.listen(port, host, () => console.log(`oidc-dev listening on ${issuer}`));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
