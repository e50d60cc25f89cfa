#!/usr/bin/env node
// The charts of docs/benchmarks.md, drawn from the benches' results files in docs/bench-data/.
// `npm run docs:charts` writes docs/images/*.svg and, in docs/benchmarks.md, each chart's block
// between its markers (the image and a caption naming the command and the date of the run);
// `--check` (run by `npm run lint`) exits 1 when an SVG or a block is not what the data gives, so a
// chart cannot drift from the figures it claims to show.
// No dependencies and no network: the SVG is written here. Each chart draws its own opaque
// background and switches to dark colours under prefers-color-scheme: dark, so it reads the same on
// a light or a dark page whether or not the viewer (GitHub, VS Code's Markdown preview) passes the
// theme through to images.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';

process.chdir(new URL('..', import.meta.url).pathname);
const PAGE = 'docs/benchmarks.md';
const IMAGES = 'docs/images';

// ---- numbers ----

/** A number as a label: at most three significant digits, no trailing zeros, `k`/`M` for thousands. */
function short(v) {
  if (v >= 1e6) return `${trim(v / 1e6)}M`;
  if (v >= 1e3) return `${trim(v / 1e3)}k`;
  return trim(v);
}
function trim(v) {
  return String(Number(v.toPrecision(3)));
}

/** Ticks of a log axis over [lo, hi]: 1, 2, 5 times the powers of ten (1, 3 where that gives too many). */
function logTicks(lo, hi) {
  const out = (steps) => {
    const ticks = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++)
      for (const s of steps) {
        const v = s * 10 ** e;
        if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(Number(v.toPrecision(3)));
      }
    return ticks;
  };
  const fine = out([1, 2, 5]);
  return fine.length <= 8 ? fine : out([1, 3]).length <= 8 ? out([1, 3]) : out([1]);
}

/** Ticks of a linear axis from 0 to at least `hi`, about five of them at 1, 2 or 5 times a power of ten. */
function linearTicks(hi) {
  const raw = hi / 5;
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
  const ticks = [];
  for (let v = 0; v < hi + step; v += step) ticks.push(Number(v.toPrecision(6)));
  return ticks;
}

/** Where `v` falls on an axis from `d0` to `d1` drawn from pixel `r0` to `r1`. */
function scale(log, d0, d1, r0, r1) {
  const f = log ? (v) => Math.log10(v) : (v) => v;
  return (v) => r0 + ((f(v) - f(d0)) / (f(d1) - f(d0))) * (r1 - r0);
}
const px = (v) => String(Math.round(v * 10) / 10);

// ---- SVG ----

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Series colours (Okabe and Ito's, which stay apart for the common colour blindnesses), a lighter
 * variant of each for the dark background; series also differ by marker and dash.
 */
const PALETTE = [
  ['#0072b2', '#56b4e9'],
  ['#d55e00', '#ff8c42'],
  ['#009e73', '#3fd0a5'],
  ['#cc79a7', '#e7a3cb'],
  ['#6b6b6b', '#b0b0b0'],
  ['#e69f00', '#f5c04a'],
];
const STYLE = [
  'svg{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:12px}',
  '.bg{fill:#ffffff}.fg{fill:#24292f}.muted{fill:#57606a}.grid{stroke:#d0d7de;stroke-width:1}.axis{stroke:#57606a;stroke-width:1}',
  ...PALETTE.map(([light], i) => `.s${i}{stroke:${light};fill:${light}}`),
  '@media (prefers-color-scheme:dark){.bg{fill:#0d1117}.fg{fill:#e6edf3}.muted{fill:#9198a1}.grid{stroke:#30363d}.axis{stroke:#9198a1}',
  ...PALETTE.map(([, dark], i) => `.s${i}{stroke:${dark};fill:${dark}}`),
  '}',
].join('\n');

const MARKERS = ['circle', 'square', 'diamond', 'triangle', 'circle', 'square'];
function marker(kind, x, y, r, cls) {
  if (kind === 'circle') return `<circle class="${cls}" cx="${px(x)}" cy="${px(y)}" r="${r}"/>`;
  if (kind === 'square') return `<rect class="${cls}" x="${px(x - r)}" y="${px(y - r)}" width="${2 * r}" height="${2 * r}"/>`;
  const pts =
    kind === 'diamond'
      ? [
          [x, y - r * 1.3],
          [x + r * 1.3, y],
          [x, y + r * 1.3],
          [x - r * 1.3, y],
        ]
      : [
          [x, y - r * 1.3],
          [x + r * 1.2, y + r],
          [x - r * 1.2, y + r],
        ];
  return `<polygon class="${cls}" points="${pts.map(([a, b]) => `${px(a)},${px(b)}`).join(' ')}"/>`;
}

/**
 * A line chart: each series a polyline through its points (the medians, or a distribution's steps),
 * with `samples` (every run) as faint markers around them. `series[i].dash` draws a bound rather
 * than a contender; `markers: false` leaves the points unmarked (a distribution's hundreds).
 */
function lineChart({ title, desc, x, y, series, width = 720, height = 420 }) {
  const legendW = 16 + Math.max(...series.map((s) => s.label.length)) * 6.6 + 12;
  const m = { left: 64, right: legendW + 16, top: 40, bottom: 52 };
  const plot = { x0: m.left, x1: width - m.right, y0: height - m.bottom, y1: m.top };
  const all = series.flatMap((s) => [...s.points, ...(s.samples ?? [])]);
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  const xDom = x.log ? [Math.min(...xs) / 1.15, Math.max(...xs) * 1.15] : [0, Math.max(...xs) * 1.05];
  const yDom = y.domain ? [...y.domain] : y.log ? [Math.min(...ys) / 1.3, Math.max(...ys) * 1.3] : [0, Math.max(...ys) * 1.08];
  const xTicks = x.ticks ?? (x.log ? logTicks(...xDom) : linearTicks(xDom[1]));
  const yTicks = y.ticks ?? (y.log ? logTicks(...yDom) : linearTicks(yDom[1]));
  if (!y.log && !y.domain) yDom[1] = Math.max(yDom[1], yTicks.at(-1));
  if (!x.log) xDom[1] = Math.max(xDom[1], xTicks.at(-1));
  const sx = scale(x.log, ...xDom, plot.x0, plot.x1);
  const sy = scale(y.log, ...yDom, plot.y0, plot.y1);
  const out = [];
  for (const t of yTicks) {
    out.push(`<line class="grid" x1="${plot.x0}" x2="${plot.x1}" y1="${px(sy(t))}" y2="${px(sy(t))}"/>`);
    out.push(`<text class="muted" x="${plot.x0 - 6}" y="${px(sy(t) + 4)}" text-anchor="end">${esc((y.format ?? short)(t))}</text>`);
  }
  for (const t of xTicks) {
    out.push(`<line class="grid" x1="${px(sx(t))}" x2="${px(sx(t))}" y1="${plot.y0}" y2="${plot.y1}"/>`);
    out.push(`<text class="muted" x="${px(sx(t))}" y="${plot.y0 + 16}" text-anchor="middle">${esc((x.format ?? short)(t))}</text>`);
  }
  out.push(`<line class="axis" x1="${plot.x0}" x2="${plot.x1}" y1="${plot.y0}" y2="${plot.y0}"/>`);
  out.push(`<line class="axis" x1="${plot.x0}" x2="${plot.x0}" y1="${plot.y0}" y2="${plot.y1}"/>`);
  out.push(`<text class="fg" x="${px((plot.x0 + plot.x1) / 2)}" y="${height - 12}" text-anchor="middle">${esc(x.label)}</text>`);
  out.push(`<text class="fg" transform="translate(16 ${px((plot.y0 + plot.y1) / 2)}) rotate(-90)" text-anchor="middle">${esc(y.label)}</text>`);
  out.push(`<text class="fg" x="${plot.x0}" y="22" font-size="15" font-weight="600">${esc(title)}</text>`);
  series.forEach((s, i) => {
    const cls = `s${i % PALETTE.length}`;
    const kind = MARKERS[i % MARKERS.length];
    for (const [a, b] of s.samples ?? []) out.push(marker(kind, sx(a), sy(b), 2, cls).replace('/>', ' opacity="0.35"/>'));
    const pts = s.points.map(([a, b]) => `${px(sx(a))},${px(sy(b))}`).join(' ');
    const dash = s.dash ? ' stroke-dasharray="6 4"' : '';
    if (s.points.length > 1) out.push(`<polyline class="${cls}" fill="none" style="fill:none" stroke-width="2"${dash} points="${pts}"/>`);
    if (!s.dash && s.markers !== false) for (const [a, b] of s.points) out.push(marker(kind, sx(a), sy(b), 3.5, cls));
    const ly = plot.y1 + 8 + i * 20;
    const lx = plot.x1 + 16;
    out.push(`<line class="${cls}" x1="${lx}" x2="${lx + 18}" y1="${ly}" y2="${ly}" stroke-width="2"${dash}/>`);
    if (!s.dash && s.markers !== false) out.push(marker(kind, lx + 9, ly, 3.5, cls));
    out.push(`<text class="fg" x="${lx + 24}" y="${ly + 4}">${esc(s.label)}</text>`);
  });
  return svgDoc(width, height, title, desc, out);
}

function svgDoc(width, height, title, desc, body) {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="t d">`,
    `<title id="t">${esc(title)}</title>`,
    `<desc id="d">${esc(desc)}</desc>`,
    `<style>\n${STYLE}\n</style>`,
    `<rect class="bg" width="${width}" height="${height}" rx="6"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

// ---- the charts ----

const readJson = (file) => {
  if (!existsSync(file)) throw new Error(`${file}: missing (run the bench with --json ${file})`);
  return JSON.parse(readFileSync(file, 'utf8'));
};

/** The load bench's contenders the charts show, in legend order; the raw-bytes bound is drawn dashed. */
const LOAD_SERIES = [
  ['kubeloop', 'kubeloop load'],
  ['kubeloopMeta', 'kubeloop load --metadata-only'],
  ['naive', 'naive client-node'],
  ['kubectl', 'kubectl get -A -o json'],
  ['raw', 'raw bytes bound (not parsed)', true],
];

/** One series per contender of the load bench: `pick(sample)` of its median and of every run, against objects. */
function loadSeries(data, pick) {
  return LOAD_SERIES.map(([key, label, dash]) => {
    const at = data.sizes.filter((s) => s.contenders?.[key]?.median.exit === 0 && pick(s.contenders[key].median) > 0);
    const objects = (s) => s.objects;
    return {
      label,
      dash,
      points: at.map((s) => [objects(s), pick(s.contenders[key].median)]),
      samples: dash ? [] : at.flatMap((s) => s.contenders[key].runs.filter((r) => r.exit === 0 && pick(r) > 0).map((r) => [objects(s), pick(r)])),
    };
  }).filter((s) => s.points.length > 0);
}

const seconds = (v) => (v >= 1 ? short(v) : String(Number(v.toPrecision(2))));

/** What the caption says of the machine: its cores and how busy it was (every process, ours and others') over the run. */
function machineNote(data) {
  const busy = data.sizes.map((s) => s.machineLoad?.busyPct).filter((x) => x !== undefined);
  const load = busy.length ? `, ${Math.min(...busy)}-${Math.max(...busy)} % of both cores busy over the sizes (the bench's own processes and other work)` : '';
  return `${data.meta.machine.cores} cores (${data.meta.machine.cpu})${load}`;
}

function loadCaption(data, what) {
  return `${what} \`${data.meta.command}\`, ${data.meta.date.slice(0, 10)}, Node ${data.meta.node}, ${machineNote(data)}.`;
}

function loadCharts() {
  const data = readJson('docs/bench-data/load.json');
  const sizes = data.sizes.map((s) => s.objects);
  const x = { label: 'objects in the cluster (log scale)', log: true, ticks: sizes };
  return [
    {
      name: 'load-wall',
      alt: 'Load time against objects per contender',
      svg: lineChart({
        title: 'Loading every object: wall time',
        desc: 'Wall time of one load of every listable type against the number of objects, per client, on the demo cluster; lines through the medians, faint markers for every run.',
        x,
        y: { label: 'wall time, s (log scale)', log: true, format: seconds },
        series: loadSeries(data, (r) => r.wallMs / 1000),
      }),
      caption: loadCaption(
        data,
        'Wall time from start to exit per client, the same runs: where the machine was busy with other work, runs of one client spread (faint markers) where their CPU times do not.',
      ),
    },
    {
      name: 'load-cpu',
      alt: 'CPU time of a load against objects per contender',
      svg: lineChart({
        title: 'Loading every object: CPU time of the client',
        desc: 'CPU time (user and system) of the client process for one load against the number of objects; lines through the medians, faint markers for every run.',
        x,
        y: { label: 'client CPU time, s (log scale)', log: true, format: seconds },
        series: loadSeries(data, (r) => (r.cpuMs ?? 0) / 1000),
      }),
      caption: loadCaption(
        data,
        "The client's own CPU time (user + system, its children included; GNU time): the line through each client's median run, every run marked; the cluster's CPU per run is in the results file.",
      ),
    },
    {
      name: 'load-cpu-ratio',
      alt: "CPU time of a load relative to kubeloop load's, per contender",
      svg: lineChart({
        title: "Loading every object: CPU time relative to kubeloop load's",
        desc: "Each client's CPU time for one load divided by kubeloop load's in the same run, against the number of objects.",
        x,
        y: { label: "client CPU ÷ kubeloop load's (log scale)", log: true, format: (v) => `${short(v)}x` },
        series: ratioSeries(data),
      }),
      caption: loadCaption(
        data,
        "Each client's CPU time (its median run's) over kubeloop load's at the same size in the same run: unlike wall time, a ratio that holds on a busy machine.",
      ),
    },
  ];
}

/** One series per contender of the load bench: its median run's CPU over kubeloop load's at each size. */
function ratioSeries(data) {
  return LOAD_SERIES.map(([key, label, dash]) => {
    const at = data.sizes.filter((s) => [key, 'kubeloop'].every((k) => s.contenders?.[k]?.median.exit === 0 && s.contenders[k].median.cpuMs > 0));
    return { label, dash, points: at.map((s) => [s.objects, s.contenders[key].median.cpuMs / s.contenders.kubeloop.median.cpuMs]) };
  }).filter((s) => s.points.length > 0);
}

/** The share of `xs` at or below each of its values: the empirical distribution, as the corners of its steps. */
function ecdf(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.flatMap((v, i) => [
    [v, i / s.length],
    [v, (i + 1) / s.length],
  ]);
}

function latencyCharts() {
  const data = readJson('docs/bench-data/extension.json');
  const run = data.sizes[0];
  const c = run.churn;
  const p = (xs, q) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(q * xs.length) - 1)];
  const series = [
    { label: 'change visible in its tree row', points: ecdf(c.latencies), markers: false },
    { label: 'PATCH answered by the cluster', points: ecdf(c.apiLatencies), markers: false },
  ];
  return [
    {
      name: 'extension-latency',
      alt: 'Distribution of the time from a change to its row',
      svg: lineChart({
        title: 'A change on the cluster to its row in VS Code',
        desc: `Empirical distribution of ${c.latencies.length} probes: the time from a status PATCH to the tree row showing it, and to the PATCH's answer, under churn.`,
        x: { label: 'time after the PATCH was sent (log scale)', log: true, format: (v) => (v >= 1000 ? `${short(v / 1000)} s` : `${short(v)} ms`) },
        y: {
          label: 'share of probes at or below',
          log: false,
          domain: [0, 1],
          ticks: [0, 0.25, 0.5, 0.75, 0.95, 1],
          format: (v) => `${Math.round(v * 100)} %`,
        },
        series,
      }),
      caption:
        `${c.latencies.length} probes, one a second, during ${run.churnPerSecond} writes/s to a cluster of ${short(run.objects)} objects; ` +
        `p50 ${Math.round(p(c.latencies, 0.5))} ms, p95 ${Math.round(p(c.latencies, 0.95))} ms, ${c.missed} missed. ` +
        `\`${data.meta.command}\`, ${data.meta.date.slice(0, 10)}, Node ${data.meta.node}, ${data.meta.machine.cores} cores (${data.meta.machine.cpu}).`,
    },
  ];
}

// ---- the page ----

const begin = (name) => `<!-- bench-chart:${name} (generated by scripts/bench-charts.mjs from docs/bench-data; do not edit) -->`;
const end = (name) => `<!-- bench-chart:${name}:end -->`;

/** The page with each chart's block rewritten; a chart whose markers the page lacks is an error. */
function withBlocks(page, charts) {
  for (const c of charts) {
    const b = page.indexOf(begin(c.name));
    const e = page.indexOf(end(c.name));
    if (b < 0 || e < b) throw new Error(`${PAGE}: the markers of chart ${c.name} are missing:\n${begin(c.name)}\n${end(c.name)}`);
    const block = `![${c.alt}](images/${c.name}.svg)\n\n*${c.caption}*`;
    page = `${page.slice(0, b + begin(c.name).length)}\n${block}\n${page.slice(e)}`;
  }
  return page;
}

const charts = [...loadCharts(), ...latencyCharts()];
const page = readFileSync(PAGE, 'utf8');
const fresh = withBlocks(page, charts);
if (process.argv.includes('--check')) {
  const stale = charts
    .filter((c) => !existsSync(`${IMAGES}/${c.name}.svg`) || readFileSync(`${IMAGES}/${c.name}.svg`, 'utf8') !== c.svg)
    .map((c) => `${IMAGES}/${c.name}.svg`);
  if (fresh !== page) stale.push(`${PAGE} (a chart's block)`);
  if (stale.length) {
    console.error(`not what docs/bench-data gives: ${stale.join(', ')}; run npm run docs:charts`);
    process.exit(1);
  }
  console.log(`${charts.length} charts are what docs/bench-data gives`);
} else {
  mkdirSync(IMAGES, { recursive: true });
  for (const c of charts) writeFileSync(`${IMAGES}/${c.name}.svg`, c.svg);
  writeFileSync(PAGE, fresh);
  console.log(`${charts.length} charts written to ${IMAGES}, their blocks to ${PAGE}`);
}
