/**
 * A receiving MX that pushes back as the large providers do, for the traffic-shaping tests (issue
 * 29): a real TCP server on 127.0.0.1 that counts per client IP (clients bind 127.0.0.2 and up, as
 * the routing tests do) and
 * - past `messagesPerMinute` accepted messages in the last 60 s (a sliding window on `now`), answers
 *   each further RCPT TO or end of DATA with Gmail's whole multi-line `421-4.7.28` reply and closes;
 * - past `connectionsPerIp` sessions open at once, greets a new one with Microsoft's `421 4.7.652`
 *   "exceeded the maximum number of connections" and closes it;
 * - refuses a `blocklisted` IP with a Spamhaus `5.7.1` reply, at the greeting (554, closing) or at
 *   MAIL FROM (550, as Microsoft does);
 * - while a storm is on ({@link ThrottlingMx.refuseEveryMessage}), answers every RCPT TO from every
 *   IP with the storm's reply and closes.
 * It speaks SMTP itself, like smtp-sink.ts, because the replies must be these bytes exactly:
 * smtp-server writes an application's refusal as one line with an enhanced code of its choosing. It
 * offers no STARTTLS (a plain session, so the counts are all it tests).
 */
import { createServer, type Server, type Socket } from 'node:net';

/** How the receiver throttles; a limit left out does not apply. */
export interface ThrottlingMxOptions {
  /** Messages accepted per client IP in any window (60 s unless `windowMs` says otherwise). */
  messagesPerMinute?: number;
  /** The length of the rate's sliding window in ms (default 60 000; tests shorten it to run in seconds). */
  windowMs?: number;
  /** Sessions open at once per client IP. */
  connectionsPerIp?: number;
  /** Client IPs refused as listed at Spamhaus. */
  blocklisted?: readonly string[];
  /** Where a listed IP is refused: at the greeting, or at MAIL FROM (the default). */
  blocklistAt?: 'connect' | 'mail';
  /** The clock of the rate window, in ms (default: real time). */
  now?: () => number;
  /** Where to listen (default 127.0.0.1, an ephemeral port). */
  host?: string;
  port?: number;
}

/** One message the receiver accepted. */
export interface AcceptedMessage {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  acceptedAt: number;
}

/** What the receiver saw from one client IP. */
export interface ClientCounts {
  /** Messages accepted. */
  accepted: number;
  /** Sessions open now, the most open at once, and all ever opened (refused connections are not sessions). */
  open: number;
  maxOpen: number;
  sessions: number;
  /** `421` replies given: rate limit and connection cap. */
  replies421: number;
  /** Connections refused by the connection cap. */
  refusedConnections: number;
  /** Refusals of a blocklisted IP. */
  blocklistRefusals: number;
  /** RCPT TOs refused by a storm ({@link ThrottlingMx.refuseEveryMessage}). */
  stormRefusals: number;
  messages: AcceptedMessage[];
}

/** A running receiver. */
export interface ThrottlingMx {
  readonly host: string;
  readonly port: number;
  /** The counts of one client IP (all zero for one never seen). */
  client(ip: string): ClientCounts;
  /**
   * Starts a storm: every RCPT TO, from every IP, gets `reply(ip)` and the connection is closed,
   * whatever the limits, until called again with `null`.
   */
  refuseEveryMessage(reply: ((ip: string) => string) | null): void;
  close(): Promise<void>;
}

/** Gmail's reply to a sender past its rate, line for line (https://mythicintel.com/blog/421-from-gmail). */
export function gmailRateLimitedReply(ip: string): string {
  return [
    `421-4.7.28 [${ip}      15] Our system has detected an unusual rate of`,
    '421-4.7.28 unsolicited mail originating from your IP address. To protect our',
    '421-4.7.28 users from spam, mail sent from your IP address has been temporarily',
    '421-4.7.28 rate limited. Please visit',
    '421-4.7.28  https://support.google.com/mail/?p=UnsolicitedRateLimitError to',
    '421 4.7.28 review our Bulk Email Senders Guidelines. a1si5120915wrx.123 - gsmtp',
  ].join('\r\n');
}

/**
 * Gmail's `421 4.7.0` for a sender whose unsolicited-mail rate got it blocked for a while (a block,
 * not a rate limit: the providers' table suspends the source), line for line.
 */
export function gmailTemporarilyBlockedReply(ip: string): string {
  return [
    `421-4.7.0 [${ip}      15] Our system has detected an unusual rate of`,
    '421-4.7.0 unsolicited mail originating from your IP address. To protect our',
    '421-4.7.0 users from spam, mail sent from your IP address has been temporarily',
    '421 4.7.0 blocked. Review our Bulk Senders Guidelines. a1si5120915wrx.124 - gsmtp',
  ].join('\r\n');
}

/** Microsoft's words for a sender past its connection limit, as a greeting that closes. */
export function tooManyConnectionsReply(ip: string): string {
  return `421 4.7.652 The mail server [${ip}] has exceeded the maximum number of connections.`;
}

/** A Spamhaus listing in Postfix's reject_rbl_client words (554 at the greeting, 550 at MAIL FROM). */
export function spamhausReply(code: 550 | 554, ip: string): string {
  return `${code} 5.7.1 Service unavailable; Client host [${ip}] blocked using zen.spamhaus.org; https://www.spamhaus.org/query/ip/${ip}`;
}

const TERMINATOR = Buffer.from('\r\n.\r\n');

/** Starts a receiver; see the module comment for what it does. */
export async function startThrottlingMx(options: ThrottlingMxOptions = {}): Promise<ThrottlingMx> {
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? 60_000;
  const listed = new Set(options.blocklisted ?? []);
  const clients = new Map<string, ClientCounts>();
  const acceptedTimes = new Map<string, number[]>();
  const sockets = new Set<Socket>();
  // The receiver's own switch (a test turns a storm on and off), not shared between receivers.
  let stormReply: ((ip: string) => string) | null = null;
  const countsOf = (ip: string): ClientCounts => {
    let counts = clients.get(ip);
    if (!counts) {
      counts = {
        accepted: 0,
        open: 0,
        maxOpen: 0,
        sessions: 0,
        replies421: 0,
        refusedConnections: 0,
        blocklistRefusals: 0,
        stormRefusals: 0,
        messages: [],
      };
      clients.set(ip, counts);
    }
    return counts;
  };
  /** Whether the IP has used its allowance of the last window, dropping the times that left it. */
  const rateFull = (ip: string): boolean => {
    if (options.messagesPerMinute === undefined) return false;
    const times = (acceptedTimes.get(ip) ?? []).filter((at) => at > now() - windowMs);
    acceptedTimes.set(ip, times);
    return times.length >= options.messagesPerMinute;
  };

  function session(socket: Socket): void {
    const ip = (socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    const counts = countsOf(ip);
    const refuse = (reply: string) => {
      socket.end(`${reply}\r\n`);
    };
    if (listed.has(ip) && options.blocklistAt === 'connect') {
      counts.blocklistRefusals += 1;
      return refuse(spamhausReply(554, ip));
    }
    if (options.connectionsPerIp !== undefined && counts.open >= options.connectionsPerIp) {
      counts.replies421 += 1;
      counts.refusedConnections += 1;
      return refuse(tooManyConnectionsReply(ip));
    }
    counts.open += 1;
    counts.sessions += 1;
    counts.maxOpen = Math.max(counts.maxOpen, counts.open);
    // A session is over at QUIT (the client may open its next one before this socket's close is seen).
    let ended = false;
    const end = () => {
      if (!ended) counts.open -= 1;
      ended = true;
    };
    socket.once('close', end);
    const throttle = () => {
      counts.replies421 += 1;
      refuse(gmailRateLimitedReply(ip));
    };

    let mailFrom: string | null = null;
    let rcptTo: string[] = [];
    let inData = false;
    let buffer: Buffer = Buffer.alloc(0);
    const say = (line: string) => socket.write(`${line}\r\n`);
    const onLine = (line: string): void => {
      const verb = line.slice(0, 4).toUpperCase();
      const address = /<([^>]*)>/.exec(line)?.[1] ?? '';
      if (verb === 'EHLO') say('250-throttling.test\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 ENHANCEDSTATUSCODES');
      else if (verb === 'HELO') say('250 throttling.test');
      else if (verb === 'MAIL' && listed.has(ip)) {
        counts.blocklistRefusals += 1;
        say(spamhausReply(550, ip));
      } else if (verb === 'MAIL') {
        mailFrom = address;
        rcptTo = [];
        say('250 2.1.0 OK');
      } else if (verb === 'RCPT' && mailFrom === null) say('503 5.5.1 MAIL first');
      else if (verb === 'RCPT' && stormReply !== null) {
        counts.stormRefusals += 1;
        refuse(stormReply(ip));
      } else if (verb === 'RCPT' && rateFull(ip)) throttle();
      else if (verb === 'RCPT') {
        rcptTo.push(address.toLowerCase());
        say('250 2.1.5 OK');
      } else if (verb === 'DATA' && rcptTo.length === 0) say('554 5.5.1 No valid recipients');
      else if (verb === 'DATA') {
        inData = true;
        say('354 Go ahead');
      } else if (verb === 'RSET') {
        mailFrom = null;
        rcptTo = [];
        say('250 2.0.0 OK');
      } else if (verb === 'NOOP') say('250 2.0.0 OK');
      else if (verb === 'QUIT') {
        end();
        socket.end('221 2.0.0 closing connection\r\n');
      } else say('502 5.5.1 Unrecognized command');
    };
    const onMessage = (body: Buffer): void => {
      inData = false;
      if (rateFull(ip)) return throttle();
      const raw = Buffer.from(body.toString('latin1').replace(/^\.\./gm, '.'), 'latin1');
      if (options.messagesPerMinute !== undefined) acceptedTimes.set(ip, [...(acceptedTimes.get(ip) ?? []), now()]);
      counts.accepted += 1;
      counts.messages.push({ mailFrom: mailFrom ?? '', rcptTo, raw, acceptedAt: now() });
      mailFrom = null;
      rcptTo = [];
      say('250 2.0.0 OK queued');
    };
    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      while (buffer.length > 0 && !socket.writableEnded) {
        const end = buffer.indexOf(inData ? TERMINATOR : '\r\n');
        if (end === -1) return;
        const unit = buffer.subarray(0, inData ? end + 2 : end);
        buffer = buffer.subarray(end + (inData ? TERMINATOR.length : 2));
        if (inData) onMessage(unit);
        else onLine(unit.toString());
      }
    });
    say('220 throttling.test ESMTP ready');
  }

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
    session(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('throttling MX: no address');
  return {
    host: options.host ?? '127.0.0.1',
    port: address.port,
    client: countsOf,
    refuseEveryMessage(reply) {
      stormReply = reply;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
