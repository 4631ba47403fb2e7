// The console's shell: the page router (#/overview, #/view/NAME, ...), the
// pipeline's state in the header, and the samples of /stats that the
// overview's charts draw (kept while other pages are open).
import * as api from './api.js';
import {clear, el, fill} from './util.js';
import * as overview from './overview.js';
import * as programPage from './program.js';
import * as connectors from './connectors.js';
import * as views from './views.js';
import * as queryPage from './query.js';
import * as ingestPage from './ingest.js';

const PAGES = {
  overview, program: programPage, connectors, views, view: views, query: queryPage,
  ingest: ingestPage,
};

// What every page shares: the latest /status, and samples of /stats.
export const store = {
  status: null,
  statusError: null,
  samples: [],       // [{t, stats, stepsPerSec, inPerSec, outPerSec, latencyMs, rss, storage}]
  windowMs: 5 * 60 * 1000,
  listeners: new Set(),
  notify() {
    for (const f of this.listeners) f();
  },
};

function recordsOut(stats) {
  let n = 0;
  for (const o of stats.outputs || []) n += o.records || 0;
  return n;
}

async function sample() {
  try {
    const stats = await api.stats();
    const t = performance.now();
    const prev = store.samples[store.samples.length - 1];
    const s = {t, stats, rss: stats.global.rss_bytes, storage: stats.global.storage_bytes};
    if (prev) {
      const dt = (t - prev.t) / 1000;
      const g = stats.global, pg = prev.stats.global;
      const steps = g.step - pg.step;
      s.stepsPerSec = Math.max(0, steps) / dt;
      s.inPerSec = Math.max(0, g.processed_records - pg.processed_records) / dt;
      s.outPerSec = Math.max(0, recordsOut(stats) - recordsOut(prev.stats)) / dt;
      // The mean step's time over the interval; none ran: no figure.
      s.latencyMs = steps > 0 ? (g.step_usecs - pg.step_usecs) / steps / 1000 : null;
    }
    store.samples.push(s);
    while (store.samples.length > 0 && store.samples[0].t < t - store.windowMs - 5000) {
      store.samples.shift();
    }
  } catch (e) {
    // The status poll reports an unreachable pipeline.
  }
}

async function pollStatus() {
  try {
    store.status = await api.status();
    store.statusError = null;
  } catch (e) {
    store.statusError = e;
  }
  const badge = document.getElementById('state-badge');
  const step = document.getElementById('state-step');
  const banner = document.getElementById('banner');
  if (store.statusError) {
    badge.textContent = 'Unreachable';
    badge.className = 'badge Unreachable';
    step.textContent = '';
    banner.hidden = false;
    banner.className = 'bad';
    banner.textContent = 'The pipeline does not answer: ' + store.statusError.message;
  } else {
    const st = store.status;
    badge.textContent = st.state;
    badge.className = 'badge ' + st.state;
    step.textContent = `step ${st.step}` + (st.hosts ? ` · ${st.hosts.length} hosts` : '');
    banner.hidden = st.state !== 'Failed' && st.state !== 'AwaitingApproval';
    banner.className = st.state === 'Failed' ? 'bad' : 'warn';
    if (st.state === 'Failed') banner.textContent = 'The pipeline failed: ' + (st.error || '');
    if (st.state === 'AwaitingApproval') {
      fill(banner, 'The pipeline waits for approval before it rebuilds what changed: ',
                           el('a', {href: '#/overview'}, 'review on the overview'), '.');
    }
  }
}

// Once a second; a slow answer (a host of many that does not answer takes
// seconds) delays the next poll rather than piling polls up.
async function tick() {
  const started = performance.now();
  await Promise.all([pollStatus(), sample()]);
  store.notify();
  setTimeout(tick, Math.max(0, 1000 - (performance.now() - started)));
}

let current = null;  // {name, unmount}

async function route() {
  const hash = location.hash.startsWith('#/') ? location.hash : '#/overview';
  const [, name = 'overview', ...rest] = hash.split('/');
  const page = PAGES[name] ? name : 'overview';
  const arg = rest.length ? decodeURIComponent(rest.join('/')) : null;
  if (current && current.unmount) current.unmount();
  for (const a of document.querySelectorAll('#nav a')) {
    const active = a.dataset.page === (page === 'view' ? 'views' : page);
    if (active) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const main = clear(document.getElementById('main'));
  const unmount = PAGES[page].mount(main, {store, arg, page});
  current = {name: page, unmount};
  document.title = `Sluice · ${page === 'view' && arg ? arg : page}`;
}

window.addEventListener('hashchange', () => {
  route();
  document.getElementById('main').focus({preventScroll: true});
});
// "Skip to content" moves the focus; it must not change the page.
document.querySelector('a.skip').addEventListener('click', e => {
  e.preventDefault();
  document.getElementById('main').focus();
});
route();
tick();
