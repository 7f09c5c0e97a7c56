/** The resolve hook of hide-packages.mjs (module customization hooks run in a thread of their own). */
let hidden = new Set();

/** Receives the names to hide from `register`. */
export function initialize(data) {
  hidden = new Set(data.hidden);
}

/** Fails a bare import of a hidden package with Node's own error for a package that is not installed. */
export async function resolve(specifier, context, nextResolve) {
  if (hidden.has(specifier)) {
    const error = new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return nextResolve(specifier, context);
}
