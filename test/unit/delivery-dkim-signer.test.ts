import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { describe, expect, it } from 'vitest';
import { dkimSign } from '../../src/delivery/dkim.js';
import { DkimSigner } from '../../src/delivery/dkim-signer.js';

const pair = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
const { privateKey, publicKey } = pair();
const verifies = (data: string, signature: Buffer, key = publicKey) =>
  verify('sha256', Buffer.from(data, 'latin1'), key, signature);

describe('DkimSigner (signatures on worker threads, in batches)', () => {
  it('answers every one of a burst larger than a batch, each with its own valid signature', async () => {
    const signer = new DkimSigner(1);
    try {
      // 200 at once: the first goes alone, the others wait and leave in batches of at most 64.
      const data = Array.from({ length: 200 }, (_, i) => `header block ${i}\r\n`);
      const signatures = await Promise.all(data.map((d) => signer.sign(d, privateKey)));
      expect(signatures.every((signature, i) => verifies(data[i]!, signature))).toBe(true);
    } finally {
      await signer.close();
    }
  });

  it('signs an urgent request (transactional mail) before the ordinary ones that waited longer', async () => {
    const signer = new DkimSigner(1);
    try {
      const order: string[] = [];
      const track = (name: string, signature: Promise<Buffer>) =>
        signature.then((value) => (order.push(name), verifies(name, value)));
      // 300 ordinary ones queue behind the first (in flight alone); the urgent one comes last.
      const ordinary = Array.from({ length: 300 }, (_, i) => track(`bulk ${i}`, signer.sign(`bulk ${i}`, privateKey)));
      const urgent = track('urgent', signer.signUrgent('urgent', privateKey));
      expect((await Promise.all([...ordinary, urgent])).every(Boolean)).toBe(true);
      // It leaves in the first batch after the one in flight: at most 1 + 64 are signed before it.
      expect(order.indexOf('urgent')).toBeLessThanOrEqual(65);
      // The ordinary ones keep their order among themselves.
      expect(order.filter((name) => name !== 'urgent')).toEqual(Array.from({ length: 300 }, (_, i) => `bulk ${i}`));
    } finally {
      await signer.close();
    }
  });

  it('signs with each request’s own key when several domains are in one batch, and again after the worker ended idle', async () => {
    const other = pair();
    const signer = new DkimSigner(2);
    try {
      const jobs = Array.from({ length: 40 }, (_, i) => ({
        data: `field ${i}`,
        key: i % 2 === 0 ? privateKey : other.privateKey,
        check: i % 2 === 0 ? publicKey : other.publicKey,
      }));
      const signatures = await Promise.all(jobs.map((job) => signer.sign(job.data, job.key)));
      expect(signatures.every((signature, i) => verifies(jobs[i]!.data, signature, jobs[i]!.check))).toBe(true);
      await signer.close();
      // Closed: signatures are still made, on libuv's pool.
      expect(verifies('after close', await signer.sign('after close', privateKey))).toBe(true);
    } finally {
      await signer.close();
    }
  });

  it('answers the signatures still waiting for the worker when it is closed (on libuv\u2019s pool)', async () => {
    const signer = new DkimSigner(1);
    // The first batch goes to the worker at once; the rest wait for it when close() comes.
    const data = Array.from({ length: 100 }, (_, i) => `waiting ${i}`);
    const pending = data.map((d) => signer.sign(d, privateKey));
    await signer.close();
    const signatures = await Promise.all(pending);
    expect(signatures.every((signature, i) => verifies(data[i]!, signature))).toBe(true);
  });

  it('rejects a request whose key cannot sign, and the others of its batch still succeed', async () => {
    const signer = new DkimSigner(1);
    try {
      const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const [good, bad] = await Promise.allSettled([signer.sign('good', privateKey), signer.sign('bad', ec.publicKey)]);
      expect(good.status === 'fulfilled' && verifies('good', good.value)).toBe(true);
      expect(bad.status).toBe('rejected');
    } finally {
      await signer.close();
    }
  });

  it('gives messages that an independent verifier (mailauth) accepts', async () => {
    const signer = new DkimSigner(1);
    try {
      const p = createPublicKey(privateKey).export({ type: 'spki', format: 'der' }).toString('base64');
      const resolver = async () => [[`v=DKIM1; k=rsa; p=${p}`]];
      const message = Buffer.from('From: a@example.com\r\nTo: b@example.org\r\nSubject: hi\r\n\r\nbody\r\n');
      const signed = await dkimSign(message, {
        domainName: 'example.com',
        selector: 'sel',
        privateKey,
        headerFieldNames: 'From:To:Subject',
        sign: signer.sign,
      });
      const result = await dkimVerify(signed, { resolver });
      expect(result.results[0]?.status?.result).toBe('pass');
    } finally {
      await signer.close();
    }
  });
});
