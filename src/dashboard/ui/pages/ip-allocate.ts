/**
 * Allocating IPs to the account (`PUT /account/ip/allocate`, docs/ip-pools.md): the addresses, one
 * or more separated by commas or spaces, and whether their warmup starts; the API's refusals (an
 * address another account holds, a malformed one) are shown as they come.
 */
import { useState } from 'preact/hooks';
import { ErrorNote, html, useApp } from '../lib.js';

/** The addresses of the field: split on commas and white space, without blanks or repeats. */
const addressList = (text: string): string[] => [...new Set(text.split(/[\s,]+/).filter((a) => a !== ''))];

/** The allocation form; `onDone` runs after a success. */
export function AllocateIps({ onDone }: { onDone: () => void }) {
  const { api } = useApp();
  const [text, setText] = useState('');
  const [warmup, setWarmup] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      await api.call('PUT', '/account/ip/allocate', { body: { ips: addressList(text), autoWarmupEnabled: warmup } });
      setText('');
      onDone();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="inline" aria-label="Allocate IPs" onSubmit=${submit}>
    <label
      >IP addresses
      <input
        type="text"
        required
        value=${text}
        placeholder="203.0.113.7, 2001:db8::7"
        aria-describedby="allocate-help"
        onInput=${(e: Event) => setText((e.target as HTMLInputElement).value)}
    /></label>
    <span id="allocate-help" class="hint">separated by commas or spaces</span>
    <label class="check"
      ><input type="checkbox" checked=${warmup} onChange=${() => setWarmup(!warmup)} /> Warm up</label
    >
    <${ErrorNote} message=${error} />
    <button type="submit" disabled=${busy}>Allocate</button>
  </form>`;
}
