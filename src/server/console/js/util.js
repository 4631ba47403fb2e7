// Small helpers shared by the pages: building elements, formatting figures.

// el('div', {class: 'panel', onclick: f}, child, 'text', ...): an element.
// Attributes starting with "on" are listeners; null and false ones are
// left out; children may be nodes, strings, numbers or arrays of them.
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k === 'html') e.innerHTML = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  append(e, children);
  return e;
}

function append(e, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(e, c);
    else e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(e) {
  while (e.firstChild) e.removeChild(e.firstChild);
  return e;
}

// Replaces the children of `e` (null and false ones are left out, as in el).
export function fill(e, ...children) {
  clear(e);
  append(e, children);
  return e;
}

const numberFormat = new Intl.NumberFormat('en-US', {maximumFractionDigits: 1});
const integerFormat = new Intl.NumberFormat('en-US', {maximumFractionDigits: 0});

export function count(n) {
  return n === null || n === undefined ? '–' : integerFormat.format(n);
}

// A rate or small figure: one decimal below 100, none above.
export function rate(n) {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return n < 100 ? numberFormat.format(n) : integerFormat.format(n);
}

export function bytes(n) {
  if (n === null || n === undefined) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return (i === 0 ? integerFormat : numberFormat).format(n) + ' ' + units[i];
}

export function millis(ms) {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms > 0 && ms < 1) return numberFormat.format(ms * 1000) + ' µs';
  if (ms < 1000) return numberFormat.format(ms) + ' ms';
  return numberFormat.format(ms / 1000) + ' s';
}

export function duration(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 60) return s + ' s';
  if (s < 3600) return Math.floor(s / 60) + ' min ' + (s % 60) + ' s';
  return Math.floor(s / 3600) + ' h ' + Math.floor((s % 3600) / 60) + ' min';
}

// A badge for a state or health ("Running", "Healthy", ...).
export function badge(text) {
  return el('span', {class: 'badge ' + text}, text);
}

// A SQL value as a table cell shows it.
export function cellText(v) {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

// Whether a SQL type's values are right-aligned.
export function isNumericType(type) {
  return /^(TINYINT|SMALLINT|INTEGER|INT|BIGINT|DECIMAL|NUMERIC|REAL|DOUBLE|FLOAT)/i.test(type || '');
}

// A table of `rows` (objects) under `columns` ([{name, type}]).
export function dataTable(columns, rows, {label} = {}) {
  const head = el('tr', {}, columns.map(c =>
      el('th', {scope: 'col', class: isNumericType(c.type) ? 'num' : null, title: c.type}, c.name)));
  const body = el('tbody');
  for (const r of rows) {
    body.append(el('tr', {}, columns.map(c => {
      const v = r[c.name];
      return el('td', {class: v === null ? 'null' : isNumericType(c.type) ? 'num' : null}, cellText(v));
    })));
  }
  return el('table', {class: 'data', 'aria-label': label}, el('thead', {}, head), body);
}
