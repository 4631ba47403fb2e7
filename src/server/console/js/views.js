// Views: pick a materialized view (or table); the page follows it with
// POST /egress/{name}?mode=snapshot_and_follow and keeps the table current
// in place as changes arrive: inserted rows flash, deleted rows fade out.
// The step of the snapshot and of the latest change are shown. Large
// relations: a page of rows at a time, sorting only up to kSortLimit rows,
// and at most `limit` distinct rows kept in the browser (the count stays
// exact). API: GET /schema; POST /egress/{name}.
import * as api from './api.js';
import {cellText, count, el, fill, isNumericType} from './util.js';

const kFlashMs = 1500;     // how long an inserted row stays marked
const kFadeMs = 1500;      // how long a deleted row stays, fading
const kSortLimit = 50000;  // beyond this many rows, arrival order
const kDefaultLimit = 200000;

export function mount(root, {arg}) {
  if (!arg) return mountList(root);
  return mountLive(root, arg);
}

function mountList(root) {
  const body = el('tbody');
  root.append(el('h1', {}, 'Views'),
              el('p', {class: 'muted'}, 'Pick a materialized view or table to watch it live: its contents now, then every change as it happens.'),
              el('div', {class: 'table-wrap'}, el('table', {class: 'data', 'aria-label': 'tables and views'},
                  el('thead', {}, el('tr', {}, ['Name', 'Kind', 'Columns'].map(h => el('th', {scope: 'col'}, h)))),
                  body)));
  api.schema().then(schema => {
    const row = (r, kind) => el('tr', {},
        el('td', {}, r.materialized
            ? el('a', {href: '#/view/' + encodeURIComponent(r.name), class: 'mono'}, r.name)
            : el('span', {class: 'mono'}, r.name)),
        el('td', {}, kind, r.materialized ? '' : el('span', {class: 'muted'}, ', not materialized: no snapshot to watch')),
        el('td', {class: 'mono muted'}, r.columns.map(c => c.name).join(', ')));
    body.append(...schema.views.map(v => row(v, 'view')), ...schema.tables.map(t => row(t, 'table')));
  }).catch(e => body.append(el('tr', {}, el('td', {class: 'error-text', colspan: '3'}, e.message))));
  return null;
}

// Rows of a relation as the snapshot and the changes leave it: each
// distinct row (its JSON) with its count.
class LiveRows {
  constructor(limit) {
    this.limit = limit;
    this.rows = new Map();  // json -> {values, count, insertedAt, deletedAt}, oldest first
    this.kept = 0;          // entries of `rows` not deleted
    this.total = 0;         // the relation's row count (exact)
    this.dropped = 0;       // rows not kept (over the limit)
    this.version = 0;       // bumps on every change, for the sorted order's cache
  }

  apply(records, now, flash) {
    for (const r of records) {
      if (r.insert !== undefined) this.change(r.insert, +1, now, flash);
      else if (r.delete !== undefined) this.change(r.delete, -1, now, flash);
    }
    this.version++;
  }

  change(values, weight, now, flash) {
    const key = JSON.stringify(values);
    const e = this.rows.get(key);
    this.total += weight;
    if (e) {
      if (e.count <= 0 && weight > 0) this.kept++;
      e.count += weight;
      if (weight > 0) {
        e.deletedAt = 0;
        if (flash) e.insertedAt = now;
      } else if (e.count <= 0 && !e.deletedAt) {
        e.deletedAt = now;
        e.insertedAt = 0;
        this.kept--;
      }
    } else if (weight > 0) {
      if (this.kept >= this.limit) {
        // Over the limit, the snapshot's further rows are counted only; a
        // change takes the place of the oldest row, so changes always show.
        if (!flash || !this.evictOldest()) {
          this.dropped++;
          return;
        }
      }
      this.rows.set(key, {values, count: 1, insertedAt: flash ? now : 0, deletedAt: 0});
      this.kept++;
    } else if (this.dropped > 0) {
      this.dropped--;
    }
  }

  evictOldest() {
    for (const [key, e] of this.rows) {
      if (e.deletedAt) continue;
      this.rows.delete(key);
      this.kept--;
      this.dropped += e.count;
      return true;
    }
    return false;
  }

  // Drops the rows that finished fading; true if any row still flashes or fades.
  sweep(now) {
    let active = false;
    for (const [key, e] of this.rows) {
      if (e.deletedAt && now - e.deletedAt > kFadeMs) {
        this.rows.delete(key);
        this.version++;
      } else if (e.deletedAt || (e.insertedAt && now - e.insertedAt < kFlashMs)) {
        active = true;
      }
    }
    return active;
  }
}

function compareValues(a, b) {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = typeof a === 'object' ? JSON.stringify(a) : String(a);
  const y = typeof b === 'object' ? JSON.stringify(b) : String(b);
  // Decimals come as numbers or numeric strings: compare them as numbers.
  const nx = Number(x), ny = Number(y);
  if (x !== '' && y !== '' && !Number.isNaN(nx) && !Number.isNaN(ny)) return nx - ny;
  return x < y ? -1 : x > y ? 1 : 0;
}

function mountLive(root, name) {
  // Not a live region: it changes with every step; the count is announced on request.
  const info = el('div', {class: 'row', id: 'live-status', style: 'margin-bottom: 4px'}, 'Connecting…');
  const pager = el('div', {class: 'pager'});
  const tableWrap = el('div', {class: 'table-wrap'});
  const limitInput = el('input', {type: 'number', min: '1000', step: '1000', value: String(kDefaultLimit),
                                  id: 'live-limit', style: 'width: 9em'});
  const pageSizeSelect = el('select', {id: 'live-page-size'},
                            [50, 100, 500, 1000].map(n => el('option', {value: n, selected: n === 100}, String(n))));
  const pagerButtons = el('div', {class: 'row'});
  pager.append(pagerButtons, el('span', {style: 'margin-left: auto'}),
               el('label', {for: 'live-page-size'}, 'Rows per page'), pageSizeSelect,
               el('label', {for: 'live-limit', title: 'rows kept in the browser; the count stays exact'}, 'Keep at most'),
               limitInput);
  root.append(
      el('h1', {}, el('a', {href: '#/views'}, 'Views'), ' / ', el('span', {class: 'mono'}, name)),
      info, pager, tableWrap);

  let columns = null;
  let live = new LiveRows(kDefaultLimit);
  let snapshotStep = null, lastStep = null, lastChangeStep = null, inSnapshot = true;
  let sortBy = null, sortDesc = false;  // null: every column in order
  let page = 0;
  let error = null, ended = false;
  let sorted = null, sortedVersion = -1, sortedKey = '';

  const orderedRows = () => {
    const key = JSON.stringify([sortBy, sortDesc]);
    if (sorted && sortedVersion === live.version && sortedKey === key) return sorted;
    const entries = Array.from(live.rows.values());
    if (entries.length <= kSortLimit && columns) {
      const cols = sortBy === null ? columns.map(c => c.name) : [sortBy];
      entries.sort((a, b) => {
        for (const c of cols) {
          const d = compareValues(a.values[c], b.values[c]);
          if (d !== 0) return sortDesc ? -d : d;
        }
        return 0;
      });
    }
    sorted = entries;
    sortedVersion = live.version;
    sortedKey = key;
    return sorted;
  };

  const setSort = c => {
    if (sortBy === c) sortDesc = !sortDesc;
    else {
      sortBy = c;
      sortDesc = false;
    }
    schedule();
  };

  let frame = 0, lastDraw = 0;
  const schedule = () => {
    if (frame) return;
    // At most ten redraws a second, however fast changes arrive.
    const wait = Math.max(0, 100 - (performance.now() - lastDraw));
    frame = setTimeout(() => requestAnimationFrame(draw), wait);
  };

  function draw() {
    frame = 0;
    lastDraw = performance.now();
    const now = Date.now();
    const active = live.sweep(now);
    const pageSize = Number(pageSizeSelect.value);
    const rows = orderedRows();
    const pages = Math.max(1, Math.ceil(rows.length / pageSize));
    if (page >= pages) page = pages - 1;
    const first = page * pageSize;
    const shown = rows.slice(first, first + pageSize);
    fill(info,
        error ? el('span', {class: 'error-text'}, error)
              : ended ? el('span', {class: 'muted'}, 'The stream ended.')
              : el('span', {}, el('span', {class: 'dot'}), inSnapshot ? 'Reading the snapshot…' : 'Live'),
        error || ended ? el('button', {class: 'small', id: 'live-again', onclick: followAgain}, 'Follow again') : null,
        el('span', {class: 'muted'}, snapshotStep === null ? '' : `snapshot at step ${snapshotStep}`),
        el('span', {id: 'live-step'}, lastStep === null ? '' : `step ${lastStep}`),
        lastChangeStep !== null ? el('span', {class: 'muted'}, `last change at step ${lastChangeStep}`) : null,
        el('span', {id: 'live-count'}, `${count(live.total)} rows`),
        live.dropped > 0 ? el('span', {class: 'muted'}, `(the ${count(live.kept)} latest kept: over the limit)`) : null,
        rows.length > kSortLimit ? el('span', {class: 'muted'}, '(too many to sort: in arrival order)') : null);
    fill(pagerButtons,
        el('button', {class: 'small', disabled: page === 0, onclick: () => { page = 0; schedule(); }}, 'First'),
        el('button', {class: 'small', disabled: page === 0, onclick: () => { page--; schedule(); }}, 'Previous'),
        el('span', {}, rows.length ? `Rows ${count(first + 1)}–${count(first + shown.length)} of ${count(rows.length)}` : 'No rows'),
        el('button', {class: 'small', disabled: page >= pages - 1, onclick: () => { page++; schedule(); }}, 'Next'),
        el('button', {class: 'small', disabled: page >= pages - 1, onclick: () => { page = pages - 1; schedule(); }}, 'Last'));
    if (!columns) return;
    const focused = document.activeElement && document.activeElement.dataset
        ? document.activeElement.dataset.sort : undefined;
    const sortable = rows.length <= kSortLimit;
    const head = el('tr', {}, columns.map(c => el('th', {
        scope: 'col', class: isNumericType(c.type) ? 'num' : null,
        'aria-sort': sortable && sortBy === c.name ? (sortDesc ? 'descending' : 'ascending') : null},
      el('button', {class: 'sort', 'data-sort': c.name, disabled: !sortable,
                    title: sortable ? `${c.type}: sort by it` : `${c.type} (too many rows to sort)`,
                    onclick: () => setSort(c.name)},
         c.name, sortable && sortBy === c.name ? (sortDesc ? ' ▼' : ' ▲') : ''))));
    const body = el('tbody', {}, shown.map(e => {
      const age = e.insertedAt ? now - e.insertedAt : Infinity;
      const tr = el('tr', {class: e.deletedAt ? 'deleted' : age < kFlashMs ? 'inserted' : null},
          columns.map(c => {
            const v = e.values[c.name];
            return el('td', {class: v === null || v === undefined ? 'null' : isNumericType(c.type) ? 'num' : null},
                      cellText(v));
          }));
      if (age < kFlashMs) {
        tr.style.backgroundColor = `color-mix(in srgb, var(--flash) ${Math.round(100 * (1 - age / kFlashMs))}%, transparent)`;
      }
      if (e.count > 1) tr.title = `${e.count} copies`;
      return tr;
    }));
    fill(tableWrap, el('table', {class: 'data', 'aria-label': `rows of ${name}`, id: 'live-table'},
                               el('thead', {}, head), body));
    if (focused !== undefined) {
      const b = tableWrap.querySelector(`button[data-sort="${CSS.escape(focused)}"]`);
      if (b) b.focus();
    }
    if (active) schedule();
  }

  pageSizeSelect.addEventListener('change', () => { page = 0; schedule(); });

  function onChunk(chunk) {
    if (chunk.error) {
      error = `${chunk.error.error_code}: ${chunk.error.message}`;
    } else {
      lastStep = chunk.step;
      if (chunk.heartbeat) {
        if (snapshotStep !== null) inSnapshot = false;
      } else if (chunk.snapshot) {
        snapshotStep = chunk.step;
        live.apply(chunk.json_data || [], Date.now(), false);
      } else {
        inSnapshot = false;
        lastChangeStep = chunk.step;
        live.apply(chunk.json_data || [], Date.now(), true);
      }
    }
    schedule();
  }

  let current = new AbortController();
  function follow() {
    current.abort();
    current = new AbortController();
    error = null;
    ended = false;
    api.follow(name, 'snapshot_and_follow', onChunk, current.signal)
        .then(() => { ended = true; schedule(); })
        .catch(e => {
          if (e.name === 'AbortError') return;
          error = e.message;
          schedule();
        });
  }

  // From a new snapshot: after the stream ended or failed (the pipeline
  // restarted, or the page fell too far behind), or with another limit.
  function followAgain() {
    const n = Math.max(1000, Number(limitInput.value) || kDefaultLimit);
    live = new LiveRows(n);
    snapshotStep = lastStep = lastChangeStep = null;
    inSnapshot = true;
    follow();
    schedule();
  }
  limitInput.addEventListener('change', followAgain);

  api.schema().then(schema => {
    const r = [...schema.views, ...schema.tables].find(x => x.name === name);
    if (!r) throw new Error(`there is no table or view ${name}`);
    columns = r.columns;
    follow();
    schedule();
  }).catch(e => {
    error = e.message;
    schedule();
  });
  return () => {
    current.abort();
    clearTimeout(frame);
  };
}
