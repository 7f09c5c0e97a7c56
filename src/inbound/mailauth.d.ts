/** Types of the part of mailauth's `authenticate` the inbound listener reads. */
declare module 'mailauth' {
  interface Verdict {
    status?: { result?: string; comment?: string | false };
  }
  export function authenticate(
    input: Buffer,
    options: {
      ip?: string;
      helo?: string;
      mta?: string;
      sender?: string;
      disableBimi?: boolean;
      resolver: (name: string, type: string) => Promise<unknown[]>;
    },
  ): Promise<{
    dkim?: { results?: Verdict[] };
    spf?: Verdict | false;
    dmarc?: Verdict | false;
    arc?: Verdict | false;
  }>;
}
