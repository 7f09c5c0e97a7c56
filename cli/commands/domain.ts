/**
 * `mailplane domain check <name>`: asks the running server to check a sending domain's DNS records
 * now (`POST /subaccount/domain/{id}/verify`) and prints each record, found or missing with the
 * API's reason. Exit 0 when the domain is verified, 1 when it is not or no sub-account has it.
 */
import { Api, normalDomainName, type DomainItem } from '../api.js';
import { CommandFailure, EXIT, UsageError, type CliCommand, type CommandInput } from '../command.js';
import { SERVER_FLAGS, SERVER_FLAGS_HELP, serverAccess } from '../environment.js';
import { stringifyExact } from '../exact-json.js';
import { candidateSubAccounts, locateDomain, SUB_ACCOUNT_FLAGS, SUB_ACCOUNT_FLAGS_HELP } from '../sub-accounts.js';

/** The records of a domain resource, in the order docs/domains.md lists them. */
const RECORDS = ['dkim', 'returnPath', 'spf', 'track', 'dmarc'] as const;

/** One DNS record of the domain resource. */
interface DnsRecord {
  host: string;
  type: string;
  textValue: string;
}

/** A DKIM record of `dkimRecords`. */
interface DkimRecord extends DnsRecord {
  selector: string;
  state: 'active' | 'pending' | 'retiring';
  verified: boolean;
  failureReason?: string;
}

/** One line per record: its name, type, host and whether the last check found it (with why not). */
export function recordLines(domain: DomainItem): string[] {
  const line = (label: string, record: DnsRecord, found: boolean, reason: string) =>
    `  ${label.padEnd(13)} ${record.type.padEnd(5)} ${record.host.padEnd(40)} ${found ? 'found' : `missing: ${reason || 'not checked yet'}`}`;
  const lines = RECORDS.map((name) =>
    line(
      name,
      domain[name] as DnsRecord,
      domain[`${name}Verified`] === true,
      String(domain[`${name}FailureReason`] ?? ''),
    ),
  );
  // A rotation's new key waits for its own record (docs/domains.md, "DKIM key rotation").
  for (const dkim of (domain.dkimRecords ?? []) as DkimRecord[]) {
    if (dkim.state === 'pending') lines.push(line('dkim pending', dkim, dkim.verified, dkim.failureReason ?? ''));
  }
  return lines;
}

/** `domain check`: verifies the domain now and prints its records. */
async function check({ values, positionals, env }: CommandInput): Promise<number> {
  const name = normalDomainName(positionals[1]!);
  const access = serverAccess(values, env);
  const api = new Api(access.baseUrl);
  const candidates = await candidateSubAccounts(api, values, access);
  let owned = await locateDomain(api, candidates, name);
  if (!owned && values.add === true) {
    const owner = candidates[0]!;
    const domain = await api.call<DomainItem>({
      method: 'POST',
      path: '/subaccount/domain',
      key: { subAccount: owner.key },
      body: { name },
    });
    console.log(`added ${domain.name} to ${owner.label}`);
    owned = { owner, domain };
  }
  if (!owned) {
    throw new CommandFailure(
      `${name}: no such domain in ${candidates.length === 1 ? candidates[0]!.label : 'any sub-account'} ` +
        '(add it with --add, or POST /api/v1/subaccount/domain)',
    );
  }
  const domain = await api.call<DomainItem>({
    method: 'POST',
    path: `/subaccount/domain/${owned.domain.id}/verify`,
    key: { subAccount: owned.owner.key },
  });
  if (values.json === true) {
    console.log(stringifyExact(domain));
  } else {
    console.log(
      `${domain.name} (domain ${domain.id} of ${owned.owner.label}): ${domain.verified ? 'verified' : 'NOT verified'}`,
    );
    for (const line of recordLines(domain)) console.log(line);
    if (!domain.verified) console.log('Publish the missing records (docs/domains.md), then check again.');
  }
  return domain.verified ? EXIT.ok : EXIT.failed;
}

/** `mailplane domain`. */
export const command: CliCommand = {
  name: 'domain',
  summary: "check a sending domain's DNS records on the running server",
  positionals: { min: 2, max: 2, names: 'the subcommand and the domain name (domain check NAME)' },
  options: { ...SERVER_FLAGS, ...SUB_ACCOUNT_FLAGS, add: { type: 'boolean' }, json: { type: 'boolean' } },
  help: `Usage: mailplane domain check NAME [flags]

Checks the DNS records of the sending domain NAME now (POST /api/v1/subaccount/domain/{id}/verify)
and prints each record: found, or missing with the reason the check gives. With the account key it
looks for NAME in every sub-account (the first that has it, oldest first).

Flags:
${SERVER_FLAGS_HELP}
${SUB_ACCOUNT_FLAGS_HELP}
  --add                 add NAME first when no sub-account has it (to --subaccount, else the oldest)
  --json                print the domain resource as the API answers it, on one line
  -h, --help            this help

Exit status: 0 the domain is verified; 1 not verified, not found, or the server answered an error;
2 a usage error.

Example:
  MAILPLANE_ACCOUNT_API_KEY=mpak_… mailplane domain check acme.test --add`,
  run: async (input) => {
    const [subcommand] = input.positionals;
    if (subcommand !== 'check')
      throw new UsageError(`domain: unknown subcommand ${JSON.stringify(subcommand)} (check)`);
    return check(input);
  },
};
