/**
 * The baseline of the send benchmark: Express parsing the same JSON and answering the same shape
 * as `POST /subaccount/email/` (one entry per recipient with a UUID and a ns timestamp), storing
 * and checking nothing.
 */
import { randomUUID } from 'node:crypto';
import express from 'express';

const app = express();
app.use(express.json({ limit: '8mb' }));
app.post('/api/v1/subaccount/email', (req, res) => {
  const body = req.body as { to: Array<{ email: string }> };
  const submittedAt = BigInt(Date.now()) * 1_000_000n;
  const entries = body.to.map(
    (to) => `{"to":${JSON.stringify(to.email)},"submittedAt":${submittedAt},"messageId":"${randomUUID()}"}`,
  );
  res.type('application/json').send(`[${entries.join(',')}]`);
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
