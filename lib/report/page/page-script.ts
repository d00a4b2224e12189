/**
 * The page's own script (plain ES2020, run by the browser, not by Node): draws each embedded ChartSpec
 * with Chart.js (the same spec render-chart.ts draws into a PNG), with an HTML tooltip that gives the
 * exact figures, legend toggles (Chart.js's own), zoom and pan on time axes (chartjs-plugin-zoom;
 * the charts of one zoom group follow each other), and sortable tables. When it has finished it sets
 * `data-page="ready"` on <html> once the first screen is drawn, `data-charts="drawn"` once every
 * chart is, and `window.mongoBenchPage` ({ charts: the Chart.js instances, specs: their ChartSpecs,
 * in page order; readyAt, drawnAt: ms since navigation began }) for scripts, tests and
 * bench/report-page.ts.
 * Kept as text because it never runs in Node; the browser tests (test/report/page-browser.test.ts)
 * exercise every part of it. The scales, tick labels and number formats are not here: they are
 * chart-config.ts, the module the PNGs use, whose JavaScript `pageScript` puts at the top (`config`).
 */
const PAGE_MAIN = String.raw`
  var BACKGROUND = '#ffffff';

  function stepAt(spec, x) {
    if (spec.x.kind !== 'seconds') return undefined;
    return spec.x.steps.find(function (s) { return x >= s.start && x < s.start + s.length; });
  }
  function xLabel(spec, x) {
    if (spec.x.kind === 'clients') return x + (x === 1 ? ' client' : ' clients');
    var step = stepAt(spec, x);
    var second = 'second ' + Math.floor(x) + ' of the sweep';
    return step ? second + ' (' + step.clients + '-client step, its second ' + Math.floor(x - step.start) + ')' : second;
  }

  // One tooltip element for the page, filled with text (never HTML from the data).
  var tooltipEl = document.getElementById('mb-tooltip');
  function externalTooltip(spec) {
    return function (context) { showTooltip(spec, context.chart, context.tooltip); };
  }
  function showTooltip(spec, chart, tooltip) {
    if (!tooltipEl) return;
    if (tooltip.opacity === 0 || tooltip.dataPoints.length === 0) { tooltipEl.hidden = true; return; }
    tooltipEl.textContent = '';
    var title = document.createElement('div');
    title.className = 'title';
    title.textContent = xLabel(spec, tooltip.dataPoints[0].parsed.x);
    tooltipEl.appendChild(title);
    tooltip.dataPoints.forEach(function (dp) {
      var series = spec.series[dp.datasetIndex];
      var point = series.points[dp.dataIndex];
      var unit = series.yAxis === 'y2' && spec.y2 ? spec.y2.unit : spec.y.unit;
      var line = document.createElement('div');
      line.className = 'line';
      var swatch = document.createElement('span');
      swatch.className = 'swatch';
      swatch.style.background = series.color;
      line.appendChild(swatch);
      line.appendChild(document.createTextNode(series.label + ': ' + config.formatNumber(point.y) + config.UNIT_SUFFIX[unit] + (point.partial ? ' (step cut short: partial)' : '') + (point.span !== undefined ? ' (over ' + point.span + ' s, not a whole second)' : '')));
      tooltipEl.appendChild(line);
    });
    var rect = chart.canvas.getBoundingClientRect();
    tooltipEl.hidden = false;
    var left = window.scrollX + rect.left + tooltip.caretX + 12;
    var maxLeft = window.scrollX + document.documentElement.clientWidth - tooltipEl.offsetWidth - 8;
    tooltipEl.style.left = Math.max(window.scrollX + 4, Math.min(left, maxLeft)) + 'px';
    tooltipEl.style.top = (window.scrollY + rect.top + tooltip.caretY + 12) + 'px';
  }

  /** Dashed vertical lines where each step of a timeline begins (inside the visible range only). */
  function stepBoundaries(spec) {
    return { id: 'mbStepBoundaries', beforeDatasetsDraw: function (chart) {
      if (spec.x.kind !== 'seconds') return;
      var ctx = chart.ctx, area = chart.chartArea, x = chart.scales.x;
      ctx.save();
      ctx.strokeStyle = '#888888';
      ctx.lineWidth = 1;
      ctx.setLineDash([4, 4]);
      spec.x.steps.slice(1).forEach(function (s) {
        var px = Math.round(x.getPixelForValue(s.start)) + 0.5;
        if (px < area.left || px > area.right) return;
        ctx.beginPath(); ctx.moveTo(px, area.top); ctx.lineTo(px, area.bottom); ctx.stroke();
      });
      ctx.restore();
    } };
  }

  /** Background events (a scenario's index build, balancer, step-down): a shaded band, a line at the start, the label. */
  function timeMarkers(spec) {
    return { id: 'mbTimeMarkers', beforeDatasetsDraw: function (chart) {
      if (!spec.markers || spec.markers.length === 0) return;
      var ctx = chart.ctx, area = chart.chartArea, x = chart.scales.x;
      ctx.save();
      spec.markers.forEach(function (m, i) {
        var color = m.failed ? '#b00020' : '#6a3d9a';
        var from = Math.round(x.getPixelForValue(m.start)) + 0.5;
        var to = Math.max(from + 2, x.getPixelForValue(m.end));
        if (to < area.left || from > area.right) return;
        ctx.globalAlpha = 0.15; ctx.fillStyle = color;
        ctx.fillRect(Math.max(from, area.left), area.top, Math.min(to, area.right) - Math.max(from, area.left), area.bottom - area.top);
        ctx.globalAlpha = 1; ctx.strokeStyle = color; ctx.lineWidth = 1.5; ctx.setLineDash([]);
        if (from >= area.left) { ctx.beginPath(); ctx.moveTo(from, area.top); ctx.lineTo(from, area.bottom); ctx.stroke(); }
        ctx.fillStyle = color; ctx.font = '12px sans-serif'; ctx.textBaseline = 'top'; ctx.textAlign = 'left';
        ctx.fillText(m.label, Math.max(from, area.left) + 4, area.top + 4 + (i % 4) * 15);
      });
      ctx.restore();
    } };
  }

  var groups = {};
  var syncing = false;
  /** Gives every other chart of the group the x range this one now shows. */
  function followers(chart) {
    var name = chart.$mbGroup;
    if (!name || syncing) return;
    var range = { min: chart.scales.x.min, max: chart.scales.x.max };
    syncing = true;
    try {
      groups[name].forEach(function (other) {
        if (other === chart) return;
        other.zoomScale('x', range, 'none');
        if (other.scales.steps) other.zoomScale('steps', range, 'none');
      });
    } finally { syncing = false; }
  }

  /**
   * Where dashes tell series apart (a server's cache in use and dirty share its colour), each legend
   * entry shows its line's own stroke: Chart.js takes an entry's style from the first point, which has no dash.
   */
  var dashedLegend = {
    usePointStyle: true, pointStyle: 'line', pointStyleWidth: 30, boxHeight: 9, padding: 14,
    generateLabels: function (chart) {
      return window.Chart.defaults.plugins.legend.labels.generateLabels(chart).map(function (item) {
        var dataset = chart.data.datasets[item.datasetIndex || 0];
        return Object.assign(item, { lineDash: (dataset && dataset.borderDash) || [], lineWidth: 2 });
      });
    },
  };

  function configuration(spec) {
    var timeline = spec.x.kind === 'seconds';
    var lines = config.lineStyle(spec);
    var scales = config.chartScales(spec);
    var options = {
      responsive: true, maintainAspectRatio: false, animation: false, parsing: false, normalized: true,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      layout: { padding: { left: 4, right: 12, top: 0, bottom: 4 } },
      plugins: {
        legend: { display: true, position: 'top', labels: config.dashedLegend(spec) ? dashedLegend : { usePointStyle: true, boxWidth: 9, boxHeight: 9, padding: 14 } },
        tooltip: { enabled: false, external: externalTooltip(spec) },
      },
      scales: scales,
    };
    if (timeline) {
      var limits = { x: { min: 0, max: spec.x.max, minRange: 2 } };
      if (scales.steps) limits.steps = limits.x;
      options.plugins.zoom = {
        limits: limits,
        pan: { enabled: true, mode: 'x', onPanComplete: function (c) { followers(c.chart); } },
        zoom: { mode: 'x', wheel: { enabled: true }, pinch: { enabled: true }, drag: { enabled: true, modifierKey: 'shift' },
          onZoomComplete: function (c) { followers(c.chart); } },
      };
    }
    return {
      type: 'line',
      data: { datasets: spec.series.map(function (s) {
        var partial = s.points.some(function (p) { return p.partial || p.span !== undefined; });
        return { label: s.label, data: s.points, borderColor: s.color, backgroundColor: s.color, borderDash: s.dash,
          borderWidth: lines.width, pointStyle: s.pointStyle, pointRadius: partial ? s.points.map(function (p) { return p.span !== undefined ? Math.max(3, lines.pointRadius) : lines.pointRadius; }) : lines.pointRadius, pointHoverRadius: Math.max(4, lines.pointRadius + 2),
          // Per-point arrays only where a step was cut short or a second is partial (marked, its rate scaled by
          // its length): one shared value lets Chart.js resolve a
          // long timeline's options once, not per point (several times faster to draw).
          pointBackgroundColor: partial ? s.points.map(function (p) { return p.partial || p.span !== undefined ? BACKGROUND : s.color; }) : s.color,
          pointBorderWidth: partial ? s.points.map(function (p) { return p.partial || p.span !== undefined ? 2 : 1; }) : 1,
          spanGaps: false, xAxisID: 'x', yAxisID: s.yAxis || 'y' };
      }) },
      options: options,
      plugins: [stepBoundaries(spec), timeMarkers(spec)],
    };
  }

  /** The figure's canvas box (its height set by CSS, so drawing later moves nothing) and its tools. */
  function prepare(entry, index) {
    var figure = document.getElementById('chart-' + index);
    var box = document.createElement('div');
    box.className = 'canvas-box';
    var canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', entry.spec.title);
    box.appendChild(canvas);
    figure.appendChild(box);
    canvas.addEventListener('mouseleave', function () { if (tooltipEl) tooltipEl.hidden = true; });
    if (entry.spec.x.kind === 'seconds') {
      var tools = document.createElement('div');
      tools.className = 'chart-tools';
      var reset = document.createElement('button');
      reset.type = 'button';
      reset.textContent = 'Reset zoom';
      reset.addEventListener('click', function () {
        (entry.zoomGroup ? groups[entry.zoomGroup] : [page.charts[index]]).forEach(function (c) { if (c) c.resetZoom('none'); });
      });
      tools.appendChild(reset);
      tools.appendChild(document.createTextNode('Wheel or pinch to zoom the seconds, shift-drag to zoom to a span, drag to pan' + (entry.zoomGroup ? '; the other timelines follow.' : '.') + ' Click a legend entry to hide or show its line.'));
      figure.appendChild(tools);
    }
    return { entry: entry, index: index, box: box, canvas: canvas };
  }

  function draw(slot) {
    if (page.charts[slot.index]) return;
    var entry = slot.entry;
    var chart = new window.Chart(slot.canvas, configuration(entry.spec));
    page.charts[slot.index] = chart;
    if (entry.spec.x.kind === 'seconds' && entry.zoomGroup) {
      chart.$mbGroup = entry.zoomGroup;
      var members = (groups[entry.zoomGroup] = groups[entry.zoomGroup] || []);
      // Drawn after the group was zoomed: show the same seconds.
      var shown = members[0];
      if (shown && shown.isZoomedOrPanned()) {
        chart.zoomScale('x', { min: shown.scales.x.min, max: shown.scales.x.max }, 'none');
        if (chart.scales.steps) chart.zoomScale('steps', { min: shown.scales.x.min, max: shown.scales.x.max }, 'none');
      }
      members.push(chart);
    }
    if (page.charts.filter(Boolean).length === slot.total) {
      page.drawnAt = performance.now();
      document.documentElement.setAttribute('data-charts', 'drawn');
    }
  }

  /**
   * The charts on the first screen are drawn at once; the others one per task right after (the page
   * stays responsive), or at once when scrolled near. A page of many long timelines opens fast.
   */
  function drawCharts(entries) {
    // No chart (a run that measured nothing): the page ships no chart library.
    if (entries.length === 0) {
      document.documentElement.setAttribute('data-charts', 'drawn');
      return;
    }
    if (typeof window.Chart === 'undefined') return;
    // The plugin's UMD build defines window.ChartZoom without registering it.
    if (window.ChartZoom) window.Chart.register(window.ChartZoom);
    var slots = entries.map(prepare);
    slots.forEach(function (slot) { slot.total = slots.length; });
    var near = window.innerHeight + 200;
    slots.forEach(function (slot) {
      var r = slot.box.getBoundingClientRect();
      if (r.bottom > -200 && r.top < near) draw(slot);
    });
    var rest = slots.filter(function (slot) { return !page.charts[slot.index]; });
    if (typeof IntersectionObserver !== 'undefined') {
      var observer = new IntersectionObserver(function (items) {
        items.forEach(function (item) {
          if (!item.isIntersecting) return;
          observer.unobserve(item.target);
          draw(rest.find(function (slot) { return slot.box === item.target; }));
        });
      }, { rootMargin: '400px 0px' });
      rest.forEach(function (slot) { observer.observe(slot.box); });
    }
    var queue = rest.slice();
    (function next() {
      var slot = queue.shift();
      if (!slot) return;
      draw(slot);
      setTimeout(next, 0);
    })();
  }

  /** A cell's sort key: its leading number ("22,860", "1.25", "-3"), else its text; "–" (nothing measured) sorts last. */
  function sortKey(text) {
    var t = text.trim();
    if (t === '' || t === '–') return null;
    var m = /^[-+]?[\d,]*\.?\d+/.exec(t.replace(/^±/, ''));
    return m ? Number(m[0].replace(/,/g, '')) : t.toLowerCase();
  }
  function compareKeys(a, b) {
    if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  }
  function sortableTables() {
    document.querySelectorAll('table.sortable').forEach(function (table) {
      var heads = table.querySelectorAll('thead th');
      heads.forEach(function (th, column) {
        var button = document.createElement('button');
        button.type = 'button';
        button.textContent = th.textContent;
        button.title = 'Sort by ' + th.textContent;
        th.textContent = '';
        th.appendChild(button);
        button.addEventListener('click', function () {
          var descending = th.getAttribute('aria-sort') === 'ascending';
          heads.forEach(function (h) { h.removeAttribute('aria-sort'); });
          th.setAttribute('aria-sort', descending ? 'descending' : 'ascending');
          var body = table.tBodies[0];
          var rows = Array.prototype.slice.call(body.rows).map(function (row, i) { return { row: row, i: i, key: sortKey(row.cells[column].textContent) }; });
          rows.sort(function (a, b) {
            // Rows with nothing measured stay last either way; ties keep their order.
            if (a.key === null || b.key === null) return compareKeys(a.key, b.key) || a.i - b.i;
            return (descending ? -1 : 1) * compareKeys(a.key, b.key) || a.i - b.i;
          });
          rows.forEach(function (r) { body.appendChild(r.row); });
        });
      });
    });
  }

  sortableTables();
  var holder = document.getElementById('mb-charts');
  var entries = holder ? JSON.parse(holder.textContent) : [];
  var page = { charts: new Array(entries.length), specs: entries.map(function (e) { return e.spec; }), readyAt: 0, drawnAt: 0 };
  window.mongoBenchPage = page;
  drawCharts(entries);
  page.readyAt = performance.now();
  document.documentElement.setAttribute('data-page', 'ready');
})();
`;

/**
 * The page's one script: `chartConfig` (chart-config.ts as CommonJS JavaScript, page/assets.ts) run
 * first into `config`, then the page's own code, in one function scope (no global names but
 * `window.mongoBenchPage`).
 */
export function pageScript(chartConfig: string): string {
  return `(function () {
  'use strict';
  // The chart configuration the PNGs use too (lib/report/chart-config.ts).
  var config = (function () {
    var exports = {};
${chartConfig.trim()}
    return exports;
  })();
${PAGE_MAIN}`;
}
