/**
 * The send benchmark's node:http server: the same configuration as the Express example (the
 * environment, the embedded SQLite default), the API mounted with the `mailplane/node` bridge alone,
 * so the figure is mailplane's own cost with no framework around it.
 */
import { toNodeHandler } from 'mailplane/node';
import { closeOnSignals, readConfig, startMailplane } from '../../examples/shared/bootstrap.js';
import { boundPort, exitOnStartupFailure, listenHttp } from '../../examples/shared/startup.js';

try {
  const config = readConfig();
  const mailplane = await startMailplane(config);
  const server = await listenHttp(toNodeHandler(mailplane.handle, { prefix: '/api/v1' }), config);
  console.log(`mailplane (node:http) listening on http://${config.host}:${boundPort(server, config.port)}/api/v1`);
  closeOnSignals({ server, smtpServers: [], mailplane });
} catch (error) {
  exitOnStartupFailure(error);
}
