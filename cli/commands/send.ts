/**
 * `mailplane send`: sends a test email through the running server (`POST /subaccount/email`) as the
 * sub-account that owns the sender's domain, and with `--wait` follows the message until it is
 * delivered or fails. In sandbox mode it arrives in the mail catcher (docs/sandbox.md).
 */
import { Api, normalDomainName } from '../api.js';
import { CommandFailure, EXIT, integerFlag, stringFlag, UsageError, type CliCommand } from '../command.js';
import { SERVER_FLAGS, SERVER_FLAGS_HELP, serverAccess } from '../environment.js';
import { stringifyExact } from '../exact-json.js';
import { candidateSubAccounts, locateDomain, SUB_ACCOUNT_FLAGS, SUB_ACCOUNT_FLAGS_HELP } from '../sub-accounts.js';

/** One entry of the send's answer (docs/sending.md). */
interface SendEntry {
  to: string;
  messageId: string;
  errorCode?: number;
  message?: string;
}

/** The statuses a message does not leave on its own (docs/activity.md). */
const FINAL_STATUSES = new Set(['delivered', 'dropped', 'smtp_dropped', 'hard_bounced', 'cancelled']);

/** How often `--wait` asks for the message's status. */
const WAIT_POLL_MS = 250;

/** The domain of an email address, or a usage error. */
function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1)
    throw new UsageError(`send: --from ${JSON.stringify(address)} is not an email address`);
  return normalDomainName(address.slice(at + 1));
}

/** Asks for the message's status until it is final or `timeoutMs` passed; resolves with the last status. */
async function waitForOutcome(api: Api, subAccountKey: string, messageId: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status } = await api.call<{ status: string }>({
      path: `/subaccount/message/${messageId}`,
      key: { subAccount: subAccountKey },
    });
    if (FINAL_STATUSES.has(status) || Date.now() >= deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
  }
}

/** `mailplane send`. */
export const command: CliCommand = {
  name: 'send',
  summary: 'send a test email through the running server',
  positionals: { min: 0, max: 0, names: '' },
  options: {
    ...SERVER_FLAGS,
    ...SUB_ACCOUNT_FLAGS,
    from: { type: 'string' },
    to: { type: 'string', multiple: true },
    subject: { type: 'string' },
    text: { type: 'string' },
    html: { type: 'string' },
    wait: { type: 'boolean' },
    timeout: { type: 'string' },
    json: { type: 'boolean' },
  },
  help: `Usage: mailplane send --from ADDRESS --to ADDRESS [flags]

Sends a test email (POST /api/v1/subaccount/email) as the sub-account that owns the domain of
--from, which must be verified (mailplane domain check). Prints one line per recipient with its
message id. In sandbox mode the email arrives in the mail catcher (GET /api/v1/account/sandbox/message).

Flags:
  --from ADDRESS        the sender, on a verified domain (required)
  --to ADDRESS          a recipient (required; repeat for several)
  --subject TEXT        default "mailplane test email"
  --text TEXT           the text body (default: a line saying it is a test)
  --html HTML           an HTML body as well
  --wait                wait until each message is delivered or fails; exit 1 unless all are delivered
  --timeout SECONDS     how long --wait waits (default 60)
  --json                print the API's answer as it is, on one line
${SERVER_FLAGS_HELP}
${SUB_ACCOUNT_FLAGS_HELP}
  -h, --help            this help

Exit status: 0 accepted (with --wait: delivered); 1 refused, not delivered, or the server answered an
error; 2 a usage error.

Example:
  mailplane send --from hello@acme.test --to ada@example.com --wait`,
  run: async ({ values, env }) => {
    const from = stringFlag(values, 'from');
    const to = (values.to as string[] | undefined) ?? [];
    if (from === undefined || to.length === 0) throw new UsageError('send: --from and --to are required');
    const timeoutMs = integerFlag(values, 'timeout', { min: 1, max: 3600, fallback: 60 }) * 1000;
    const access = serverAccess(values, env);
    const api = new Api(access.baseUrl);
    const domainName = domainOf(from);
    const candidates = await candidateSubAccounts(api, values, access);
    const owned = await locateDomain(api, candidates, domainName);
    if (!owned)
      throw new CommandFailure(
        `${domainName}: no sub-account has this domain (mailplane domain check ${domainName} --add)`,
      );
    const html = stringFlag(values, 'html');
    const entries = await api.call<SendEntry[]>({
      method: 'POST',
      path: '/subaccount/email',
      key: { subAccount: owned.owner.key },
      body: {
        from: { email: from },
        to: to.map((email) => ({ email })),
        subject: stringFlag(values, 'subject') ?? 'mailplane test email',
        textBody: stringFlag(values, 'text') ?? 'A test email sent with `mailplane send`.',
        ...(html !== undefined && { htmlBody: html }),
      },
    });
    if (values.json === true) console.log(stringifyExact(entries));
    let failed = false;
    for (const entry of entries) {
      if (entry.errorCode !== undefined) {
        failed = true;
        console.error(`mailplane: ${entry.to}: refused (${entry.errorCode}): ${entry.message ?? ''}`);
        continue;
      }
      if (values.json !== true) console.log(`${entry.to}: accepted, message ${entry.messageId}`);
      if (values.wait === true) {
        const status = await waitForOutcome(api, owned.owner.key, entry.messageId, timeoutMs);
        if (status !== 'delivered') failed = true;
        // With --json, stdout holds the answer alone: the outcome goes to stderr.
        (status === 'delivered' && values.json !== true ? console.log : console.error)(`${entry.to}: ${status}`);
      }
    }
    return failed ? EXIT.failed : EXIT.ok;
  },
};
