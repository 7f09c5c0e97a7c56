/**
 * The Express example: the full `/api/v1` surface on the embedded SQLite default.
 * Run with `npm start`; configuration comes from the environment (see the README).
 */
import express from 'express';
import { HEALTH_PATHS } from 'mailplane';
import { toExpress } from 'mailplane/express';
import { createDashboard } from 'mailplane/dashboard';
import { closeOnSignals, publicBaseUrl, readConfig, startMailplane, startSmtpServers } from '../shared/bootstrap.js';
import { bindHttp, exitOnStartupFailure } from '../shared/startup.js';

try {
  const config = readConfig();
  // The port first: with PORT=0 the links in mail must name the port the system chose.
  const http = await bindHttp(config);
  const mailplane = await startMailplane(config, publicBaseUrl(config, http.localUrl));
  const smtpServers = await startSmtpServers(mailplane, config);

  const app = express();
  app.disable('x-powered-by');
  app.use('/api/v1', toExpress(mailplane.handle));
  app.use('/t', toExpress(mailplane.handleLinks));
  // The web console (docs/dashboard.md): sign in with the account key printed at first start.
  app.use('/dashboard', toExpress(createDashboard(mailplane, { basePath: '/dashboard' })));
  app.get([...HEALTH_PATHS], toExpress(mailplane.handleHealth));
  if (config.metrics) app.get('/metrics', toExpress(mailplane.handleMetrics));

  http.serve(app);
  console.log(`mailplane (express) listening on ${http.localUrl}/api/v1 (dashboard: /dashboard)`);
  closeOnSignals({ server: http.server, smtpServers, mailplane });
} catch (error) {
  exitOnStartupFailure(error);
}
