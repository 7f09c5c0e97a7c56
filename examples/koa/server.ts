/**
 * The Koa example: the full `/api/v1` surface on the embedded SQLite default.
 * Run with `npm run start:koa`; configuration comes from the environment (see the README).
 */
import Koa from 'koa';
import { HEALTH_PATHS } from 'mailplane';
import { toKoa } from 'mailplane/koa';
import { createDashboard } from 'mailplane/dashboard';
import { closeOnSignals, publicBaseUrl, readConfig, startMailplane, startSmtpServers } from '../shared/bootstrap.js';
import { bindHttp, exitOnStartupFailure } from '../shared/startup.js';

try {
  const config = readConfig();
  // The port first: with PORT=0 the links in mail must name the port the system chose.
  const http = await bindHttp(config);
  const mailplane = await startMailplane(config, publicBaseUrl(config, http.localUrl));
  const smtpServers = await startSmtpServers(mailplane, config);

  const app = new Koa();
  app.use(toKoa(mailplane.handle, { prefix: '/api/v1' }));
  app.use(toKoa(mailplane.handleLinks, { prefix: '/t' }));
  // The web console (docs/dashboard.md): sign in with the account key printed at first start.
  app.use(toKoa(createDashboard(mailplane, { basePath: '/dashboard' }), { prefix: '/dashboard' }));
  const health = toKoa(mailplane.handleHealth);
  app.use((ctx, next) => (HEALTH_PATHS.includes(ctx.path) ? health(ctx, next) : next()));
  if (config.metrics) {
    const metrics = toKoa(mailplane.handleMetrics);
    app.use((ctx, next) => (ctx.path === '/metrics' ? metrics(ctx, next) : next()));
  }

  http.serve(app.callback());
  console.log(`mailplane (koa) listening on ${http.localUrl}/api/v1 (dashboard: /dashboard)`);
  closeOnSignals({ server: http.server, smtpServers, mailplane });
} catch (error) {
  exitOnStartupFailure(error);
}
