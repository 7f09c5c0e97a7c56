/**
 * The Koa example: the full `/api/v1` surface on the embedded SQLite default.
 * Run with `npm run start:koa`; configuration comes from the environment (see the README).
 */
import Koa from 'koa';
import { toKoa } from 'mailplane/koa';
import { closeOnSignals, readConfig, startMailplane, startSmtpServers } from '../shared/bootstrap.js';

const config = readConfig();
const mailplane = await startMailplane(config);
const smtpServers = await startSmtpServers(mailplane, config);

const app = new Koa();
app.use(toKoa(mailplane.handle, { prefix: '/api/v1' }));
app.use(toKoa(mailplane.handleLinks, { prefix: '/t' }));

const server = app.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  console.log(`mailplane (koa) listening on http://${config.host}:${port}/api/v1`);
});
closeOnSignals(async () => {
  for (const smtp of smtpServers) await smtp.close();
  await new Promise((resolve) => server.close(resolve));
  await mailplane.close();
});
