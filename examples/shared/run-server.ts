/**
 * The example server in one function: `examples/express/server.ts`, `examples/koa/server.ts` and
 * `mailplane start` (cli/commands/start.ts) all run it, so the three serve the same paths in the
 * same order of start-up steps.
 */
import type { RequestListener } from 'node:http';
import type { HttpHandler } from 'mailplane';
import { toNodeHandler } from 'mailplane/node';
import { withDashboard } from 'mailplane/dashboard';
import { closeOnSignals, publicBaseUrl, readConfig, startMailplane, startSmtpServers } from './bootstrap.js';
import { bindHttp, exitOnStartupFailure } from './startup.js';

/** The HTTP stack the server is mounted on: plain `node:http` needs no framework installed. */
export type ExampleFramework = 'node' | 'express' | 'koa';

/**
 * A framework's package is an optional peer dependency (a devDependency here): when it is not
 * installed the start stops with the command that installs it, not a module-resolution trace.
 */
export class FrameworkMissingError extends Error {
  constructor(readonly framework: string) {
    super(`${framework} is not installed: run \`npm install ${framework}\`, or start without a framework`);
    this.name = 'FrameworkMissingError';
  }
}

/** Imports `name`, turning "this very package is not installed" into a {@link FrameworkMissingError}. */
async function importFramework<T>(name: 'express' | 'koa', load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    // A package of the framework's own dependencies missing is another fault: reported as it is.
    if (code === 'ERR_MODULE_NOT_FOUND' && message.includes(`'${name}'`)) throw new FrameworkMissingError(name);
    throw error;
  }
}

/**
 * The request listener serving `handler` (the API, the links, health, metrics and the dashboard:
 * `withDashboard(mailplane)`) on `framework`: one line each.
 */
async function listenerOn(framework: ExampleFramework, handler: HttpHandler): Promise<RequestListener> {
  if (framework === 'express') {
    const { default: express } = await importFramework('express', () => import('express'));
    const { toExpress } = await import('mailplane/express');
    const app = express();
    app.disable('x-powered-by');
    app.use(toExpress(handler));
    return app;
  }
  if (framework === 'koa') {
    const { default: Koa } = await importFramework('koa', () => import('koa'));
    const { toKoa } = await import('mailplane/koa');
    const app = new Koa();
    app.use(toKoa(handler));
    return app.callback();
  }
  return toNodeHandler(handler);
}

/** Options of {@link runExampleServer}. */
export interface RunExampleServerOptions {
  framework: ExampleFramework;
  /** Where the configuration is read from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Reads the configuration, binds the port, opens the store, starts mailplane, its SMTP listeners
 * and the HTTP server on `framework`, prints `mailplane (<framework>) listening on <url>/api/v1`,
 * and closes everything on SIGINT/SIGTERM. A start that cannot complete prints why on stderr and
 * exits 1 (startup.ts), a bad variable before anything else is printed.
 */
export async function runExampleServer({ framework, env = process.env }: RunExampleServerOptions): Promise<void> {
  try {
    const config = readConfig(env);
    // The framework is loaded before the port is bound: a missing package stops the start with nothing opened.
    if (framework !== 'node') await preload(framework);
    // The port first: with PORT=0 the links in mail must name the port the system chose.
    const http = await bindHttp(config);
    const mailplane = await startMailplane(config, publicBaseUrl(config, http.localUrl));
    const smtpServers = await startSmtpServers(mailplane, config);
    // The web console (docs/dashboard.md): sign in with the account key printed at first start.
    http.serve(await listenerOn(framework, withDashboard(mailplane)));
    console.log(`mailplane (${framework}) listening on ${http.localUrl}/api/v1 (dashboard: /dashboard)`);
    closeOnSignals({ server: http.server, smtpServers, mailplane });
  } catch (error) {
    exitOnStartupFailure(error);
  }
}

/** Loads `framework`'s package once so a missing one is reported before anything starts. */
async function preload(framework: 'express' | 'koa'): Promise<void> {
  await importFramework(framework, () => (framework === 'express' ? import('express') : import('koa')));
}
