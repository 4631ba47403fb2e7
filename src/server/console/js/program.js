// Program: the SQL, highlighted, and every table and view with its
// columns, types, key, whether it is materialized, and its connectors.
// API: GET /program, /schema, /stats (the connectors' transports).
import * as api from './api.js';
import {highlight} from './sql.js';
import {clear, el} from './util.js';

export function mount(root) {
  const sqlBox = el('pre', {class: 'sql', 'aria-label': 'the program\'s SQL', tabindex: '0'}, 'Loading…');
  const relations = el('div', {'aria-live': 'polite'});
  root.append(el('h1', {}, 'Program'),
              el('div', {class: 'two'},
                 el('section', {'aria-labelledby': 'program-sql'}, el('h2', {id: 'program-sql', style: 'margin-top:0'}, 'SQL'), sqlBox),
                 el('section', {'aria-labelledby': 'program-relations'},
                    el('h2', {id: 'program-relations', style: 'margin-top:0'}, 'Tables and views'), relations)));
  (async () => {
    try {
      sqlBox.innerHTML = highlight(await api.program());
    } catch (e) {
      sqlBox.textContent = 'The program cannot be read: ' + e.message;
    }
    let schema, stats;
    try {
      [schema, stats] = await Promise.all([api.schema(), api.stats().catch(() => null)]);
    } catch (e) {
      relations.append(el('p', {class: 'error-text'}, e.message));
      return;
    }
    const transports = new Map();
    for (const c of [...((stats && stats.inputs) || []), ...((stats && stats.outputs) || [])]) {
      transports.set(c.name, c.transport);
    }
    clear(relations);
    const card = (r, kind) => {
      const key = new Set(r.primary_key || []);
      const materialized = r.materialized;
      return el('article', {class: 'panel relation', 'data-relation': r.name},
          el('header', {},
             el('span', {class: 'name mono'}, r.name),
             el('span', {class: 'tag'}, kind),
             materialized ? el('span', {class: 'tag'}, 'materialized') : el('span', {class: 'tag'}, 'not materialized'),
             r.append_only ? el('span', {class: 'tag'}, 'append only') : null,
             materialized && kind === 'view'
                 ? el('a', {href: '#/view/' + encodeURIComponent(r.name)}, 'watch live') : null),
          el('div', {class: 'cols', role: 'table', 'aria-label': `columns of ${r.name}`},
             r.columns.map(c => [
               el('span', {class: 'mono', role: 'cell'}, c.name),
               el('span', {class: 'mono muted', role: 'cell'}, c.type),
               el('span', {role: 'cell'}, key.has(c.name) ? el('span', {class: 'tag key'}, 'primary key') : ''),
             ])),
          r.connectors.length
              ? el('p', {style: 'margin: 8px 0 0'}, el('span', {class: 'muted'}, 'Connectors: '),
                   r.connectors.map((name, i) => [i ? ', ' : '',
                     el('a', {href: '#/connectors', class: 'mono'}, name),
                     transports.has(name) ? el('span', {class: 'muted'}, ` (${transports.get(name)})`) : '']))
              : el('p', {class: 'muted', style: 'margin: 8px 0 0'},
                   kind === 'table' ? 'No connector: records come over HTTP (Ingest).' : 'No connector.'));
    };
    relations.append(...schema.tables.map(t => card(t, 'table')), ...schema.views.map(v => card(v, 'view')));
  })();
  return null;
}
