/**
 * The Alerts page's automatic protection panel (docs/reputation.md, "Automatic protection: blocked
 * sub-accounts"): the account's settings in words (on or off, each line's block and warn rates and
 * the volume it is judged from, who is notified), a form to change them whose refusal shows beside
 * it with what was typed kept, and the sub-accounts' overrides (protection-overrides.ts).
 * Account sessions only, as the Alerts page.
 */
import { useState } from 'preact/hooks';
import { ErrorNote, html, Status, useApp, useLoad } from '../lib.js';
import {
  draftOfProtection,
  namesField,
  PROTECTION_LINES,
  protectionBody,
  protectionLineText,
  protectionNotifyText,
  type Protection,
  type ProtectionDraft,
  type ProtectionSettings,
} from '../protection-format.js';
import type { Names } from './names.js';
import { LineFields, refusedPaths } from './protection-fields.js';
import { ProtectionOverrides } from './protection-overrides.js';

/** The account's settings in words. */
const SettingsFacts = ({ settings, windowHours }: { settings: ProtectionSettings; windowHours: number }) =>
  html`<dl class="facts" aria-label="The account's automatic protection">
    <dt>State</dt>
    <dd>${settings.enabled ? 'on' : 'off: no sub-account is blocked or warned about automatically'}</dd>
    ${PROTECTION_LINES.map(
      ([name, label]) =>
        html`<dt>${label}</dt>
          <dd>${protectionLineText(settings[name])}</dd>`,
    )}
    <dt>Measured over</dt>
    <dd>the current hour and the ${windowHours} before it</dd>
    <dt>Notifies</dt>
    <dd>${protectionNotifyText(settings)}</dd>
  </dl>`;

interface SettingsFormProps {
  settings: ProtectionSettings;
  onSaved: () => void;
}

/** The form of the account's settings; a refusal keeps what was typed. */
function SettingsForm({ settings, onSaved }: SettingsFormProps) {
  const { api } = useApp();
  const [draft, setDraft] = useState<ProtectionDraft>(() => draftOfProtection(settings));
  const [error, setError] = useState<string | undefined>();
  const [problems, setProblems] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);
  const errorId = 'protection-error';
  const change = (patch: Partial<ProtectionDraft>) => setDraft((d) => ({ ...d, ...patch }));
  const text = (event: Event) => (event.target as HTMLInputElement).value;
  const marked = (field: string) =>
    namesField(problems, field) ? { 'aria-invalid': 'true', 'aria-describedby': errorId } : {};
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setProblems([]);
    setBusy(true);
    try {
      await api.call('PUT', '/account/protection', { body: protectionBody(draft) });
      onSaved();
    } catch (failure) {
      setError((failure as Error).message);
      setProblems(refusedPaths(failure));
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="alert-form protection-form" aria-label="Automatic protection settings" onSubmit=${submit}>
    <label class="check"
      ><input type="checkbox" checked=${draft.enabled} onChange=${() => change({ enabled: !draft.enabled })} />
      Protection on</label
    >
    ${PROTECTION_LINES.map(
      ([name, legend]) =>
        html`<${LineFields}
          name=${name}
          legend=${legend}
          draft=${draft[name]}
          problems=${problems}
          errorId=${errorId}
          onChange=${(patch: object) => setDraft((d) => ({ ...d, [name]: { ...d[name], ...patch } }))}
        />`,
    )}
    <label class="wide"
      >Notify by email (addresses separated by commas)
      <input
        type="text"
        value=${draft.emails}
        placeholder="ops@example.com"
        ...${marked('emails')}
        onInput=${(e: Event) => change({ emails: text(e) })}
    /></label>
    <label class="wide"
      >Slack incoming webhook URL (optional)
      <input
        type="url"
        value=${draft.slackUrl}
        placeholder="https://hooks.slack.com/services/…"
        ...${marked('slackUrl')}
        onInput=${(e: Event) => change({ slackUrl: text(e) })}
    /></label>
    <div id=${errorId} class="form-error"><${ErrorNote} message=${error} /></div>
    <div class="actions"><button type="submit" disabled=${busy}>Save protection</button></div>
  </form>`;
}

/** The automatic protection panel of the Alerts page. */
export function ProtectionPanel({ names }: { names: Names }) {
  const { api } = useApp();
  const protection = useLoad(() => api.call<Protection>('GET', '/account/protection'), []);
  const [done, setDone] = useState<string | undefined>();
  const saved = (message: string) => {
    setDone(message);
    protection.reload();
  };
  const data = protection.data;
  return html`<section aria-labelledby="protection-title">
    <h2 id="protection-title">Automatic protection</h2>
    <p class="hint">
      Blocks a sub-account whose hard-bounce or spam-complaint rate reaches the block line, and opens a warning ${' '}<a
        href="#/incidents"
        >incident</a
      >${' '}between the warn and block lines. A rate of 0 turns that side off.
    </p>
    <${ErrorNote} message=${protection.error} />
    ${done && html`<${Status}>${done}</${Status}>`}
    ${!data && protection.loading && html`<${Status}>Loading the automatic protection…</${Status}>`}
    ${
      data &&
      html`<${SettingsFacts} settings=${data.settings} windowHours=${data.windowHours} />
        <h3>Change the account's protection</h3>
        <${SettingsForm}
          key=${JSON.stringify(data.settings)}
          settings=${data.settings}
          onSaved=${() => saved('Saved the automatic protection.')}
        />
        <${ProtectionOverrides}
          protection=${data}
          names=${names}
          onSaved=${(message: string) => saved(message)}
          onStart=${() => setDone(undefined)}
        />`
    }
  </section>`;
}
