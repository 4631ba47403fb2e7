// Connectors: every input and output connector (and the tables' HTTP
// ingress and open egress streams) with health, records, bytes, queued
// records, errors with the last one's text, its host on many hosts, and
// start, pause and reset. API: GET /stats; POST
// /input_endpoints/{name}/start|pause, /output_endpoints/{name}/start|pause|reset.
import * as api from './api.js';
import {badge, bytes, count, el, fill} from './util.js';

export function mount(root, {store}) {
  const message = el('p', {role: 'status', 'aria-live': 'polite', class: 'muted'});
  const inputs = el('div', {class: 'table-wrap'});
  const outputs = el('div', {class: 'table-wrap'});
  root.append(el('h1', {}, 'Connectors'), message,
              el('h2', {}, 'Inputs'), inputs, el('h2', {}, 'Outputs'), outputs);

  let wantFocus = null;  // after start or pause, the button that undoes it
  const act = async (kind, name, action) => {
    wantFocus = action === 'pause' ? `start ${name}` : action === 'start' ? `pause ${name}` : `reset ${name}`;
    message.className = 'muted';
    message.textContent = `${action} ${name}…`;
    try {
      await api.connectorAction(kind, name, action);
      message.textContent = `${name}: ${action} done.`;
    } catch (e) {
      message.className = 'error-text';
      message.textContent = `${name}: ${action} failed: ${e.message}`;
    }
    refresh(true);
  };

  const hostCol = stats => (stats.global.hosts ? true : false);
  const buttons = (kind, c, canReset) => {
    const paused = c.paused === true;
    return el('div', {class: 'row'},
        el('button', {class: 'small', disabled: !paused, 'aria-label': `start ${c.name}`,
                      onclick: () => act(kind, c.name, 'start')}, 'Start'),
        el('button', {class: 'small', disabled: paused, 'aria-label': `pause ${c.name}`,
                      onclick: () => act(kind, c.name, 'pause')}, 'Pause'),
        canReset ? el('button', {class: 'small', 'aria-label': `reset ${c.name}`,
                                 onclick: () => act(kind, c.name, 'reset')}, 'Reset') : null);
  };
  const errorsCell = (n, last) => el('td', {class: n || last ? 'error-text' : null},
      count(n), last ? el('div', {style: 'max-width: 28em; font-size: 12px'}, last) : null);

  let lastKey = '';
  function render(stats, force) {
    const key = JSON.stringify([stats.inputs, stats.outputs]);
    if (key === lastKey && !force) return;
    lastKey = key;
    // The focused button is found again in the new rows.
    const focused = wantFocus || (document.activeElement && document.activeElement.getAttribute('aria-label'));
    const withHost = hostCol(stats);
    const numeric = new Set(['Records', 'Bytes', 'Queued']);
    const th = names => el('thead', {}, el('tr', {}, names.filter(n => n !== false).map(
        n => el('th', {scope: 'col', class: numeric.has(n) ? 'num' : null}, n))));
    fill(inputs, el('table', {class: 'data', 'aria-label': 'input connectors'},
        th(['Name', 'Table', 'Transport', withHost && 'Host', 'Health', 'Records', 'Bytes', 'Queued',
            'Errors (last)', 'State', '']),
        el('tbody', {}, stats.inputs.map(c => {
          const http = c.transport === 'http_input';
          return el('tr', {'data-connector': c.name},
              el('td', {class: 'mono'}, c.name), el('td', {class: 'mono'}, c.table),
              el('td', {}, c.transport), withHost ? el('td', {}, c.host ?? 'any') : null,
              el('td', {}, badge(c.health)), el('td', {class: 'num'}, count(c.records)),
              el('td', {class: 'num'}, bytes(c.bytes)), el('td', {class: 'num'}, count(c.queued_records)),
              errorsCell(c.parse_errors + c.transport_errors, c.last_error),
              el('td', {}, http ? (c.requests !== undefined ? `${count(c.requests)} requests` : '')
                                : [c.paused ? 'paused' : 'running', c.end_of_input ? ', end of input' : '']),
              el('td', {}, http ? '' : buttons('input', c, false)));
        }))));
    fill(outputs, el('table', {class: 'data', 'aria-label': 'output connectors'},
        th(['Name', 'View', 'Transport', withHost && 'Host', 'Health', 'Records', 'Bytes', 'Queued',
            'Errors (last)', 'State', '']),
        el('tbody', {}, stats.outputs.map(c => {
          const stream = c.records === undefined;  // an HTTP egress stream
          return el('tr', {'data-connector': c.name},
              el('td', {class: 'mono'}, c.name), el('td', {class: 'mono'}, c.view),
              el('td', {}, stream ? 'HTTP egress stream' : c.transport),
              withHost ? el('td', {}, c.host ?? '') : null,
              el('td', {}, c.health ? badge(c.health) : ''), el('td', {class: 'num'}, count(c.records)),
              el('td', {class: 'num'}, bytes(c.bytes)), el('td', {class: 'num'}, count(c.queued_records)),
              errorsCell(c.transport_errors, c.last_error),
              el('td', {}, stream ? '' : c.paused ? 'paused' : 'running'),
              el('td', {}, stream ? '' : buttons('output', c, true)));
        }))));
    if (focused) {
      const again = root.querySelector(`button[aria-label="${CSS.escape(focused)}"]`);
      if (again && !again.disabled) {
        again.focus();
        wantFocus = null;
      }
    }
  }

  async function refresh(force) {
    try {
      render(await api.stats(), force);
    } catch (e) {
      message.className = 'error-text';
      message.textContent = e.message;
    }
  }
  // Keyboard focus stays on a button across refreshes: redraw only on change.
  const listener = () => {
    const s = store.samples[store.samples.length - 1];
    if (s) render(s.stats, false);
  };
  store.listeners.add(listener);
  refresh(true);
  return () => store.listeners.delete(listener);
}
