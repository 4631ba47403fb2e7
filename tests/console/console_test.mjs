// The web console's browser test: starts `sluice run` on a copy of
// examples/shop (on one host, or with --hosts N on N hosts), opens the
// console in Debian's chromium (driven by puppeteer-core, which never
// downloads a browser), and goes through its pages as a user would:
//
//   node tests/console/console_test.mjs --sluice build/release/sluice [--hosts 3]
//        [--screenshots docs/console]
//
// It checks that the overview shows the state (and on many hosts a row per
// host with its memory), that a live view shows a row within a second of
// its ingest's completion, that a query shows its rows and a bad query its
// error with a caret, that ingesting through the page reports the step or
// the bad records, that a connector pauses and starts, that a checkpoint is
// taken, and (on one host) that a changed program waits for the overview's
// Approve and that, with API keys, the console asks for one. Every wait is
// for a condition, with a generous timeout, so a slow machine only makes
// it slower. Exit status 0: passed; 1: failed; 77: skipped (no chromium).
import {spawn} from 'node:child_process';
import {cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {dirname, join, resolve} from 'node:path';
import {fileURLToPath} from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const sluice = resolve(option('--sluice', join(here, '../../build/release/sluice')));
const hosts = Number(option('--hosts', '1'));
const screenshots = option('--screenshots', null);
const chromium = process.env.SLUICE_CHROMIUM || '/usr/bin/chromium';
const kTimeout = 30000;  // for anything but the live row's second

if (!existsSync(chromium)) {
  console.log(`SKIPPED: no browser at ${chromium} (scripts/install-deps installs Debian's chromium; ` +
              'SLUICE_CHROMIUM names another)');
  process.exit(77);
}
let puppeteer;
try {
  puppeteer = (await import('puppeteer-core')).default;
} catch (e) {
  console.error(`FAILED: puppeteer-core is not installed: run (cd tests/console && npm ci) ` +
                `(scripts/test does) [${e.message}]`);
  process.exit(1);
}

const suffix = hosts > 1 ? `-hosts${hosts}` : '';
let step = 'start';
const log = msg => console.log(`[console${suffix}] ${msg}`);

// ---- the pipeline
const work = mkdtempSync(join(tmpdir(), 'sluice-console-'));
cpSync(join(here, '../../examples/shop'), work, {recursive: true});
rmSync(join(work, 'out'), {recursive: true, force: true});
mkdirSync(join(work, 'out'));
// With storage, so that a checkpoint can be taken and (on one host) a
// restart with a changed program waits for approval.
const runArgs = ['run', join(work, 'program.sql'), '--port', '0', '--workers', '2',
                 '--storage', join(work, 'storage')];
if (hosts > 1) runArgs.push('--hosts', String(hosts));
let proc = null;
let output = '';
let base = null;

// Starts the pipeline; resolves when it says where it listens.
function startPipeline() {
  proc = spawn(sluice, runArgs, {stdio: ['ignore', 'pipe', 'pipe']});
  const from = output.length;
  return new Promise((resolveBase, reject) => {
    const timer = setTimeout(() => reject(new Error('sluice did not say where it listens:\n' + output)), kTimeout);
    const onData = d => {
      output += d;
      const m = /listening on (http:\/\/[0-9.:]+)/.exec(output.slice(from));
      if (m) {
        clearTimeout(timer);
        resolveBase(m[1]);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', code => reject(new Error(`sluice exited with ${code}:\n${output}`)));
  });
}

async function stopPipeline() {
  if (!proc || proc.exitCode !== null) return;
  const exited = new Promise(r => proc.once('exit', r));
  proc.kill('SIGTERM');
  await exited;
}

base = await startPipeline();
log(`pipeline at ${base}`);

async function call(method, path, body) {
  const res = await fetch(base + path, {method, body});
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text.length ? JSON.parse(text) : null;
}

// Records through the API, waited for until processed: their step.
async function ingestAndWait(table, records) {
  const {token} = await call('POST', `/ingress/${table}`, records.map(r => JSON.stringify(r)).join('\n'));
  const deadline = Date.now() + kTimeout;
  for (;;) {
    const c = await call('GET', `/completion_status?token=${token}`);
    if (c.status === 'complete') return c.step;
    if (Date.now() > deadline) throw new Error(`token ${token} not complete: ${JSON.stringify(c)}`);
    await new Promise(r => setTimeout(r, 20));
  }
}

// ---- the browser
const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run'],
  defaultViewport: {width: 1280, height: 800},
});
const page = await browser.newPage();
page.setDefaultTimeout(kTimeout);
const pageErrors = [];
page.on('pageerror', e => pageErrors.push(e.message));
page.on('console', m => {
  // An error answer of the API is logged as a failed load: the test asks
  // for some (bad SQL, a misspelled table).
  if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text());
});

async function shot(name) {
  if (!screenshots) return;
  mkdirSync(screenshots, {recursive: true});
  await page.screenshot({path: join(screenshots, `${name}.png`)});
  log(`screenshot ${join(screenshots, name + '.png')}`);
}

const textOf = sel => page.$eval(sel, e => e.textContent);
const waitText = (sel, text, timeout = kTimeout) => page.waitForFunction(
    (s, t) => [...document.querySelectorAll(s)].some(e => e.textContent.includes(t)),
    {timeout, polling: 'raf'}, sel, text);

// Every field of the page has a label, every button a name.
async function checkLabels(where) {
  const unlabelled = await page.evaluate(() => [
    ...[...document.querySelectorAll('input, select, textarea')]
        .filter(e => e.labels.length === 0 && !e.getAttribute('aria-label'))
        .map(e => e.outerHTML.slice(0, 80)),
    ...[...document.querySelectorAll('button')]
        .filter(b => !b.textContent.trim() && !b.getAttribute('aria-label'))
        .map(b => b.outerHTML.slice(0, 80)),
  ]);
  if (unlabelled.length) throw new Error(`${where}: unlabelled controls: ${unlabelled.join(', ')}`);
}

async function setValue(sel, value) {
  await page.$eval(sel, (e, v) => {
    e.value = v;
    e.dispatchEvent(new Event('input', {bubbles: true}));
  }, value);
}

let failed = null;
try {
  // ---- overview: the state, figures, and on many hosts one row per host
  step = 'overview';
  await page.goto(base + '/');
  await waitText('#state-badge', 'Running');
  await waitText('#overview-state', 'Running');
  await page.waitForSelector('#overview-tiles .tile');
  if (hosts > 1) {
    await page.waitForFunction(n => {
      const rows = document.querySelectorAll('#overview-hosts tr[data-host]');
      // Every host, with its state and a figure of its memory.
      return rows.length === n && [...rows].every(r => r.textContent.includes('Running') && /[KMG]iB/.test(r.textContent));
    }, {timeout: kTimeout}, hosts);
    log(`overview: ${hosts} host rows`);
  }
  if (screenshots) {
    // Some traffic, so that the charts have a line to draw.
    for (let i = 0; i < 30; i++) {
      const batch = [];
      for (let j = 0; j <= (i * 7) % 12; j++) {
        const id = 1000 + i * 20 + j;
        batch.push({insert: {id, customer: 1 + (id % 3), amount: 5 + (id % 40), placed: '2026-11-02 12:00:00'}});
      }
      await ingestAndWait('orders', batch);
      await new Promise(r => setTimeout(r, 300));
    }
  }
  await checkLabels('overview');
  await shot('overview' + suffix);
  // Dark mode follows the system's.
  await page.emulateMediaFeatures([{name: 'prefers-color-scheme', value: 'dark'}]);
  const dark = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await page.emulateMediaFeatures([{name: 'prefers-color-scheme', value: 'light'}]);
  const light = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const luminance = rgb => rgb.match(/\d+/g).slice(0, 3).reduce((a, b) => a + Number(b), 0);
  if (!(luminance(dark) < 150 && luminance(light) > 600)) {
    throw new Error(`the background does not follow the color scheme: dark ${dark}, light ${light}`);
  }

  // ---- program: the SQL highlighted, and every relation
  step = 'program';
  await page.goto(base + '/#/program');
  await page.waitForSelector('pre.sql .tok-kw');
  await page.waitForSelector('.relation[data-relation="orders"]');
  const orders = await textOf('.relation[data-relation="orders"]');
  if (!orders.includes('primary key') || !orders.includes('orders_file')) {
    throw new Error('the orders table lacks its key or connector: ' + orders);
  }
  await checkLabels('program');
  await shot('program' + suffix);

  // ---- a view, live: a new row appears within a second of its completion
  step = 'live view';
  await page.goto(base + '/#/view/revenue_by_country');
  await page.waitForFunction(() => document.querySelectorAll('#live-table tbody tr').length > 0 &&
                                   /snapshot at step \d+/.test(document.getElementById('live-status').textContent));
  await waitText('#live-status', 'Live');
  await ingestAndWait('customers', [{insert: {id: 40, name: 'Nia', country: 'NZ'}}]);
  const doneStep = await ingestAndWait('orders', [{insert: {id: 40, customer: 40, amount: 12.5, placed: '2026-11-02 13:00:00'}}]);
  const t0 = Date.now();
  await page.waitForFunction(() => [...document.querySelectorAll('#live-table tbody tr')]
                                       .some(tr => tr.textContent.includes('NZ')), {timeout: 1000, polling: 'raf'});
  log(`live view: the new row showed ${Date.now() - t0} ms after its completion (step ${doneStep})`);
  await waitText('#live-step', `step ${doneStep}`);
  await checkLabels('view');
  await shot('view' + suffix);

  // ---- query: rows, then errors
  step = 'query';
  await page.goto(base + '/#/query');
  await page.waitForSelector('#query-sql');
  await setValue('#query-sql', 'SELECT country, orders, revenue\nFROM revenue_by_country\nORDER BY country');
  await page.click('#query-run');
  await page.waitForSelector('#query-result table tbody tr');
  const rows = await page.$$eval('#query-result table tbody tr', trs => trs.map(tr => tr.textContent));
  if (!rows.some(r => r.includes('NZ')) || !rows.some(r => r.includes('UK'))) {
    throw new Error('the query\'s rows lack NZ or UK: ' + JSON.stringify(rows));
  }
  await checkLabels('query');
  await shot('query' + suffix);
  await setValue('#query-sql', 'SELECT country\nFROM revenue_by_country\nWHERE orders 1');
  await page.click('#query-run');
  await page.waitForSelector('#query-error');
  const err = await textOf('#query-error');
  if (!/line 3, column \d+/.test(err) || !err.includes('^')) throw new Error('the syntax error lacks its line and caret: ' + err);
  await page.waitForSelector('.editor .tok-errline');
  await shot('query-error' + suffix);
  await setValue('#query-sql', 'SELECT * FROM revenue_by_contry');
  await page.click('#query-run');
  await waitText('#query-error', 'did you mean revenue_by_country?');

  // ---- ingest through the page: the step, then bad records
  step = 'ingest';
  await page.goto(base + '/#/ingest');
  await page.waitForFunction(() => document.getElementById('ingest-columns').textContent.includes('customers'));
  await setValue('#ingest-records', '{"insert": {"id": 41, "name": "Oona", "country": "FI"}}\n');
  await page.click('#ingest-send');
  await waitText('#ingest-status', 'Complete');
  await setValue('#ingest-table', 'customer');
  await setValue('#ingest-records', '{"insert": {"id": 42, "name": "Pia"}}\n');
  await page.click('#ingest-send');
  await waitText('#ingest-error', 'did you mean customers');
  await setValue('#ingest-table', 'customers');
  await setValue('#ingest-records',
                 '{"insert": {"id": 42, "name": "Pia"}}\n{"insert": {"id": "x", "name": "Q"}}\n{"insert": {"id": 43}}\n');
  await page.click('#ingest-send');
  await page.waitForSelector('#ingest-errors tbody tr');
  const bad = await page.$$eval('#ingest-errors tbody tr', trs => trs.length);
  if (bad !== 2) throw new Error(`expected 2 bad records, the page lists ${bad}`);
  await checkLabels('ingest');
  await shot('ingest' + suffix);

  // ---- connectors: pause and start an output connector
  step = 'connectors';
  await page.goto(base + '/#/connectors');
  await page.waitForSelector('tr[data-connector="revenue_file"] button[aria-label="pause revenue_file"]:not([disabled])');
  if (hosts > 1) {
    const host = await page.$eval('tr[data-connector="revenue_file"]', tr => tr.children[3].textContent);
    if (!/^\d+$/.test(host)) throw new Error('the connector\'s host is not shown: ' + host);
  }
  await page.click('tr[data-connector="revenue_file"] button[aria-label="pause revenue_file"]');
  await page.waitForSelector('tr[data-connector="revenue_file"] button[aria-label="start revenue_file"]:not([disabled])');
  const pausedStats = await call('GET', '/stats');
  if (!pausedStats.outputs.find(o => o.name === 'revenue_file').paused) throw new Error('revenue_file is not paused');
  await checkLabels('connectors');
  await shot('connectors' + suffix);
  await page.click('tr[data-connector="revenue_file"] button[aria-label="start revenue_file"]');
  await page.waitForSelector('tr[data-connector="revenue_file"] button[aria-label="pause revenue_file"]:not([disabled])');
  const startedStats = await call('GET', '/stats');
  if (startedStats.outputs.find(o => o.name === 'revenue_file').paused) throw new Error('revenue_file is still paused');

  // ---- a checkpoint from the overview
  step = 'checkpoint';
  await page.goto(base + '/#/overview');
  await (await page.waitForSelector('#checkpoint-now')).click();
  await waitText('#overview-checkpoint', 'Last checkpoint: number 1');

  // ---- the pipeline paused and started from the overview
  step = 'pause';
  await page.goto(base + '/#/overview');
  await (await page.waitForSelector('#pipeline-pause')).click();
  await waitText('#state-badge', 'Paused');
  await (await page.waitForSelector('#pipeline-start')).click();
  await waitText('#state-badge', 'Running');
  await waitText('#overview-state', 'Running');

  // ---- a changed program waits for approval, which the overview gives
  if (hosts === 1) {
    step = 'approve';
    await stopPipeline();
    const programPath = join(work, 'program.sql');
    writeFileSync(programPath, readFileSync(programPath, 'utf8').replace('LIMIT 3;', 'LIMIT 4;'));
    base = await startPipeline();
    await page.goto(base + '/#/overview');
    await waitText('#state-badge', 'AwaitingApproval');
    await waitText('#overview-state', 'top_orders');
    await (await page.waitForSelector('#pipeline-approve')).click();
    await waitText('#state-badge', 'Running');
    const st = await call('GET', '/status');
    if (st.program_changes.status !== 'applied') throw new Error('not applied: ' + JSON.stringify(st));
    await page.goto(base + '/#/query');
    await setValue('#query-sql', 'SELECT COUNT(*) AS n FROM top_orders');
    await page.click('#query-run');
    await waitText('#query-result td', '4');

    // ---- with API keys, the console asks for one and sends it
    step = 'api keys';
    await stopPipeline();
    const readKey = 'console-read-key-0123456789';
    writeFileSync(join(work, 'keys'), `${readKey} read\n`);
    runArgs.push('--api-key-file', join(work, 'keys'));
    base = await startPipeline();
    await page.goto(base + '/#/overview');
    await page.waitForSelector('dialog.api-key[open]', {timeout: kTimeout});
    await page.type('dialog.api-key input', 'not-a-key-0123456789');
    await page.click('dialog.api-key button');
    await waitText('dialog.api-key .why', 'not one of this pipeline');
    await page.type('dialog.api-key input', readKey);
    await page.click('dialog.api-key button');
    await waitText('#state-badge', 'Running');
    if (await page.$('dialog.api-key')) throw new Error('the key dialog is still open');
  }

  if (pageErrors.length) throw new Error('the page logged errors:\n' + pageErrors.join('\n'));
} catch (e) {
  failed = e;
  try {
    mkdirSync(join(work, 'failure'), {recursive: true});
    await page.screenshot({path: join(work, 'failure', `${step}.png`)});
    console.error(`a screenshot of the page is in ${join(work, 'failure', step + '.png')}`);
  } catch {
  }
} finally {
  await browser.close();
  await stopPipeline();
}
if (failed) {
  console.error(`FAILED at ${step}: ${failed.message}`);
  if (pageErrors.length) console.error('page errors:\n' + pageErrors.join('\n'));
  console.error('sluice said:\n' + output.slice(-4000));
  process.exit(1);
}
rmSync(work, {recursive: true, force: true});
log('PASSED');
