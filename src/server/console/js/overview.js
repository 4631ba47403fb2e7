// Overview: the pipeline's state (with Approve when a changed program waits
// for it, and the error when it failed), live figures and charts of the
// last minutes from /stats, the last checkpoint, and on many hosts a row
// per host. API: GET /status, /stats, /checkpoints, /checkpoint_status;
// POST /start, /pause, /approve, /checkpoint.
import * as api from './api.js';
import {Chart} from './chart.js';
import {badge, bytes, clear, fill, count, duration, el, millis, rate} from './util.js';

export function mount(root, {store}) {
  const stateBox = el('div', {class: 'panel stack', id: 'overview-state'});
  const tiles = el('div', {class: 'grid', id: 'overview-tiles'});
  const charts = [
    new Chart('Steps per second', [{label: 'steps/s', color: '--chart-1', value: s => s.stepsPerSec}],
              rate, store.windowMs),
    new Chart('Records per second',
              [{label: 'in', color: '--chart-1', value: s => s.inPerSec},
               {label: 'out', color: '--chart-2', value: s => s.outPerSec}],
              rate, store.windowMs),
    new Chart('Step latency (mean)', [{label: 'latency', color: '--chart-1', value: s => s.latencyMs}],
              millis, store.windowMs),
    new Chart('Memory and storage',
              [{label: 'memory', color: '--chart-1', value: s => s.rss},
               {label: 'storage', color: '--chart-2', value: s => s.storage}],
              bytes, store.windowMs, {binary: true}),
  ];
  const checkpointBox = el('div', {class: 'panel stack', id: 'overview-checkpoint'});
  const hostsBox = el('div', {id: 'overview-hosts'});
  const message = el('p', {role: 'status', 'aria-live': 'polite', class: 'muted'});
  root.append(
      el('h1', {}, 'Overview'),
      stateBox,
      hostsBox,
      el('h2', {}, 'Now'),
      tiles,
      el('div', {class: 'charts'}, charts.map(c => c.element)),
      el('h2', {}, 'Checkpoints'),
      checkpointBox,
      message);

  const act = async (what, fn) => {
    message.textContent = what + '…';
    message.className = 'muted';
    try {
      const answer = await fn();
      // Start, pause and approve answer the new /status: show it at once.
      if (answer && answer.state) {
        store.status = answer;
        store.notify();
      }
      message.textContent = answer && answer.checkpoint_sequence_number !== undefined
          ? `Checkpoint ${answer.checkpoint_sequence_number} asked for: it is taken at the next step boundary.`
          : what + ': done.';
      if (answer && answer.checkpoint_sequence_number !== undefined) setTimeout(renderCheckpoint, 500);
    } catch (e) {
      message.textContent = what + ' failed: ' + e.message;
      message.className = 'error-text';
    }
    refresh();
  };

  // Redraws `box` with `draw`, and gives the focus back to the control
  // (by id) that had it.
  const redraw = (box, draw) => {
    const focused = box.contains(document.activeElement) ? document.activeElement.id : '';
    draw();
    if (focused) {
      const again = document.getElementById(focused);
      if (again) again.focus();
    }
  };

  let lastStateKey = '';
  function renderState() {
    redraw(stateBox, drawState);
  }
  function drawState() {
    const st = store.status;
    if (!st) return;
    const key = JSON.stringify([st.state, st.error, st.program_changes, st.transaction]);
    if (key === lastStateKey) return;  // keep the focus on its buttons
    lastStateKey = key;
    clear(stateBox);
    const row = el('div', {class: 'row'},
        el('span', {class: 'muted'}, 'State'), badge(st.state),
        st.transaction ? el('span', {class: 'tag'}, 'in a transaction') : null,
        el('span', {class: 'muted'}, 'pipeline ' + st.pipeline_id),
        st.layout ? el('span', {class: 'tag', title: 'where the integrals of materialized relations live'},
                       'integrals: ' + st.layout) : null);
    const buttons = el('div', {class: 'row', style: 'margin-left: auto'});
    if (st.state === 'Running') {
      buttons.append(el('button', {id: 'pipeline-pause', onclick: () => act('Pause', api.pause)}, 'Pause pipeline'));
    } else if (st.state === 'Paused') {
      buttons.append(el('button', {class: 'primary', id: 'pipeline-start', onclick: () => act('Start', api.start)},
                        'Start pipeline'));
    }
    row.append(buttons);
    stateBox.append(row);
    if (st.error) stateBox.append(el('pre', {class: 'error'}, st.error));
    const changes = st.program_changes;
    if (changes) {
      const waiting = changes.status === 'awaiting_approval';
      stateBox.append(
          el('p', {}, waiting
              ? `The program changed since the checkpoint at step ${changes.checkpoint_step}. ` +
                'These relations will be rebuilt once you approve:'
              : `Program changes since the checkpoint at step ${changes.checkpoint_step}: ${changes.status}.`),
          el('table', {class: 'data', 'aria-label': 'program changes'},
             el('thead', {}, el('tr', {}, ['Relation', 'Kind', 'Change', 'Why'].map(h => el('th', {scope: 'col'}, h)))),
             el('tbody', {}, changes.relations.map(r =>
                 el('tr', {}, el('td', {}, r.name), el('td', {}, r.kind), el('td', {}, r.change),
                    el('td', {}, r.reason))))));
      if (waiting) {
        stateBox.append(el('div', {}, el('button', {class: 'primary', id: 'pipeline-approve', onclick: () => act('Approve', api.approve)},
                                         'Approve and rebuild')));
      }
    }
  }

  const lastLatency = () => {
    for (let i = store.samples.length - 1; i >= 0; i--) {
      if (Number.isFinite(store.samples[i].latencyMs)) return store.samples[i].latencyMs;
    }
    return null;
  };

  function renderTiles() {
    const s = store.samples[store.samples.length - 1];
    if (!s) return;
    const g = s.stats.global;
    const tile = (label, value, title) => el('div', {class: 'panel tile', title},
                                             el('div', {class: 'label'}, label),
                                             el('div', {class: 'value'}, value));
    fill(tiles,
        tile('Step', count(g.step)),
        tile('Steps per second', rate(s.stepsPerSec)),
        tile('Records in per second', rate(s.inPerSec)),
        tile('Records out per second', rate(s.outPerSec)),
        tile('Step latency', millis(lastLatency()), 'the mean of the last second with steps, handing their outputs over included'),
        tile('Buffered records', count(g.buffered_records)),
        tile('Memory', bytes(g.rss_bytes)),
        tile('Storage', bytes(g.storage_bytes)),
        tile('Workers', count(g.workers) + (g.hosts ? ` on ${g.hosts} hosts` : '')),
        tile('Up', duration(g.uptime_msecs)),
        g.eval_errors ? tile('Evaluation errors', count(g.eval_errors), (g.eval_error_samples || []).join('\n')) : null);
    for (const c of charts) c.draw(store.samples);
  }

  function renderHosts() {
    const st = store.status;
    const s = store.samples[store.samples.length - 1];
    if (!st || !st.hosts) {
      clear(hostsBox);
      return;
    }
    const byHost = new Map(((s && s.stats.hosts) || []).map(h => [h.host, h]));
    fill(hostsBox,
        el('h2', {}, 'Hosts'),
        el('div', {class: 'table-wrap'}, el('table', {class: 'data', 'aria-label': 'hosts'},
            el('thead', {}, el('tr', {}, ['Host', 'Address', 'State', 'Step', 'Memory', 'Storage',
                                          'Records processed', 'Buffered', 'Sent to other hosts', 'Error']
                                             .map((h, i) => el('th', {scope: 'col', class: i >= 3 && i <= 8 ? 'num' : null}, h)))),
            el('tbody', {}, st.hosts.map(h => {
              const hs = byHost.get(h.host) || {};
              return el('tr', {'data-host': h.host},
                  el('td', {class: 'nowrap'}, 'host ' + h.host), el('td', {class: 'mono'}, h.address),
                  el('td', {}, badge(h.state)), el('td', {class: 'num'}, count(h.step)),
                  el('td', {class: 'num'}, bytes(hs.rss_bytes)), el('td', {class: 'num'}, bytes(hs.storage_bytes)),
                  el('td', {class: 'num'}, count(hs.processed_records)),
                  el('td', {class: 'num'}, count(hs.buffered_records)),
                  el('td', {class: 'num'}, bytes(hs.exchange_bytes_sent)),
                  el('td', {class: 'error-text'}, h.error || ''));
            })))));
  }

  let checkpointKey = '';
  async function renderCheckpoint() {
    let list, cs;
    try {
      [list, cs] = await Promise.all([api.checkpoints(), api.checkpointStatus()]);
    } catch (e) {
      return;
    }
    redraw(checkpointBox, () => drawCheckpoint(list, cs));
  }
  function drawCheckpoint(list, cs) {
    const key = JSON.stringify([list, cs]);
    if (key === checkpointKey) return;
    checkpointKey = key;
    const newest = list[0];
    fill(checkpointBox,
        el('div', {class: 'row'},
           newest
               ? el('span', {}, `Last checkpoint: number ${newest.checkpoint_sequence_number}, at step ${newest.step ?? '?'}, ${bytes(newest.size_bytes)}` +
                                 (newest.hosts ? ` on ${newest.hosts} hosts` : ''))
               : el('span', {class: 'muted'}, 'No checkpoint yet.'),
           el('span', {class: 'muted'}, `${list.length} kept`),
           el('button', {style: 'margin-left: auto', id: 'checkpoint-now', onclick: () => act('Checkpoint', api.checkpoint)}, 'Checkpoint now')),
        cs.failure ? el('pre', {class: 'error'}, `Checkpoint ${cs.failure.sequence_number} failed: ${cs.failure.error}`) : null);
  }

  function refresh() {
    renderState();
    renderTiles();
    renderHosts();
  }
  let tickCount = 0;
  const listener = () => {
    refresh();
    if (tickCount++ % 3 === 0) renderCheckpoint();
  };
  store.listeners.add(listener);
  const onResize = () => { for (const c of charts) c.draw(store.samples); };
  window.addEventListener('resize', onResize);
  refresh();
  renderCheckpoint();
  return () => {
    store.listeners.delete(listener);
    window.removeEventListener('resize', onResize);
  };
}
