// Query: an editor for ad hoc SQL over the materialized tables and views
// (Ctrl+Enter runs it), the answer as a table, the error with its line and
// a caret under the place on bad SQL, and the answer as a CSV file.
// API: POST /query?format=json&headers=true, POST /query?format=csv&headers=true.
import * as api from './api.js';
import {highlight} from './sql.js';
import {count, dataTable, el, fill} from './util.js';

const kShownRows = 1000;
const kHistory = 'sluice.console.queries';  // the last queries that ran, in this browser
let savedSql = null;  // kept while the console is open

function history() {
  try {
    return JSON.parse(localStorage.getItem(kHistory)) || [];
  } catch {
    return [];
  }
}

function remember(sql) {
  const list = [sql, ...history().filter(s => s !== sql)].slice(0, 20);
  try {
    localStorage.setItem(kHistory, JSON.stringify(list));
  } catch {
    // Storage may be off (a private window): no history then.
  }
}

export function mount(root) {
  const pre = el('pre', {'aria-hidden': 'true'});
  const textarea = el('textarea', {id: 'query-sql', spellcheck: 'false', autocapitalize: 'off',
                                   'aria-describedby': 'query-help'});
  const editor = el('div', {class: 'editor'}, pre, textarea);
  const runButton = el('button', {class: 'primary', id: 'query-run'}, 'Run');
  const csvButton = el('button', {id: 'query-csv'}, 'Download CSV');
  const result = el('div', {id: 'query-result', 'aria-live': 'polite'});
  const recent = el('select', {id: 'query-recent', style: 'max-width: 30em'});
  const fillRecent = () => {
    const list = history();
    fill(recent, el('option', {value: ''}, list.length ? 'Recent queries…' : 'No recent queries'),
         list.map((sql, i) => el('option', {value: String(i)}, sql.replace(/\s+/g, ' ').slice(0, 90))));
    recent.disabled = list.length === 0;
  };
  fillRecent();
  recent.addEventListener('change', () => {
    const sql = history()[Number(recent.value)];
    if (recent.value !== '' && sql !== undefined) {
      textarea.value = sql;
      savedSql = sql;
      errorLine = null;
      paint();
      textarea.focus();
    }
    recent.value = '';
  });
  root.append(
      el('h1', {}, 'Query'),
      el('label', {for: 'query-sql', class: 'muted'}, 'SQL over the materialized tables and views, read at one step'),
      editor,
      el('div', {class: 'row', style: 'margin: 10px 0'}, runButton, csvButton,
         el('span', {id: 'query-help', class: 'muted'}, 'Ctrl+Enter runs the query.'),
         el('span', {style: 'margin-left: auto'}),
         el('label', {for: 'query-recent', class: 'muted'}, 'Again:'), recent),
      result);

  let errorLine = null;
  const paint = () => {
    // A trailing newline needs a character after it to take its height.
    pre.innerHTML = highlight(textarea.value, {errorLine}) + '\n ';
  };
  textarea.addEventListener('input', () => {
    errorLine = null;
    savedSql = textarea.value;
    paint();
  });
  textarea.addEventListener('keydown', e => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      run();
    }
  });

  let running = false;
  async function run() {
    // The button stays enabled while a query runs: a disabled button loses
    // the keyboard's focus.
    if (running) return;
    running = true;
    runButton.setAttribute('aria-busy', 'true');
    const sql = textarea.value;
    fill(result, el('p', {class: 'muted'}, 'Running…'));
    const started = performance.now();
    try {
      const r = await api.query(sql);
      const ms = Math.round(performance.now() - started);
      remember(sql);
      fillRecent();
      errorLine = null;
      paint();
      fill(result,
          el('p', {class: 'muted', id: 'query-summary'},
             `${count(r.rows.length)} ${r.rows.length === 1 ? 'row' : 'rows'} at step ${r.step}, in ${ms} ms` +
             (r.rows.length > kShownRows ? ` (the first ${count(kShownRows)} shown; the CSV has all)` : '')),
          el('div', {class: 'table-wrap'}, dataTable(r.columns, r.rows.slice(0, kShownRows), {label: 'query result'})));
    } catch (e) {
      const {line, column} = e.details || {};
      errorLine = line || null;
      paint();
      fill(result, el('pre', {class: 'error', id: 'query-error', role: 'alert'}, e.message));
      if (line && column) {
        // Put the cursor where the error is.
        const lines = sql.split('\n');
        let offset = 0;
        for (let i = 0; i < line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
        offset += column - 1;
        textarea.focus();
        textarea.setSelectionRange(offset, offset);
      }
    } finally {
      running = false;
      runButton.removeAttribute('aria-busy');
    }
  }

  async function download() {
    try {
      const blob = await api.queryCsv(textarea.value);
      const url = URL.createObjectURL(blob);
      const a = el('a', {href: url, download: 'query.csv'});
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10000);
    } catch (e) {
      fill(result, el('pre', {class: 'error', role: 'alert'}, e.message));
    }
  }

  runButton.addEventListener('click', run);
  csvButton.addEventListener('click', download);
  textarea.value = savedSql ?? '';
  paint();
  if (savedSql === null) {
    // A first query to start from: the first materialized view.
    api.schema().then(s => {
      if (textarea.value !== '') return;
      const v = s.views.find(x => x.materialized) || s.tables.find(x => x.materialized);
      if (v) {
        textarea.value = `SELECT *\nFROM ${v.name}\nLIMIT 100`;
        paint();
      }
    }).catch(() => {});
  }
  textarea.focus();
  return null;
}
