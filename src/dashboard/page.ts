/**
 * The dashboard's one HTML page and the security headers of everything it serves.
 */
import type { HttpResponse } from '../http/types.js';

/**
 * The Content-Security-Policy of the dashboard: scripts and styles from its own files only (no
 * inline script, no `eval`), requests to its own origin only, no plug-ins, no framing by other
 * pages. Captured message HTML is shown in a sandboxed `srcdoc` frame, which inherits this policy
 * and, sandboxed without `allow-scripts`, runs nothing.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every dashboard answer (with the CSP on the page itself). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const escapeAttribute = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * The page: a shell that loads the bundled script and style sheet. The mount path reaches the script
 * in a data attribute, as the CSP allows no inline script.
 */
export function pageResponse(basePath: string): HttpResponse {
  const base = escapeAttribute(basePath);
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>mailplane dashboard</title>
<link rel="stylesheet" href="${base}/assets/app.css">
<script type="module" src="${base}/assets/app.js"></script>
</head>
<body>
<div id="app" data-base="${base}"><p>Loading the dashboard…</p></div>
<noscript><p>The mailplane dashboard needs JavaScript.</p></noscript>
</body>
</html>
`;
  return {
    status: 200,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      ...SECURITY_HEADERS,
    },
    body,
  };
}
