/**
 * The mail behind the documentation's screenshots (`npm run screenshots`, scripts/screenshots.ts):
 * two sub-accounts with verified sandbox domains and a mix of sends over the sandbox's special
 * recipients (docs/sandbox.md), opened and clicked through the links of the captured mail
 * (docs/links.md), all through the HTTP API of a running example server, as a user would.
 */
import { simpleParser } from 'mailparser';

/** Whose key a call carries. */
type Caller = { account: string } | { sub: string };

/** What {@link seedSandbox} made, for the screenshots to show. */
export interface SeededSandbox {
  /** The sub-accounts by name, each with its id and key. */
  subaccounts: Record<string, { id: number; apiKey: string }>;
  /** The id of a message that was delivered, opened and clicked: its page has the whole timeline. */
  engagedMessageId: string;
}

/** A sub-account's sends: its domain, and each recipient with the status its message ends in. */
interface SubaccountPlan {
  name: string;
  domain: string;
  suppressed: string[];
  recipients: Record<string, string>;
}

// Every outcome of the sandbox's table, spread over two sub-accounts so the comparison table has two
// rows; `defer@` stays in retry (the example's first retry is 10 minutes away), so In flight is seen.
const PLANS: SubaccountPlan[] = [
  {
    name: 'Acme',
    domain: 'acme.test',
    suppressed: ['gone@example.com'],
    recipients: {
      'ada@example.com': 'delivered',
      'bob@example.com': 'delivered',
      'cy@example.com': 'delivered',
      'complaint@example.com': 'delivered',
      'bounce@example.com': 'hard_bounced',
      'defer@example.com': 'deferred',
      'gone@example.com': 'dropped',
    },
  },
  {
    name: 'Hooli',
    domain: 'hooli.test',
    suppressed: [],
    recipients: {
      'dana@example.com': 'delivered',
      'eve@example.com': 'delivered',
      'bounce@example.com': 'hard_bounced',
    },
  },
];

/** Who opens (and who also clicks) the mail: through the pixel and link of the message they got. */
const ENGAGEMENT: { subaccount: string; to: string; click: boolean }[] = [
  { subaccount: 'Acme', to: 'ada@example.com', click: true },
  { subaccount: 'Acme', to: 'bob@example.com', click: false },
  { subaccount: 'Hooli', to: 'dana@example.com', click: true },
];

// A mail client's user agent: the open and the click are recorded as a person's (src/tracking/user-agent.ts).
const BROWSER_USER_AGENT =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';

/** Calls the API at `apiUrl` (`…/api/v1`) and returns the JSON answer, failing on any error answer. */
async function call(apiUrl: string, caller: Caller, method: string, path: string, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> =
    'account' in caller ? { 'X-Account-ApiKey': caller.account } : { 'X-SubAccount-ApiKey': caller.sub };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${apiUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === '' ? null : JSON.parse(text);
}

/** Polls `check` every 250 ms until it returns true; fails with `what` after `timeoutMs`. */
async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Creates the sub-account of `plan`, verifies its domain and adds its suppressions. */
async function createSubaccount(apiUrl: string, accountKey: string, plan: SubaccountPlan) {
  const created = (await call(apiUrl, { account: accountKey }, 'POST', '/account/subaccount', { name: plan.name })) as {
    id: number;
    apiKey: string;
  };
  const sub = { sub: created.apiKey };
  const domain = (await call(apiUrl, sub, 'POST', '/subaccount/domain', { name: plan.domain })) as { id: number };
  const verified = (await call(apiUrl, sub, 'POST', `/subaccount/domain/${domain.id}/verify`)) as { verified: boolean };
  if (!verified.verified) throw new Error(`${plan.domain} did not verify in the sandbox`);
  if (plan.suppressed.length > 0)
    await call(apiUrl, sub, 'POST', '/subaccount/suppression', { manual: plan.suppressed.map((email) => ({ email })) });
  return { id: created.id, apiKey: created.apiKey };
}

/** Sends `plan`'s newsletter to each of its recipients; answers each recipient's message id. */
async function sendNewsletter(apiUrl: string, apiKey: string, plan: SubaccountPlan): Promise<Map<string, string>> {
  const sent = (await call(apiUrl, { sub: apiKey }, 'POST', '/subaccount/email', {
    from: { email: `news@${plan.domain}`, name: plan.name },
    to: Object.keys(plan.recipients).map((email) => ({
      email,
      customFields: { firstName: email.split('@')[0]!.replace(/^./, (c) => c.toUpperCase()) },
    })),
    subject: `${plan.name} autumn news for {{firstName}}`,
    htmlBody: `<p>Hello {{firstName}}, see <a href="https://shop.example/${plan.domain}">the autumn shop</a>.</p>`,
    groups: ['autumn-news'],
    trackOpens: true,
    trackClicks: true,
  })) as { to: string; messageId: string }[];
  return new Map(sent.map((entry) => [entry.to, entry.messageId]));
}

/** Waits until every message of `plan` has the status it is expected to end in. */
async function awaitOutcomes(apiUrl: string, accountKey: string, plan: SubaccountPlan, ids: Map<string, string>) {
  await waitUntil(`the outcomes of ${plan.name}'s mail`, async () => {
    for (const [to, status] of Object.entries(plan.recipients)) {
      const message = (await call(apiUrl, { account: accountKey }, 'GET', `/account/message/${ids.get(to)}`)) as {
        status: string;
      };
      if (message.status !== status) return false;
    }
    return true;
  });
}

/** Fetches the open pixel (and, with `click`, the first link) of the captured message `messageId`. */
async function engage(apiUrl: string, accountKey: string, messageId: string, click: boolean): Promise<void> {
  const captured = (await call(apiUrl, { account: accountKey }, 'GET', '/account/sandbox/message?limit=100')) as {
    id: number;
    messageId: string;
  }[];
  const item = captured.find((m) => m.messageId === messageId);
  if (!item) throw new Error(`message ${messageId} was not captured by the sandbox`);
  const { raw } = (await call(apiUrl, { account: accountKey }, 'GET', `/account/sandbox/message/${item.id}`)) as {
    raw: string;
  };
  const html = String((await simpleParser(raw)).html);
  const urls = [/<img src="([^"]+)"/.exec(html)?.[1], click ? /<a href="([^"]+)"/.exec(html)?.[1] : undefined];
  for (const url of urls.filter((u): u is string => u !== undefined)) {
    const response = await fetch(url, { headers: { 'User-Agent': BROWSER_USER_AGENT }, redirect: 'manual' });
    if (response.status >= 400) throw new Error(`GET ${url}: ${response.status}`);
  }
}

/** Today's account-wide daily record. */
async function todaysStat(apiUrl: string, accountKey: string): Promise<Record<string, number>> {
  const today = new Date().toISOString().slice(0, 10);
  const days = (await call(apiUrl, { account: accountKey }, 'GET', `/account/stat?from=${today}&to=${today}`)) as {
    stat: Record<string, number>;
  }[];
  return days.at(-1)?.stat ?? {};
}

/**
 * Fills the sandbox of the example server at `apiUrl` and waits until every outcome, open, click
 * and the complaint is counted, so a screenshot taken next shows them all.
 */
export async function seedSandbox(apiUrl: string, accountKey: string): Promise<SeededSandbox> {
  const subaccounts: SeededSandbox['subaccounts'] = {};
  const messageIds = new Map<string, Map<string, string>>();
  for (const plan of PLANS) {
    const created = await createSubaccount(apiUrl, accountKey, plan);
    subaccounts[plan.name] = created;
    messageIds.set(plan.name, await sendNewsletter(apiUrl, created.apiKey, plan));
  }
  for (const plan of PLANS) await awaitOutcomes(apiUrl, accountKey, plan, messageIds.get(plan.name)!);
  for (const { subaccount, to, click } of ENGAGEMENT)
    await engage(apiUrl, accountKey, messageIds.get(subaccount)!.get(to)!, click);
  const clicks = ENGAGEMENT.filter((e) => e.click).length;
  await waitUntil('the opens, clicks and the complaint in the statistics', async () => {
    const stat = await todaysStat(apiUrl, accountKey);
    return stat.opened === ENGAGEMENT.length && stat.clicked === clicks && stat.spam === 1;
  });
  const engaged = ENGAGEMENT[0]!;
  return { subaccounts, engagedMessageId: messageIds.get(engaged.subaccount)!.get(engaged.to)! };
}
