/**
 * The Express example: the full `/api/v1` surface on the embedded SQLite default.
 * Run with `npm start`; configuration comes from the environment (see the README).
 */
import express from 'express';
import { toExpress } from 'mailplane/express';
import { closeOnSignals, readConfig, startMailplane, startSmtpServers } from '../shared/bootstrap.js';

const config = readConfig();
const mailplane = await startMailplane(config);
const smtpServers = await startSmtpServers(mailplane, config);

const app = express();
app.disable('x-powered-by');
app.use('/api/v1', toExpress(mailplane.handle));
app.use('/t', toExpress(mailplane.handleLinks));

const server = app.listen(config.port, config.host, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  console.log(`mailplane (express) listening on http://${config.host}:${port}/api/v1`);
});
closeOnSignals(async () => {
  for (const smtp of smtpServers) await smtp.close();
  await new Promise((resolve) => server.close(resolve));
  await mailplane.close();
});
