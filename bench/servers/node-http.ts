/**
 * The send benchmark's node:http server: the same configuration as the Express example (the
 * environment, the embedded SQLite default), the API mounted with the `mailplane/node` bridge alone,
 * so the figure is mailplane's own cost with no framework around it.
 */
import { toNodeHandler } from 'mailplane/node';
import { closeOnSignals, publicBaseUrl, readConfig, startMailplane } from '../../examples/shared/bootstrap.js';
import { bindHttp, exitOnStartupFailure } from '../../examples/shared/startup.js';

try {
  const config = readConfig();
  const http = await bindHttp(config);
  const mailplane = await startMailplane(config, publicBaseUrl(config, http.localUrl));
  http.serve(toNodeHandler(mailplane.handle, { prefix: '/api/v1' }));
  console.log(`mailplane (node:http) listening on ${http.localUrl}/api/v1`);
  closeOnSignals({ server: http.server, smtpServers: [], mailplane });
} catch (error) {
  exitOnStartupFailure(error);
}
