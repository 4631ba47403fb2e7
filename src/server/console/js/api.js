// The pipeline's public HTTP API (docs/api.md), as the console calls it.
// Nothing here is private to the console: every call is one a script can
// make with curl.

// An error answer: {"message", "error_code", "details"} and its HTTP status.
export class ApiError extends Error {
  constructor(status, body) {
    super(body.message || `HTTP ${status}`);
    this.status = status;
    this.code = body.error_code || 'HttpError';
    this.details = body.details || {};
  }
}

// A pipeline started with --api-key-file answers 401 without a key: the
// console asks for one (once, however many calls wait for it), keeps it for
// the browser tab's session, and sends it with every call.
const kKeyItem = 'sluice-api-key';
let asking = null;

function askForKey(message) {
  if (asking) return asking;
  asking = new Promise(resolve => {
    const dialog = document.createElement('dialog');
    dialog.className = 'api-key';
    dialog.innerHTML = `<form method="dialog">
        <h2>API key</h2>
        <p class="why"></p>
        <label>Key <input type="password" name="key" autocomplete="current-password" required></label>
        <menu><button class="primary" value="ok">Sign in</button></menu>
      </form>`;
    dialog.querySelector('.why').textContent = message;
    document.body.append(dialog);
    dialog.addEventListener('close', () => {
      const key = dialog.querySelector('input').value.trim();
      dialog.remove();
      asking = null;
      if (key) sessionStorage.setItem(kKeyItem, key);
      resolve(key);
    });
    dialog.addEventListener('cancel', e => e.preventDefault());
    dialog.showModal();
  });
  return asking;
}

async function request(method, path, {body, signal, contentType} = {}) {
  let res;
  for (;;) {
    const headers = {};
    if (contentType) headers['Content-Type'] = contentType;
    const key = sessionStorage.getItem(kKeyItem);
    if (key) headers['Authorization'] = `Bearer ${key}`;
    try {
      res = await fetch(path, {method, body, signal, headers, cache: 'no-store'});
    } catch (e) {
      if (e.name === 'AbortError') throw e;
      throw new ApiError(0, {message: 'the pipeline does not answer (' + e.message + ')',
                             error_code: 'Unreachable'});
    }
    if (res.status !== 401) break;
    sessionStorage.removeItem(kKeyItem);
    await askForKey(key ? 'That key is not one of this pipeline\'s: try another.'
                        : 'This pipeline was started with API keys: give one to go on.');
  }
  if (!res.ok) {
    let answer;
    try {
      answer = await res.json();
    } catch {
      answer = {message: `HTTP ${res.status} ${res.statusText}`};
    }
    throw new ApiError(res.status, answer);
  }
  return res;
}

const json = async (method, path, options) => (await request(method, path, options)).json();

// JSON of rows: a number that a JavaScript number would change (a DECIMAL's
// scale, as in 120.00, or a BIGINT beyond 2^53) is kept as its text. The
// slow path (a reviver) only for text that holds such a number.
const kChangedByNumber = /\d\.\d*0(?![\d.])|\d\.(?!\d)|\d{16}|\d[eE]/;
export function parseRow(text) {
  if (!kChangedByNumber.test(text)) return JSON.parse(text);
  return JSON.parse(text, (key, value, context) => {
    if (typeof value !== 'number' || !context || context.source === undefined) return value;
    return String(value) === context.source ? value : context.source;
  });
}

export const status = () => json('GET', '/status');
export const stats = () => json('GET', '/stats');
export const schema = () => json('GET', '/schema');
export const program = async () => (await request('GET', '/program')).text();
export const checkpoints = () => json('GET', '/checkpoints');
export const checkpointStatus = () => json('GET', '/checkpoint_status');
export const checkpoint = () => json('POST', '/checkpoint');
export const approve = () => json('POST', '/approve');
export const start = () => json('POST', '/start');
export const pause = () => json('POST', '/pause');

// action: "start", "pause" or (outputs) "reset".
export const connectorAction = (kind, name, action) =>
    json('POST', `/${kind}_endpoints/${encodeURIComponent(name)}/${action}`);

// An ad hoc query: {columns: [{name, type}], rows: [...], step}.
export async function query(sql, {signal} = {}) {
  const res = await request('POST', '/query?format=json&headers=true',
                            {body: sql, signal, contentType: 'text/plain; charset=utf-8'});
  const lines = (await res.text()).split('\n').filter(l => l.length > 0);
  const head = JSON.parse(lines.shift());
  return {columns: head.columns, step: head.step, rows: lines.map(parseRow)};
}

// The query's answer as CSV with a header line (for download).
export async function queryCsv(sql) {
  const res = await request('POST', '/query?format=csv&headers=true',
                            {body: sql, contentType: 'text/plain; charset=utf-8'});
  return res.blob();
}

// Records into a table: {token}. params: format, update_format, array, force.
export function ingest(table, body, params) {
  const q = new URLSearchParams(params).toString();
  return json('POST', `/ingress/${encodeURIComponent(table)}?${q}`, {body});
}

export const completion = token =>
    json('GET', `/completion_status?token=${encodeURIComponent(token)}`);

// Follows a relation: calls onChunk(chunk) for every chunk of
// POST /egress/{name}?mode=..., until `signal` aborts it or the stream
// ends (then resolves). Chunks are parsed JSON lines.
export async function follow(name, mode, onChunk, signal) {
  const res = await request('POST', `/egress/${encodeURIComponent(name)}?mode=${mode}`, {signal});
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  try {
    for (;;) {
      const {value, done} = await reader.read();
      if (done) break;
      pending += value;
      const lines = pending.split('\n');
      pending = lines.pop();
      let since = performance.now();
      for (const line of lines) {
        if (line.length > 0) onChunk(parseRow(line));
        // A large snapshot arrives faster than it is applied: let the page
        // draw and take input between its chunks.
        if (performance.now() - since > 50) {
          await new Promise(r => setTimeout(r, 0));
          since = performance.now();
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}
