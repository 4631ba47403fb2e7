// Ingest: paste or upload JSON or CSV records into a table; the answer's
// token is followed until the records are processed (the step that took
// them), and a request with bad records lists each one's error (none of
// its records is ingested then). API: GET /schema; POST /ingress/{table};
// GET /completion_status.
import * as api from './api.js';
import {el, fill} from './util.js';

let saved = {table: '', format: 'json', updateFormat: 'insert_delete', text: ''};

function example(table, format) {
  const sample = c => {
    const t = c.type.toUpperCase();
    if (/INT|DECIMAL|NUMERIC|REAL|DOUBLE|FLOAT/.test(t)) return 1;
    if (/BOOL/.test(t)) return true;
    if (/TIMESTAMP/.test(t)) return '2026-01-01 12:00:00';
    if (/DATE/.test(t)) return '2026-01-01';
    if (/TIME/.test(t)) return '12:00:00';
    return 'text';
  };
  if (format === 'csv') return table.columns.map(c => String(sample(c))).join(',') + '\n';
  const row = {};
  for (const c of table.columns) row[c.name] = sample(c);
  return JSON.stringify({insert: row}) + '\n';
}

export function mount(root, {store}) {
  let unmounted = false;
  const tableInput = el('input', {id: 'ingest-table', list: 'ingest-tables', autocomplete: 'off',
                                  value: saved.table, required: true});
  const datalist = el('datalist', {id: 'ingest-tables'});
  const formatSelect = el('select', {id: 'ingest-format'},
                          ['json', 'csv'].map(f => el('option', {value: f, selected: f === saved.format}, f.toUpperCase())));
  const updateSelect = el('select', {id: 'ingest-update-format'},
                          [['insert_delete', '{"insert": row} / {"delete": row} / {"update": row}'], ['raw', 'a row per record, inserted']]
                              .map(([v, t]) => el('option', {value: v, selected: v === saved.updateFormat}, t)));
  const forceBox = el('input', {type: 'checkbox', id: 'ingest-force'});
  const textarea = el('textarea', {id: 'ingest-records', class: 'code', rows: '12', spellcheck: 'false',
                                   style: 'width: 100%', 'aria-describedby': 'ingest-columns'});
  textarea.value = saved.text;
  const fileInput = el('input', {type: 'file', id: 'ingest-file', accept: '.json,.jsonl,.ndjson,.csv,.txt'});
  const sendButton = el('button', {class: 'primary', id: 'ingest-send'}, 'Send');
  const exampleButton = el('button', {type: 'button', id: 'ingest-example'}, 'Insert an example record');
  const columnsHelp = el('p', {id: 'ingest-columns', class: 'muted mono', style: 'margin-bottom: 0'});
  const result = el('div', {id: 'ingest-result', 'aria-live': 'polite'});
  let file = null;
  let tables = [];

  const form = el('form', {class: 'panel stack', 'aria-label': 'records to ingest'},
      el('div', {class: 'row'},
         el('label', {class: 'field', for: 'ingest-table'}, 'Table', tableInput), datalist,
         el('label', {class: 'field', for: 'ingest-format'}, 'Format', formatSelect),
         el('label', {class: 'field', for: 'ingest-update-format', id: 'ingest-update-label'}, 'JSON records', updateSelect),
         el('label', {style: 'align-self: end'}, forceBox, ' queue even while the pipeline is paused')),
      columnsHelp,
      el('label', {for: 'ingest-records', class: 'muted'}, 'Records, one a line'),
      textarea,
      el('div', {class: 'row'},
         el('label', {for: 'ingest-file', class: 'muted'}, 'or a file: '), fileInput,
         exampleButton, el('span', {style: 'margin-left: auto'}), sendButton));
  root.append(el('h1', {}, 'Ingest'), form, result);

  const describe = () => {
    const t = tables.find(x => x.name.toLowerCase() === tableInput.value.trim().toLowerCase());
    const fmt = formatSelect.value;
    document.getElementById('ingest-update-label').hidden = fmt !== 'json';
    columnsHelp.textContent = t
        ? `${t.name} (${t.columns.map(c => `${c.name} ${c.type}`).join(', ')})` +
          (t.primary_key && t.primary_key.length ? `, primary key (${t.primary_key.join(', ')})` : '') +
          (fmt === 'csv' ? ': CSV fields in this order, and an optional weight (1 inserts, -1 deletes)' : '')
        : '';
    saved = {table: tableInput.value, format: fmt, updateFormat: updateSelect.value, text: textarea.value};
  };
  for (const e of [tableInput, formatSelect, updateSelect, textarea]) e.addEventListener('input', describe);
  formatSelect.addEventListener('change', describe);

  fileInput.addEventListener('change', async () => {
    file = fileInput.files[0] || null;
    if (!file) return;
    if (/\.csv$/i.test(file.name)) formatSelect.value = 'csv';
    if (file.size <= 1 << 20) {
      // Small files are shown, and can be edited before they are sent.
      textarea.value = await file.text();
      file = null;
      fileInput.value = '';
    } else {
      textarea.value = '';
      textarea.placeholder = `${file.name} (${file.size} bytes) is sent as it is`;
    }
    describe();
  });

  exampleButton.addEventListener('click', () => {
    const t = tables.find(x => x.name.toLowerCase() === tableInput.value.trim().toLowerCase());
    if (!t) {
      fill(result, el('p', {class: 'error-text'}, 'Pick a table first.'));
      return;
    }
    textarea.value += example(t, formatSelect.value);
    describe();
  });

  let sending = false;
  form.addEventListener('submit', async e => {
    e.preventDefault();
    // The button stays enabled (a disabled button loses the keyboard's
    // focus); a second submit while one is under way does nothing.
    if (sending) return;
    const table = tableInput.value.trim();
    const body = file || textarea.value;
    const params = {format: formatSelect.value};
    if (formatSelect.value === 'json') params.update_format = updateSelect.value;
    if (forceBox.checked) params.force = 'true';
    sending = true;
    sendButton.setAttribute('aria-busy', 'true');
    const waiting = el('p', {class: 'muted'}, 'Sending…');
    fill(result, waiting);
    const pausedHint = setInterval(() => {
      if (unmounted) clearInterval(pausedHint);
      if (store.status && store.status.state === 'Paused') {
        waiting.textContent = 'The pipeline is paused: the request waits until it starts again ' +
                              '(or tick "queue even while the pipeline is paused").';
      }
    }, 500);
    try {
      const {token} = await api.ingest(table, body, params);
      clearInterval(pausedHint);
      const line = el('p', {id: 'ingest-status'}, `Accepted: token ${token}. Processing…`);
      fill(result, line);
      for (;;) {
        const c = await api.completion(token);
        if (c.status === 'complete') {
          line.className = 'ok-text';
          line.textContent = `Complete: token ${token}, processed by step ${c.step}.` +
              (c.ignored_deletes ? ` Deletes that found no row: ${JSON.stringify(c.ignored_deletes)}.` : '');
          break;
        }
        if (c.status === 'lost') {
          line.className = 'error-text';
          line.textContent = c.message;
          break;
        }
        line.textContent = `Accepted: token ${token}. In progress at step ${c.step}` +
            (store.status && store.status.state === 'Paused' ? ' (the pipeline is paused).' : '…');
        if (unmounted) break;
        await new Promise(r => setTimeout(r, 150));
      }
    } catch (err) {
      clearInterval(pausedHint);
      const errors = (err.details && err.details.errors) || [];
      fill(result, el('pre', {class: 'error', id: 'ingest-error', role: 'alert'}, err.message));
      if (errors.length) {
        result.append(el('div', {class: 'table-wrap', style: 'margin-top: 10px'},
            el('table', {class: 'data', 'aria-label': 'records that could not be read', id: 'ingest-errors'},
               el('thead', {}, el('tr', {}, ['Record', 'Line', 'Column', 'Reason'].map(h => el('th', {scope: 'col'}, h)))),
               el('tbody', {}, errors.map(r => el('tr', {},
                   el('td', {class: 'num'}, r.record), el('td', {class: 'num'}, r.line),
                   el('td', {class: 'num'}, r.column), el('td', {}, r.reason)))))));
        if (err.details.error_count > errors.length) {
          result.append(el('p', {class: 'muted'}, `and ${err.details.error_count - errors.length} more`));
        }
      }
    } finally {
      sending = false;
      sendButton.removeAttribute('aria-busy');
    }
  });

  api.schema().then(s => {
    tables = s.tables;
    datalist.append(...tables.map(t => el('option', {value: t.name})));
    if (!tableInput.value && tables.length) tableInput.value = tables[0].name;
    describe();
  }).catch(e => result.append(el('p', {class: 'error-text'}, e.message)));
  return () => {
    unmounted = true;
  };
}
