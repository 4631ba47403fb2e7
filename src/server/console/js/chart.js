// A live line chart on a canvas: one or two series over the last minutes,
// redrawn on every new sample. Colors come from the page's CSS variables,
// so it follows light and dark mode.
import {el} from './util.js';

export class Chart {
  // series: [{label, color: CSS variable name, value: sample => number}];
  // format: number => text for the axis and the summary.
  // binary: the axis in powers of two (bytes).
  constructor(title, series, format, windowMs, {binary = false} = {}) {
    this.binary = binary;
    this.series = series;
    this.format = format;
    this.windowMs = windowMs;
    this.canvas = el('canvas', {role: 'img', 'aria-label': title});
    this.title = title;
    this.element = el('div', {class: 'panel chart'},
        el('h3', {}, title),
        this.canvas,
        el('div', {class: 'legend', 'aria-hidden': 'true'},
           series.length > 1 ? series.map(s => el('span', {style: `--c: var(${s.color})`}, s.label)) : []));
  }

  draw(samples) {
    const c = this.canvas;
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth, h = c.clientHeight;
    if (w === 0 || h === 0) return;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    const g = c.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, w, h);
    const css = getComputedStyle(document.documentElement);
    const now = samples.length ? samples[samples.length - 1].t : performance.now();
    // The last minutes: as far back as there are samples, from one minute
    // up to the window.
    const span = Math.min(this.windowMs, Math.max(60000, samples.length ? now - samples[0].t : 0));
    const from = now - span;
    let max = 0;
    for (const s of samples) {
      for (const series of this.series) {
        const v = series.value(s);
        if (Number.isFinite(v) && v > max) max = v;
      }
    }
    max = niceCeiling(max, this.binary);
    const left = 62, right = 8, top = 6, bottom = 18;
    const pw = w - left - right, ph = h - top - bottom;
    const x = t => left + ((t - from) / span) * pw;
    const y = v => top + ph - (max > 0 ? (v / max) * ph : 0);
    g.font = '11px system-ui, sans-serif';
    g.fillStyle = css.getPropertyValue('--muted');
    g.strokeStyle = css.getPropertyValue('--chart-grid');
    g.lineWidth = 1;
    g.textAlign = 'right';
    g.textBaseline = 'middle';
    for (const f of [0, 0.5, 1]) {
      const yy = Math.round(y(max * f)) + 0.5;
      g.beginPath();
      g.moveTo(left, yy);
      g.lineTo(w - right, yy);
      g.stroke();
      g.fillText(this.format(max * f), left - 6, yy);
    }
    g.textBaseline = 'alphabetic';
    g.textAlign = 'left';
    g.fillText(span < 120000 ? `−${Math.round(span / 1000)} s` : `−${Math.round(span / 60000)} min`, left, h - 4);
    g.textAlign = 'right';
    g.fillText('now', w - right, h - 4);
    for (const series of this.series) {
      g.strokeStyle = css.getPropertyValue(series.color);
      g.lineWidth = 1.8;
      g.beginPath();
      let started = false;
      for (const s of samples) {
        const v = series.value(s);
        if (!Number.isFinite(v) || s.t < from) {
          started = false;
          continue;
        }
        if (started) g.lineTo(x(s.t), y(v));
        else g.moveTo(x(s.t), y(v));
        started = true;
      }
      g.stroke();
    }
    const last = samples[samples.length - 1];
    if (last) {
      this.canvas.setAttribute('aria-label', this.title + ': ' +
          this.series.map(s => `${s.label} ${this.format(s.value(last))}`).join(', '));
    }
  }
}

// 1, 2 or 5 times a power of ten (binary: a power of two), at least v.
function niceCeiling(v, binary) {
  if (!(v > 0)) return 1;
  if (binary) return Math.pow(2, Math.ceil(Math.log2(v)));
  const p = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 5, 10]) {
    if (v <= m * p) return m * p;
  }
  return 10 * p;
}
