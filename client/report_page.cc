#include "report_page.h"

namespace mace::client {
namespace {

constexpr const char* kHead = R"html(<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>MACE run report</title>
<script>
// Any script error is shown on the page (and found there by the tests).
window.onerror = function (message, source, line) {
  var pre = document.getElementById('script-errors');
  if (pre) { pre.hidden = false; pre.textContent += message + ' (line ' + line + ')\n'; }
};
</script>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5em 0; } td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; } .num { text-align: right; font-variant-numeric: tabular-nums; }
.pass, .passed, .succeeded, .reused { color: #176317; } .default { color: #666; } .changed { font-weight: 600; } .fail, .failed, .timeout, .maxcycles, .error { color: #a11; }
svg text { font: 12px system-ui, sans-serif; } #script-errors { color: #a11; }
.legend span { display: inline-block; margin-right: 1em; } .sw { width: 12px; height: 12px; display: inline-block; vertical-align: middle; margin-right: 4px; }
details pre { white-space: pre-wrap; max-height: 20em; overflow: auto; background: #f7f7f7; padding: .5em; }
</style></head>
<body>
<pre id="script-errors" hidden></pre>
<h1 id="title">MACE run</h1>
<div id="report"></div>
<div id="design-charts" hidden>)html";

// Between the charts (static SVG written by core/pareto.h, moved into place by the script)
// and the data.
constexpr const char* kMiddle = R"html(</div>
<script type="application/json" id="run-data">)html";

constexpr const char* kTail = R"html(</script>
<script>
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('run-data').textContent);
  var root = document.getElementById('report');
  var SVG = 'http://www.w3.org/2000/svg';

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = String(text);
    return e;
  }
  function section(title) { root.appendChild(el('h2', {}, title)); }
  function table(headers, rows, cls) {
    var t = el('table', cls ? { 'class': cls } : {});
    var tr = el('tr');
    headers.forEach(function (h) { tr.appendChild(el('th', {}, h)); });
    t.appendChild(tr);
    rows.forEach(function (r) {
      var row = el('tr');
      r.forEach(function (c) {
        var td = el('td', c && c.cls ? { 'class': c.cls } : {}, c && typeof c === 'object' ? c.text : c);
        if (c && c.node) td.appendChild(c.node);
        row.appendChild(td);
      });
      t.appendChild(row);
    });
    root.appendChild(t);
    return t;
  }
  function when(ms) { return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + 'Z' : '-'; }
  function secs(s) {
    if (Math.round(s * 10) < 600) return Math.max(s, 0).toFixed(1) + ' s';
    var whole = Math.round(s);
    return whole < 3600 ? Math.floor(whole / 60) + ' min ' + whole % 60 + ' s'
                        : Math.floor(whole / 3600) + ' h ' + Math.floor(whole % 3600 / 60) + ' min';
  }
  function llm(backend, model) { return model ? backend + ' / ' + model : backend; }
  function usd(x) { return x === null || x === undefined ? 'unknown' : '$' + Number(x).toFixed(4); }
  var stageColour = { passed: '#2e8b57', failed: '#c0392b', skipped: '#999', running: '#e69500',
                      building: '#2c6fbb', prompting: '#8e44ad', pending: '#bbb' };

  // The run's logs: a link to the copy beside the page (mace report --with-logs), else the
  // command that reads it through maced.
  var logs = data.logs || [];
  function logOf(kind, iteration, task, workload) {
    var found = null;
    logs.forEach(function (l) {
      if (l.kind === kind && l.iteration === iteration && l.task_id === task && !l.narrowing &&
          (workload === undefined || l.workload === workload)) found = l;
    });
    return found;
  }
  function logLink(l, label) {
    if (!l) return { text: '-' };
    if (l.href) {
      var a = el('a', { href: encodeURI(l.href), 'class': 'log-link' }, label);
      return { node: a };
    }
    return { text: 'mace logs ' + data.run.run_id + ' --file ' + l.id, cls: 'log-command' };
  }

  var run = data.run;
  // A fault check's conclusion is its outcome; a direct run says it did not try the objective.
  var outcome = run.outcome || (run.planner === 'direct' ? run.state + ' (direct)' : run.state);
  document.getElementById('title').textContent = 'MACE run ' + run.run_id + ': ' + outcome;

  // Summary
  section('Summary');
  var ended = run.finished_at_ms || 0, started = run.started_at_ms || run.submitted_at_ms;
  table(['field', 'value'], [
    ['state', { text: run.state + (run.reason ? ' (' + run.reason + ')' : ''), cls: run.state }],
    ['outcome', { text: outcome, cls: run.outcome === 'missed' ? 'failed' : run.state }],
    ['planner', data.planner_description || '-'],
    ['objective', run.objective], ['core', run.core], ['mesh', run.mesh.join('x')],
    ['workloads', run.workloads.join(', ')], ['LLM', llm(run.backend, run.model)],
    ['iterations', run.iterations], ['cost', usd(run.cost_usd)],
    ['submitted', when(run.submitted_at_ms)], ['started', when(run.started_at_ms)],
    ['finished', when(run.finished_at_ms)],
    ['wall time', ended && started ? secs((ended - started) / 1000) : '-']
  ].filter(function (row) { return row[1] !== '-' && row[1] !== ''; }));  // nothing empty shown

  // What the run ran in: MACE, the host, each checkout's OpenPiton commit, fingerprint and
  // Verilator.
  section('Environment');
  var env = data.environment;
  if (env) {
    table(['field', 'value'], [
      ['MACE', (env.mace_version || '?') + (env.mace_commit ? ' (commit ' + env.mace_commit + ')' : '')],
      ['host', env.host || '-'], ['LLM', llm(env.backend || '', env.model || '')]
    ], 'environment');
    table(['checkout', 'OpenPiton commit', 'source fingerprint', 'Verilator'], (env.checkouts || []).map(function (c) {
      return [c.path, c.commit || '-', c.source_fingerprint || '-', c.verilator || '-'];
    }), 'environment-checkouts');
  } else root.appendChild(el('p', {}, 'Not recorded: the run has not started, or it ran before MACE kept its environment.'));

  // Task DAG per iteration: tasks in columns by depth (the longest chain of dependencies).
  section('Task DAG per iteration');
  var iterations = {};
  data.tasks.forEach(function (t) { (iterations[t.iteration] = iterations[t.iteration] || []).push(t); });
  Object.keys(iterations).sort(function (a, b) { return a - b; }).forEach(function (it) {
    var tasks = iterations[it], byId = {}, depth = {};
    tasks.forEach(function (t) { byId[t.task_id] = t; });
    function depthOf(id, seen) {
      if (depth[id] !== undefined) return depth[id];
      if (seen[id]) return 0;  // a cycle cannot be planned; draw it anyway
      seen[id] = true;
      var d = 0;
      (byId[id] ? byId[id].deps : []).forEach(function (p) { if (byId[p]) d = Math.max(d, depthOf(p, seen) + 1); });
      return (depth[id] = d);
    }
    var columns = [];
    tasks.forEach(function (t) { var d = depthOf(t.task_id, {}); (columns[d] = columns[d] || []).push(t); });
    var W = 170, H = 56, nodeW = 140, nodeH = 36, rows = 0;
    columns.forEach(function (c) { rows = Math.max(rows, c.length); });
    var s = svg('svg', { 'class': 'dag', 'data-iteration': it, width: columns.length * W + 20, height: rows * H + 20 });
    var defs = svg('defs');
    var marker = svg('marker', { id: 'arrow' + it, viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' });
    marker.appendChild(svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#555' }));
    defs.appendChild(marker); s.appendChild(defs);
    var pos = {};
    columns.forEach(function (c, ci) { c.forEach(function (t, ri) { pos[t.task_id] = { x: 10 + ci * W, y: 10 + ri * H }; }); });
    tasks.forEach(function (t) {
      t.deps.forEach(function (p) {
        if (!pos[p]) return;
        s.appendChild(svg('line', { 'class': 'dag-edge', x1: pos[p].x + nodeW, y1: pos[p].y + nodeH / 2,
          x2: pos[t.task_id].x, y2: pos[t.task_id].y + nodeH / 2, stroke: '#555', 'marker-end': 'url(#arrow' + it + ')' }));
      });
    });
    tasks.forEach(function (t) {
      var g = svg('g', { 'class': 'dag-node', 'data-task': t.task_id });
      g.appendChild(svg('rect', { x: pos[t.task_id].x, y: pos[t.task_id].y, width: nodeW, height: nodeH, rx: 5,
        fill: stageColour[t.stage] || '#bbb' }));
      g.appendChild(svg('text', { x: pos[t.task_id].x + 8, y: pos[t.task_id].y + 15, fill: '#fff' }, t.task_id));
      g.appendChild(svg('text', { x: pos[t.task_id].x + 8, y: pos[t.task_id].y + 30, fill: '#fff' }, t.kind + ' · ' + t.stage));
      g.appendChild(svg('title', {}, t.instruction));
      s.appendChild(g);
    });
    root.appendChild(el('h3', {}, 'Iteration ' + it));
    root.appendChild(s);
  });
  if (!data.tasks.length) root.appendChild(el('p', {}, 'No task has finished yet.'));

  // Timeline: per checkout, each task's build and simulation, from its stage events.
  section('Timeline of builds and simulations per checkout');
  var checkoutOf = {};
  data.tasks.forEach(function (t) { checkoutOf[t.iteration + '/' + t.task_id] = t.checkout || '(unknown)'; });
  var spans = [], open = {}, verdictMarks = [];
  var t0 = Infinity, t1 = 0;
  data.events.forEach(function (e) {
    t0 = Math.min(t0, e.at_ms); t1 = Math.max(t1, e.at_ms);
    if (!e.task_id) return;
    var key = (e.iteration || 0) + '/' + e.task_id;
    if (e.kind === 'task_stage') {
      if (open[key]) { open[key].end = e.at_ms; spans.push(open[key]); delete open[key]; }
      if (e.stage === 'building' || e.stage === 'running' || e.stage === 'prompting')
        open[key] = { key: key, what: e.stage, start: e.at_ms, end: null };
    } else if (e.kind === 'verdict') {
      verdictMarks.push({ key: key, at: e.at_ms, verdict: e.verdict, workload: e.workload });
    }
  });
  Object.keys(open).forEach(function (k) { open[k].end = t1; spans.push(open[k]); });
  var lanes = [];
  spans.forEach(function (sp) { var c = checkoutOf[sp.key] || '(unknown)'; if (lanes.indexOf(c) < 0) lanes.push(c); });
  var laneH = 34, left = 260, width = 900, total = Math.max(t1 - t0, 1);
  var tl = svg('svg', { 'class': 'timeline', width: left + width + 20, height: lanes.length * laneH + 40 });
  function x(ms) { return left + (ms - t0) / total * width; }
  lanes.forEach(function (c, i) {
    tl.appendChild(svg('text', { x: 4, y: 20 + i * laneH + 16 }, c.length > 38 ? '…' + c.slice(-37) : c));
  });
  var colour = { building: '#2c6fbb', running: '#e69500', prompting: '#8e44ad' };
  spans.forEach(function (sp) {
    var lane = lanes.indexOf(checkoutOf[sp.key] || '(unknown)');
    var r = svg('rect', { 'class': 'bar ' + sp.what, x: x(sp.start), y: 20 + lane * laneH + 4,
      width: Math.max(x(sp.end) - x(sp.start), 2), height: laneH - 10, fill: colour[sp.what] });
    r.appendChild(svg('title', {}, sp.key + ' ' + sp.what + ' ' + secs((sp.end - sp.start) / 1000)));
    tl.appendChild(r);
  });
  verdictMarks.forEach(function (v) {
    var lane = lanes.indexOf(checkoutOf[v.key] || '(unknown)');
    if (lane < 0) return;
    var m = svg('line', { 'class': 'verdict-mark', x1: x(v.at), x2: x(v.at), y1: 20 + lane * laneH, y2: 20 + (lane + 1) * laneH - 4,
      stroke: v.verdict === 'pass' ? '#176317' : '#a11', 'stroke-width': 2 });
    m.appendChild(svg('title', {}, v.workload + ': ' + v.verdict));
    tl.appendChild(m);
  });
  tl.appendChild(svg('text', { x: left, y: 14 }, when(t0)));
  tl.appendChild(svg('text', { x: left + width - 150, y: 14 }, '+' + secs(total / 1000)));
  root.appendChild(tl);
  var legend = el('p', { 'class': 'legend' });
  [['building', 'build'], ['running', 'simulations'], ['prompting', 'LLM prompt or agent']].forEach(function (l) {
    var sp = el('span'); sp.appendChild(el('i', { 'class': 'sw', style: 'background:' + colour[l[0]] })); sp.appendChild(document.createTextNode(l[1]));
    legend.appendChild(sp);
  });
  root.appendChild(legend);

  // Configurations: each task's build in words, OpenPiton's defaults marked.
  section('Configurations');
  var configured = data.tasks.filter(function (t) { return t.configuration; });
  if (configured.length) {
    var names = [];
    configured.forEach(function (t) { t.configuration.forEach(function (c) { if (names.indexOf(c.name) < 0) names.push(c.name); }); });
    var ct = table(['item'].concat(configured.map(function (t) { return 'iter' + t.iteration + ' ' + t.task_id; })),
      names.map(function (n) {
        return [n].concat(configured.map(function (t) {
          var c = t.configuration.filter(function (x) { return x.name === n; })[0];
          return c ? { text: c.value + (c['default'] ? ' (default)' : ''), cls: c['default'] ? 'default' : 'changed' } : '-';
        }));
      }), 'configurations');
    ct.setAttribute('data-tasks', configured.length);
  } else root.appendChild(el('p', {}, 'No task has a build configuration.'));

  // Designs: one row per design the last iteration built, against the baseline (the
  // first): what differs, each workload's cycles and change, the build, the cache area;
  // then cycles against area with the Pareto front, per workload.
  if (data.designs) {
    section('Designs against the baseline');
    var ds = data.designs, baseName = ds.designs[0].task_id;
    var wl = ds.workloads.map(function (w) { return w.workload; });
    function diffText(i) {
      var parts = [];
      ds.differences.forEach(function (d) { if (!d.values[i]['default']) parts.push(d.name + ' ' + d.values[i].value); });
      return i === 0 ? 'baseline' : (parts.length ? parts.join('; ') : 'as the baseline');
    }
    function areaText(a) { return a === null || a === undefined ? '-' : a.toFixed(1); }
    var drows = ds.designs.map(function (d, i) {
      var row = [d.task_id, diffText(i)];
      ds.workloads.forEach(function (w) {
        var r = w.results[i];
        row.push(r ? { text: r.verdict + ' ' + cyclesText(r.cycles), cls: r.verdict } : '-');
        row.push({ text: i === 0 ? '' : (r && r.change_percent !== null ? (r.change_percent >= 0 ? '+' : '') + r.change_percent.toFixed(1) + '%' : '-'), cls: 'num' });
      });
      return row.concat([{ text: optSecs(d.build_wall_s), cls: 'num' }, { text: optSecs(d.build_cpu_s), cls: 'num' },
                         { text: mib(d.build_peak_rss_bytes), cls: 'num' }, { text: areaText(d.area), cls: 'num' }]);
    });
    var dhead = ['design', 'against ' + baseName];
    wl.forEach(function (w) { dhead.push(w + ' cycles'); dhead.push('change'); });
    table(dhead.concat(['build wall', 'build CPU', 'peak memory', 'cache area']), drows, 'designs').setAttribute('data-designs', ds.designs.length);
    // What each tile did (a run with monitors): each figure per design, change against the
    // baseline, per workload and tile.
    var trows = [], titles = { core_requests: 'core requests', l15_requests_to_l2: 'L1.5 requests to L2',
      l2_lookup_hits: 'L2 lookup hits', l2_lookup_misses: 'L2 lookup misses', noc1_flits: 'NoC1 flits',
      noc2_flits: 'NoC2 flits', noc3_flits: 'NoC3 flits' };
    ds.workloads.forEach(function (w) {
      var tiles = [];
      w.results.forEach(function (r) { (r && r.tiles || []).forEach(function (t) { if (tiles.indexOf(t.tile) < 0) tiles.push(t.tile); }); });
      tiles.sort(function (a, b) { return a - b; }).forEach(function (tile) {
        function of(r) { return r && r.tiles ? r.tiles.filter(function (t) { return t.tile === tile; })[0] : null; }
        var base = of(w.results[0]);
        Object.keys(titles).forEach(function (k) {
          var row = [w.workload, tile, titles[k]];
          w.results.forEach(function (r, i) {
            var t = of(r);
            var v = t ? t[k] : null;
            var ch = i > 0 && t && base && base[k] ? ' (' + ((v - base[k]) / base[k] * 100 >= 0 ? '+' : '') + ((v - base[k]) / base[k] * 100).toFixed(1) + '%)' : '';
            row.push({ text: v === null ? '-' : cyclesText(v) + ch, cls: 'num' });
          });
          trows.push(row);
        });
      });
    });
    if (trows.length)
      table(['workload', 'tile', 'figure'].concat(ds.designs.map(function (d) { return d.task_id; })), trows, 'tile-figures');
    var charts = document.getElementById('design-charts');
    if (charts.children.length) { charts.hidden = false; root.appendChild(charts); }
    else root.appendChild(el('p', { 'class': 'note' }, 'No design passed a gate workload with its cycles: no chart of cycles against area.'));
  }

  // Verdicts, with each workload's cycles and their change against the run's default
  // configuration (its first task of OpenPiton's defaults that simulated something).
  section('Verdicts');
  var base = data.tasks.filter(function (t) { return t.default_configuration && t.results.length; })[0];
  function baseCycles(workload) {
    if (!base) return null;
    var r = base.results.filter(function (x) { return x.workload === workload; })[0];
    return r && r.cycles !== null ? r.cycles : null;
  }
  function cyclesText(c) { return c === null || c === undefined ? '-' : String(c).replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
  function change(c, b) {
    if (c === null || c === undefined || b === null || !b) return '-';
    var p = (c - b) / b * 100;
    return (p >= 0 ? '+' : '') + p.toFixed(1) + '%';
  }
  var vrows = [];
  data.tasks.forEach(function (t) {
    t.results.forEach(function (r) {
      vrows.push([t.iteration, t.task_id, r.workload, { text: r.verdict, cls: r.verdict },
                  { text: cyclesText(r.cycles), cls: 'num' },
                  { text: t === base ? 'baseline' : change(r.cycles, baseCycles(r.workload)), cls: 'num' },
                  secs(r.wall_s), logLink(logOf('sim_log', t.iteration, t.task_id, r.workload), 'sim.log')]);
    });
    if (!t.results.length) vrows.push([t.iteration, t.task_id, '-', { text: t.failure_reason || t.stage, cls: t.stage }, '-', '-', '-', '-']);
  });
  table(['iteration', 'task', 'workload', 'verdict', 'cycles',
         base ? 'change against iter' + base.iteration + ' ' + base.task_id + ' (default configuration)'
              : 'change (no task of the default configuration)', 'wall time', 'log'], vrows, 'verdicts');
  if (!base) root.appendChild(el('p', { 'class': 'note' }, 'The run has no task of OpenPiton\'s default configuration to compare against.'));
  var sourceWords = { built: 'built', checkout: 'reused in place', store: 'taken from the model store' };
  function mib(b) { return b === null || b === undefined ? '-' : Math.round(b / 1048576) + ' MiB'; }
  function optSecs(s) { return s === null || s === undefined ? '-' : secs(s); }
  table(['iteration', 'task', 'build', 'outcome', 'source', 'wall time', 'CPU time', 'peak memory', 'failure', 'log'], data.tasks.map(function (t) {
    return [t.iteration, t.task_id, t.build_id, { text: t.build_outcome || '-', cls: t.build_outcome },
            sourceWords[t.build_source] || '-', { text: optSecs(t.build_wall_s), cls: 'num' },
            { text: optSecs(t.build_cpu_s), cls: 'num' }, { text: mib(t.build_peak_rss_bytes), cls: 'num' },
            t.failure_reason, logLink(logOf('build_log', t.iteration, t.task_id), 'build.log')];
  }), 'builds');

  // Failures: grouped by signature, then each failed workload's transcript around its
  // error and verdict.
  section('Failures by signature');
  var groups = data.failure_groups || [];
  if (groups.length)
    table(['workloads', 'signature', 'which'], groups.map(function (g) {
      return [{ text: g.workloads.length, cls: 'num' }, { text: g.signature, cls: g.verdict },
              g.workloads.map(function (m) { return 'iter' + m.iteration + ' ' + m.task_id + ': ' + m.workload; }).join(', ')];
    }), 'failure-groups');
  else root.appendChild(el('p', {}, 'No workload failed.'));
  data.tasks.forEach(function (t) {
    t.results.forEach(function (r) {
      if (r.verdict === 'pass') return;
      var d = el('details', { 'class': 'failure', open: 'open', 'data-workload': r.workload });
      d.appendChild(el('summary', {}, 'iteration ' + t.iteration + ', ' + t.task_id + ', ' + r.workload + ': ' +
                                        r.verdict + (r.error_line ? ': ' + r.error_line : '')));
      d.appendChild(el('pre', { 'class': 'excerpt' }, r.excerpt || '(no transcript)'));
      var link = logLink(logOf('sim_log', t.iteration, t.task_id, r.workload), 'the whole sim.log');
      var p = el('p', {}, link.node ? '' : link.text);
      if (link.node) p.appendChild(link.node);
      d.appendChild(p);
      root.appendChild(d);
    });
  });

  // Coverage: each task's lines covered, per top-level module of the design.
  if ((data.coverage || []).length) {
    section('Coverage');
    function pct(a, b) { return b ? (100 * a / b).toFixed(1) + '%' : '-'; }
    data.coverage.forEach(function (c) {
      root.appendChild(el('h3', {}, 'Iteration ' + c.iteration + ', ' + c.task_id +
        (c.error ? ': no coverage' : ': over ' + c.workloads + ' workload' + (c.workloads === 1 ? '' : 's'))));
      if (c.error) { root.appendChild(el('p', { 'class': 'failed' }, c.error)); return; }
      var rows = c.modules.map(function (m) {
        return [m.module, { text: m.lines_covered, cls: 'num' }, { text: m.lines_total, cls: 'num' },
                { text: pct(m.lines_covered, m.lines_total), cls: 'num' }, { text: m.points_covered + ' of ' + m.points_total, cls: 'num' }];
      });
      rows.push([{ text: 'whole design', cls: 'total' }, { text: c.lines_covered, cls: 'num' }, { text: c.lines_total, cls: 'num' },
                 { text: pct(c.lines_covered, c.lines_total), cls: 'num' }, { text: c.points_covered + ' of ' + c.points_total, cls: 'num' }]);
      table(['module', 'lines covered', 'lines', 'covered', 'points'], rows, 'coverage');
      root.appendChild(el('p', {}, 'Merged data: ' + c.data_path + '; annotated source: ' + c.annotated_dir));
    });
  }

  section('Narrowing builds');
  if (data.narrowing_builds.length)
    table(['iteration', 'task', 'undone', 'build', 'result'], data.narrowing_builds.map(function (n) {
      return [n.iteration, n.task_id, n.undone, n.build_id, { text: n.passed ? 'passed' : 'failed (' + n.failure_reason + ')', cls: n.passed ? 'passed' : 'failed' }];
    }));
  else root.appendChild(el('p', {}, 'None.'));

  section('Diagnoses and post-mortem');
  if (data.diagnoses.length)
    table(['iteration', 'task', 'label', 'fix', 'source', 'recovered'], data.diagnoses.map(function (d) {
      return [d.iteration, d.task_id, d.label, d.fix, d.source, d.recovered ? 'yes' : 'no'];
    }));
  else root.appendChild(el('p', {}, 'No diagnosis.'));
  var pm = data.post_mortem;
  if (pm && pm.assessment) {
    root.appendChild(el('p', {}, 'Post-mortem: ' + pm.assessment));
    root.appendChild(el('p', {}, pm.explanation));
    if (pm.next_steps) root.appendChild(el('p', {}, 'Next: ' + pm.next_steps));
  } else root.appendChild(el('p', {}, 'No post-mortem.'));

  section('Logs');
  if (logs.length) {
    table(['iteration', 'task', 'what', 'log'], logs.map(function (l) {
      var what = l.kind === 'build_log' ? 'build log' : l.kind === 'sim_log' ? 'sim.log of ' + l.workload :
                 l.kind === 'coverage_data' ? 'merged coverage' :
                 l.kind === 'waveform' ? 'waveform of ' + l.workload : 'annotated ' + l.workload;
      if (l.narrowing) what += ' (narrowing: ' + l.narrowing + ')';
      if (l.note) what += ' (' + l.note + ')';
      var name = l.href ? l.href.slice(l.href.indexOf('/') + 1) : '';
      return [l.iteration, l.task_id, what, logLink(l, name)];
    }), 'logs');
  } else root.appendChild(el('p', {}, 'No log was kept.'));

  section('LLM calls');
  var inTok = 0, outTok = 0, cost = 0, unknown = 0;
  var crow = data.calls.map(function (c) {
    inTok += c.input_tokens; outTok += c.output_tokens;
    if (c.cost_usd === null) unknown++; else cost += c.cost_usd;
    return [c.iteration, c.phase, c.task_id, llm(c.backend, c.model), { text: c.input_tokens, cls: 'num' },
            { text: c.output_tokens, cls: 'num' }, { text: c.thinking_tokens, cls: 'num' }, usd(c.cost_usd),
            secs(c.wall_s), { text: c.success ? 'ok' : c.error_class, cls: c.success ? 'pass' : 'fail' }];
  });
  crow.push(['', 'total', '', data.calls.length + ' calls', { text: inTok, cls: 'num' }, { text: outTok, cls: 'num' }, '',
             usd(cost) + (unknown ? ' + ' + unknown + ' unknown' : ''), '', '']);
  table(['iteration', 'phase', 'task', 'LLM', 'input', 'output', 'thinking', 'cost', 'wall', 'outcome'], crow, 'calls');
  data.calls.forEach(function (c, i) {
    var d = el('details'); d.appendChild(el('summary', {}, 'call ' + (i + 1) + ': ' + c.phase + ' ' + (c.task_id || '')));
    d.appendChild(el('pre', {}, c.prompt)); d.appendChild(el('pre', {}, c.reply));
    root.appendChild(d);
  });

  document.body.setAttribute('data-rendered', 'yes');
})();
</script>
</body></html>
)html";

}  // namespace

std::string script_data_json(std::string_view json) {
  // JSON holds '<', '>', '&', U+2028 and U+2029 only inside its strings, where \uXXXX says
  // the same. Escaped, none of the HTML parser's script-data states ("</script", "<!--"
  // and "<script" opening the double-escaped state, where "</script>" no longer closes the
  // element) can be entered from the data.
  constexpr std::string_view kLineSeparator = "\xe2\x80\xa8", kParagraphSeparator = "\xe2\x80\xa9";
  std::string safe;
  safe.reserve(json.size());
  for (std::size_t i = 0; i < json.size(); ++i) {
    const std::string_view rest = json.substr(i);
    if (json[i] == '<') {
      safe += "\\u003c";
    } else if (json[i] == '>') {
      safe += "\\u003e";
    } else if (json[i] == '&') {
      safe += "\\u0026";
    } else if (rest.starts_with(kLineSeparator) || rest.starts_with(kParagraphSeparator)) {
      safe += rest.starts_with(kLineSeparator) ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      safe += json[i];
    }
  }
  return safe;
}

std::string report_html(const std::string& data_json, const std::string& charts_html) {
  return std::string(kHead) + charts_html + kMiddle + script_data_json(data_json) + kTail;
}

}  // namespace mace::client
