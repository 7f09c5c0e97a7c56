/** Types of the part of mailauth (an independent DKIM verifier) the sandbox and the delivery tests use. */
declare module 'mailauth/lib/dkim/verify.js' {
  export interface DkimResult {
    signingDomain?: string;
    selector?: string;
    status?: { result?: string; comment?: string };
    signingHeaders?: { keys?: string };
  }
  export function dkimVerify(
    input: Buffer | string,
    options: { resolver: (name: string, type: string) => Promise<string[][]> },
  ): Promise<{ results: DkimResult[] }>;
}
