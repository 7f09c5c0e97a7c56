/**
 * The Koa example: the full `/api/v1` surface on the embedded SQLite default.
 * Run with `npm run start:koa`; configuration comes from the environment (see the README).
 */
import Koa from 'koa';
import { toKoa } from 'mailplane/koa';
import { closeOnSignals, readConfig, startMailplane, startSmtpRelays } from '../shared/bootstrap.js';

const config = readConfig();
const mailplane = await startMailplane(config);
const relays = await startSmtpRelays(mailplane, config);

const app = new Koa();
app.use(toKoa(mailplane.handle, { prefix: '/api/v1' }));
app.use(toKoa(mailplane.handleLinks, { prefix: '/t' }));

const server = app.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  console.log(`mailplane (koa) listening on http://${config.host}:${port}/api/v1`);
});
closeOnSignals(async () => {
  for (const relay of relays) await relay.close();
  await new Promise((resolve) => server.close(resolve));
  await mailplane.close();
});
