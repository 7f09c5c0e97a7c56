/** Types of the parts of mailauth the inbound listener (`authenticate`) and forwarding (`sealMessage`) use. */
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
  /** The ARC set (ARC-Seal, ARC-Message-Signature, ARC-Authentication-Results) to prepend to `input`. */
  export function sealMessage(
    input: Buffer,
    seal: {
      signingDomain: string;
      selector: string;
      privateKey: string | Buffer;
      /** The `ARC-Authentication-Results` payload after `i=N;`. */
      authResults: string;
      /** The chain's verdict before this set: `none` (no chain) or `pass`. */
      cv: string;
    },
  ): Promise<Buffer>;
}
