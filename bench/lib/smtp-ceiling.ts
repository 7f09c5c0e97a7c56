/**
 * The ceiling of the delivery benchmark's setup: how many messages per second the loopback sink
 * accepts from the cheapest possible client, raw sockets writing a message built once (no MIME
 * work, no signing, no dot-stuffing pass, no storage), over `connections` connections. No mail system can
 * deliver faster than this to that sink on this machine; the delivery figures are read against it.
 * With `signingKey`, each message also costs one RSA signature made the way mailplane makes it
 * (asynchronously, on libuv's thread pool): the ceiling of any client that DKIM-signs every message
 * here, since signing and the sink share the same 2 cores.
 */
import { sign, type KeyObject } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** Reads SMTP replies off a socket, one complete (possibly multi-line) reply per `next()`. */
function replies(socket: Socket): () => Promise<string> {
  let buffer = '';
  const waiting: Array<(reply: string) => void> = [];
  const ready: string[] = [];
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (;;) {
      // A reply ends with a line whose fourth character is a space: "250 OK\r\n".
      const end = /^\d{3} .*\r\n/m.exec(buffer);
      if (!end) break;
      const reply = buffer.slice(0, end.index + end[0].length);
      buffer = buffer.slice(reply.length);
      const taker = waiting.shift();
      if (taker) taker(reply);
      else ready.push(reply);
    }
  });
  return () => new Promise((resolve) => (ready.length > 0 ? resolve(ready.shift()!) : waiting.push(resolve)));
}

async function expectReply(next: () => Promise<string>, code: string): Promise<void> {
  const reply = await next();
  if (!reply.startsWith(code)) throw new Error(`sink answered ${reply.trim()}, expected ${code}`);
}

/** Messages per second the sink at `port` accepts for `messages` messages of `size` bytes. */
export async function sinkCeiling(
  port: number,
  messages: number,
  size: number,
  connections: number,
  signingKey?: KeyObject,
): Promise<number> {
  const line = 'x'.repeat(76) + '\r\n';
  const body = Buffer.from(
    'From: a@bench.example.com\r\nTo: r@rcpt.example\r\nSubject: ceiling\r\n\r\n' +
      line.repeat(Math.ceil(size / line.length)) +
      '.\r\n',
  );
  let next = 0;
  const signature = (n: number) =>
    signingKey
      ? new Promise((resolve, reject) =>
          sign('sha256', Buffer.from(`header block ${n}`), signingKey, (error, result) =>
            error ? reject(error) : resolve(result),
          ),
        )
      : Promise.resolve();
  const worker = async () => {
    let signed = signature(next);
    const socket = connect(port, '127.0.0.1');
    const read = replies(socket);
    await expectReply(read, '220');
    socket.write('EHLO ceiling.local\r\n');
    await expectReply(read, '250');
    while (next < messages) {
      const n = next++;
      // The next message is signed while this one is sent, as a pipelined sender would.
      await signed;
      signed = signature(n + 1);
      socket.write(`MAIL FROM:<b@bench.example.com>\r\n`);
      await expectReply(read, '250');
      socket.write(`RCPT TO:<c${n}@rcpt.example>\r\n`);
      await expectReply(read, '250');
      socket.write('DATA\r\n');
      await expectReply(read, '354');
      socket.write(body);
      await expectReply(read, '250');
    }
    socket.end('QUIT\r\n');
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  return messages / ((performance.now() - started) / 1000);
}
