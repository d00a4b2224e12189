/**
 * The served page's own script (run --serve; plain ES2020, run by the browser, not by Node). Above the
 * report it keeps a section of the run as it goes: each second of the step now running as it arrives
 * (Server-Sent Events from /events; the last SHOWN_SECONDS, drawn as a line chart and listed newest first), a reload when a step ends (the page the server then renders has
 * that step's charts and tables), and at the end the whole result: its figures in a table, the link to
 * the written index.html, and no reconnection (the server closes). The state embedded in the page
 * (`mb-data-served`) lets a page loaded mid-step show the seconds it missed, and a page loaded after the
 * end show the end: at the `result` event the page shows it at once (<html data-served="ending">) and
 * reloads once for the final page, whose report is the finished run's (<html data-served="done">).
 * `window.mongoBenchServed` ({ seconds, result, done, chart }) is for scripts and tests. Kept as text because
 * it never runs in Node; the browser test (test/report/served-page.test.ts) exercises it.
 */
/** The seconds of the running step the page shows (newest first) and a page loaded mid-step is given. */
export const SHOWN_SECONDS = 120;

export const SERVED_SCRIPT = String.raw`(function () {
  'use strict';
  var SHOWN_SECONDS = ${SHOWN_SECONDS};
  function dataOf(id) {
    var el = document.getElementById(id);
    return el ? JSON.parse(el.textContent) : undefined;
  }
  var initial = dataOf('mb-data-served') || { seconds: [] };
  var served = { seconds: [], result: null, done: false, chart: null };
  window.mongoBenchServed = served;

  function element(tag, text, className) {
    var el = document.createElement(tag);
    if (text !== undefined) el.textContent = text;
    if (className) el.className = className;
    return el;
  }
  function table(id, columns) {
    var t = element('table');
    t.id = id;
    var row = element('tr');
    columns.forEach(function (c) { row.appendChild(element('th', c)); });
    var head = element('thead');
    head.appendChild(row);
    t.appendChild(head);
    t.appendChild(element('tbody'));
    return t;
  }
  function addRow(t, cells, newestFirst) {
    var row = element('tr');
    cells.forEach(function (c, i) { row.appendChild(element('td', String(c), i === 0 ? 'left' : 'right')); });
    var body = t.tBodies[0];
    if (!newestFirst) { body.appendChild(row); return; }
    body.insertBefore(row, body.firstChild);
    // An hour's step would be 3,600 rows: the last SHOWN_SECONDS are what is worth reading here.
    while (body.rows.length > SHOWN_SECONDS) body.deleteRow(body.rows.length - 1);
  }
  function fixed(value) { return typeof value === 'number' ? value.toFixed(1) : '–'; }
  function ms(micros) { return typeof micros === 'number' ? (micros / 1000).toFixed(3) : '–'; }

  var section = element('section');
  section.id = 'mb-served';
  section.appendChild(element('h2', 'The run as it goes (served page)'));
  var status = element('p', 'Waiting for the first second…', 'note');
  status.id = 'mb-served-status';
  section.appendChild(status);
  // The running step's seconds as a line chart (Chart.js, inlined in the page), above their table.
  var chart = null;
  if (typeof Chart !== 'undefined') {
    var box = element('div');
    box.id = 'mb-served-chart';
    box.style.position = 'relative';
    box.style.height = '260px';
    box.style.maxWidth = '900px';
    var canvas = element('canvas');
    box.appendChild(canvas);
    section.appendChild(box);
    var line = function (label, color) {
      return { label: label, data: [], borderColor: color, backgroundColor: color, pointRadius: 2, borderWidth: 2, tension: 0 };
    };
    chart = new Chart(canvas, {
      type: 'line',
      data: { labels: [], datasets: [line('reads/s', '#0072b2'), line('writes/s', '#d55e00'), line('errors/s', '#cc79a7')] },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: { y: { beginAtZero: true, title: { display: true, text: 'operations per second' } }, x: { title: { display: true, text: 'clients · trial · second (w: warm-up)' } } },
        plugins: { title: { display: true, text: 'The running step, second by second (the last ' + SHOWN_SECONDS + ')' } },
      },
    });
    served.chart = chart;
  }
  var seconds = table('mb-served-seconds', ['Clients', 'Trial', 'Phase', 'Second', 'ops/s', 'reads/s', 'writes/s', 'errors/s']);
  section.appendChild(seconds);
  function chartSecond(s) {
    if (!chart) return;
    chart.data.labels.push(s.clients + '·' + s.trial + '·' + (s.phase === 'measure' ? '' : 'w') + s.second);
    [s.reads, s.writes, s.errors].forEach(function (v, i) { chart.data.datasets[i].data.push(v); });
    if (chart.data.labels.length > SHOWN_SECONDS) {
      chart.data.labels.shift();
      chart.data.datasets.forEach(function (d) { d.data.shift(); });
    }
    chart.update('none');
  }
  var heading = document.querySelector('h1');
  if (heading && heading.parentNode) heading.parentNode.insertBefore(section, heading.nextSibling);
  else document.body.insertBefore(section, document.body.firstChild);

  function showSecond(s) {
    served.seconds.push(s);
    var phase = s.phase === 'measure' ? 'measured' : 'warm-up';
    addRow(seconds, [s.clients, s.trial, phase, s.second, s.reads + s.writes, s.reads, s.writes, s.errors], true);
    chartSecond(s);
    status.textContent = 'Step with ' + s.clients + (s.clients === 1 ? ' client' : ' clients') + ', trial ' + s.trial + ': ' + phase + ', second ' + s.second;
  }

  function showResult(result, indexHtml, message, stage) {
    served.done = true;
    document.documentElement.setAttribute('data-served', stage || 'done');
    if (!result) {
      status.textContent = 'The run ended before any step did: nothing was measured.' + (message ? ' ' + message : '');
      return;
    }
    served.result = result;
    status.textContent = (result.complete ? 'The run has ended; these are its figures (results.json).' : 'The run ended early (' + (result.incompleteReason || 'incomplete') + '); these are the figures it kept.') + (message ? ' ' + message : '');
    // The seconds of a step are news only while it runs.
    if (seconds.tBodies[0].rows.length === 0) {
      seconds.hidden = true;
      if (chart) chart.canvas.parentNode.hidden = true;
    }
    var final = table('mb-served-result', ['Clients', 'ops/s', 'reads/s', 'writes/s', 'read p99 ms', 'write p99 ms', 'errors', 'status']);
    result.steps.forEach(function (step) {
      addRow(final, [step.clients, fixed(step.opsPerSec.total), fixed(step.opsPerSec.reads), fixed(step.opsPerSec.writes), ms(step.latencyMicros.reads.p99), ms(step.latencyMicros.writes.p99), step.ops.errors, step.status || 'ok']);
    });
    section.appendChild(final);
    if (indexHtml) {
      var link = element('p');
      var a = element('a', 'index.html');
      a.href = '/index.html';
      link.appendChild(document.createTextNode('The report: '));
      link.appendChild(a);
      link.appendChild(document.createTextNode(' (written to ' + indexHtml + '; this server may have closed, the file stays)'));
      link.id = 'mb-served-index';
      section.appendChild(link);
    }
  }

  initial.seconds.forEach(showSecond);
  if (initial.final) {
    var results = dataOf('mb-data-results') || [];
    showResult(results[0], initial.final.indexHtml, initial.final.message);
    return;
  }
  if (typeof EventSource === 'undefined') return;
  var source = new EventSource('/events');
  source.addEventListener('second', function (e) { showSecond(JSON.parse(e.data)); });
  // A step ended: the server's page now has its charts and tables. Not once the result is here.
  source.addEventListener('step', function () {
    if (served.done) return;
    source.close();
    location.reload();
  });
  // The end: shown at once, then the final page loaded once (its report complete, its end embedded).
  source.addEventListener('result', function (e) {
    source.close();
    var d = JSON.parse(e.data);
    // Not when the server closes at once (Ctrl-C): the page keeps what it shows.
    showResult(d.result, d.indexHtml, d.message, d.reload ? 'ending' : 'done');
    if (d.reload) location.reload();
  });
  source.addEventListener('error', function () {
    if (served.done) return;
    if (source.readyState === EventSource.CLOSED) status.textContent = 'The run\'s server has closed; the page keeps what it showed.';
  });
})();`;
