// The console's pages: one shell, drawn for its path by Preact (written with htm, no build step).
// Grids are Tabulator with remote paging (the server reads the report in ranges); charts are Chart.js.
import htm from 'htm';
import { h, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { TabulatorFull as Tabulator } from 'tabulator';

const html = htm.bind(h);

async function api(path, init) {
  const res = await fetch(path, init);
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(body.error ?? `${res.status} ${res.statusText}`);
  return body;
}

function useApi(path) {
  const [state, setState] = useState({ data: undefined, error: undefined });
  useEffect(() => {
    let live = true;
    api(path).then(
      (data) => live && setState({ data, error: undefined }),
      (error) => live && setState({ data: undefined, error: error.message }),
    );
    return () => {
      live = false;
    };
  }, [path]);
  return state;
}

const OUTCOME_COLOURS = {
  created: '#16a34a',
  updated: '#ca8a04',
  unchanged: '#9ca3af',
  deleted: '#7c3aed',
  skipped: '#d1d5db',
  invalid: '#dc2626',
  failed: '#b91c1c',
  'not-attempted': '#f97316',
  valid: '#16a34a',
  'would-create': '#22c55e',
  'would-update': '#eab308',
  'would-delete': '#8b5cf6',
};
const PROBLEM_OUTCOMES = ['failed', 'invalid', 'not-attempted'];

function duration(ms) {
  if (ms === undefined) return '';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

function counts(outcomes) {
  return Object.entries(outcomes ?? {})
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${o} ${n.toLocaleString('en')}`)
    .join(' · ');
}

function State({ state }) {
  return html`<span class=${`state state-${state}`}>${state}</span>`;
}

function Nav({ here, jobs }) {
  const link = (href, text, key) => html`<a href=${href} class=${here === key ? 'here' : ''}>${text}</a>`;
  return html`<header class="top">
    <strong>catalog-io</strong>
    ${link('/', 'Runs', 'runs')} ${link('/check', 'Check a file', 'check')}
    ${jobs ? html`<a href="/jobs">Jobs</a>` : html`<span class="muted" title="serve --redis URL shows the job queue">Jobs (no --redis)</span>`}
  </header>`;
}

/** A running import's progress, pushed by the server (server-sent events from its journal). */
function useLive(runId, running) {
  const [live, setLive] = useState(undefined);
  useEffect(() => {
    if (!running) return undefined;
    const source = new EventSource(`/api/runs/${encodeURIComponent(runId)}/live`);
    source.addEventListener('progress', (e) => setLive(JSON.parse(e.data)));
    source.addEventListener('end', () => source.close());
    return () => source.close();
  }, [runId, running]);
  return live;
}

function LiveProgress({ live }) {
  if (!live) return html`<span class="muted live">waiting for progress…</span>`;
  const share = live.totalRows ? Math.min(1, live.rows / live.totalRows) : undefined;
  const parts = [
    `${live.rate} rows/s`,
    ...(live.etaSeconds !== undefined ? [`ETA ${duration(live.etaSeconds * 1000)}`] : []),
    `${live.requests ?? 0} requests`,
    `${live.rateLimited ?? 0} × 429`,
  ];
  const of = live.totalRows ? ` of ~${live.totalRows.toLocaleString('en')}` : '';
  return html`<span class="live" data-rows=${live.rows}>
    ${share !== undefined && html`<span class="bar"><div style=${`width:${Math.round(share * 100)}%`}></div></span>`}
    <b>${live.rows.toLocaleString('en')}</b>${` rows${of}, ${parts.join(', ')}`}
  </span>`;
}

function RunRow({ run }) {
  const live = useLive(run.runId, run.state === 'running');
  const href = `/${run.plan ? 'plans' : 'runs'}/${encodeURIComponent(run.runId)}`;
  return html`<tr data-run=${run.runId} data-state=${live?.state ?? run.state}>
    <td><a href=${href}>${run.runId}</a>${run.plan ? html` <span class="muted">(plan)</span>` : ''}</td>
    <td><${State} state=${live?.state ?? run.state} /></td>
    <td>${run.source}</td>
    <td>${run.entity}</td>
    <td>${new Date(run.startedAt).toLocaleString()}</td>
    <td>${duration(live ? live.elapsedMs : run.durationMs)}</td>
    <td>${live ? html`<${LiveProgress} live=${live} />` : counts(run.outcomes)}</td>
    <td>${run.exitCode ?? ''}</td>
  </tr>`;
}

function RunsPage() {
  const [state, setState] = useState('');
  const [entity, setEntity] = useState('');
  const [runs, setRuns] = useState(undefined);
  const [error, setError] = useState(undefined);
  useEffect(() => {
    const query = new URLSearchParams({ ...(state && { state }), ...(entity && { entity }) });
    const load = () =>
      api(`/api/runs?${query}`).then(
        (body) => setRuns(body.runs),
        (e) => setError(e.message),
      );
    load();
    // New runs appear without a reload; a running one's row is kept up to date by its own events.
    const timer = setInterval(load, 15_000);
    return () => clearInterval(timer);
  }, [state, entity]);
  const entities = [...new Set((runs ?? []).map((r) => r.entity))];
  return html`<h1>Runs</h1>
    <div class="controls">
      <label>State <select id="filter-state" value=${state} onChange=${(e) => setState(e.target.value)}>
        <option value="">all</option>
        ${['running', 'finished', 'interrupted', 'crashed', 'stopped'].map((s) => html`<option value=${s}>${s}</option>`)}
      </select></label>
      <label>Entity <input id="filter-entity" list="entities" value=${entity} placeholder="all" onChange=${(e) => setEntity(e.target.value)} /></label>
      <datalist id="entities">${entities.map((e) => html`<option value=${e} />`)}</datalist>
    </div>
    ${error && html`<p class="error">${error}</p>`}
    ${
      runs === undefined
        ? html`<p class="muted">Loading…</p>`
        : runs.length === 0
          ? html`<p class="muted">No runs here yet: they appear as catalog-io import runs in this folder.</p>`
          : html`
    <table class="plain" id="runs">
      <thead><tr><th>run</th><th>state</th><th>source</th><th>entity</th><th>started</th><th>duration</th><th>rows</th><th>exit</th></tr></thead>
      <tbody>${runs.map((run) => html`<${RunRow} key=${run.runId} run=${run} />`)}</tbody>
    </table>`
    }`;
}

function OutcomeChart({ outcomes }) {
  const canvas = useRef(null);
  useEffect(() => {
    const entries = Object.entries(outcomes ?? {}).filter(([, n]) => n > 0);
    if (!canvas.current || entries.length === 0 || !window.Chart) return undefined;
    const chart = new window.Chart(canvas.current, {
      type: 'bar',
      data: {
        labels: entries.map(([o]) => o),
        datasets: [
          {
            data: entries.map(([, n]) => n),
            backgroundColor: entries.map(([o]) => OUTCOME_COLOURS[o] ?? '#6b7280'),
          },
        ],
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        plugins: { legend: { display: false } },
      },
    });
    return () => chart.destroy();
  }, [JSON.stringify(outcomes)]);
  return html`<div class="chart card"><canvas id="outcomes-chart" ref=${canvas}></canvas></div>`;
}

function Problems({ problems }) {
  if (!problems) return html`<p class="muted">Loading…</p>`;
  if (problems.length === 0) return html`<p class="muted" id="no-problems">No failed or invalid rows.</p>`;
  return html`<table class="plain" id="problems">
    <thead><tr><th>rows</th><th>outcome</th><th>column</th><th>problem</th><th>for example</th></tr></thead>
    <tbody>${problems.map(
      (p) => html`<tr>
      <td>${p.rows.toLocaleString('en')}</td><td>${p.outcome}</td><td>${p.column}</td><td>${p.kind}</td>
      <td><span class="muted">${p.example.location}</span> ${p.example.ref}</td></tr>`,
    )}</tbody>
  </table>`;
}

function escapeText(text) {
  return String(text ?? '').replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c],
  );
}

/** The per-row grid: pages, filter, search and sort done by the server, a page at a time. */
function ReportGrid({ rowsUrl, outcomes, plan }) {
  const element = useRef(null);
  const table = useRef(null);
  const query = useRef({ outcome: plan ? 'would-update' : '', search: '' });
  const [outcome, setOutcome] = useState(query.current.outcome);
  const [search, setSearch] = useState('');
  const [total, setTotal] = useState(undefined);
  const seq = useRef(0);
  const built = useRef(false);
  const pending = useRef(false);
  useEffect(() => {
    const columns = plan
      ? [
          { title: 'location', field: 'location', width: 130 },
          { title: 'ref', field: 'ref', width: 160 },
          { title: 'outcome', field: 'outcome', width: 120 },
          {
            title: 'changes (old → new)',
            field: 'changes',
            headerSort: false,
            formatter: (cell) => {
              const row = cell.getRow().getData();
              if (!row.changes) return escapeText(row.changed ?? row.message);
              return `<div class="diff">${row.changes.map((c) => `<div><b>${escapeText(c.field)}</b>: <del>${escapeText(c.old)}</del> → <ins>${escapeText(c.new)}</ins></div>`).join('')}</div>`;
            },
            variableHeight: true,
          },
        ]
      : [
          { title: 'location', field: 'location', width: 130 },
          { title: 'entity', field: 'entity', width: 100 },
          { title: 'ref', field: 'ref', width: 150 },
          { title: 'outcome', field: 'outcome', width: 110 },
          { title: 'id', field: 'id', width: 70 },
          { title: 'status', field: 'status', width: 70 },
          { title: 'column', field: 'column', width: 120 },
          { title: 'value', field: 'value', width: 140 },
          { title: 'message', field: 'message', formatter: 'textarea' },
        ];
    table.current = new Tabulator(element.current, {
      layout: 'fitColumns',
      height: 520,
      pagination: true,
      paginationMode: 'remote',
      paginationSize: 50,
      paginationSizeSelector: [25, 50, 100, 500],
      sortMode: 'remote',
      ajaxURL: rowsUrl,
      ajaxURLGenerator: (url, _config, params) => {
        // Numbered, and echoed by the server: only the latest request's answer sets the count shown.
        const q = new URLSearchParams({
          page: params.page ?? 1,
          size: params.size ?? 50,
          seq: ++seq.current,
        });
        if (query.current.outcome) q.set('outcome', query.current.outcome);
        if (query.current.search) q.set('search', query.current.search);
        const sort = params.sort?.[0];
        if (sort) {
          q.set('sort', sort.field);
          q.set('dir', sort.dir);
        }
        return `${url}?${q}`;
      },
      ajaxResponse: (_url, _params, response) => {
        if (response.seq === String(seq.current)) setTotal(response.total);
        return response;
      },
      placeholder: 'No rows',
      columns,
    });
    built.current = false;
    table.current.on('tableBuilt', () => {
      built.current = true;
      if (pending.current) table.current.setData();
      pending.current = false;
    });
    return () => table.current?.destroy();
  }, [rowsUrl]);
  // A filter changed before the table was built is loaded once it is.
  const reload = () => {
    if (built.current) table.current.setData();
    else pending.current = true;
  };
  return html`<div class="controls">
      <label>Outcome <select id="filter-outcome" value=${outcome} onChange=${(e) => {
        setOutcome(e.target.value);
        query.current.outcome = e.target.value;
        reload();
      }}>
        <option value="">all</option>
        ${!plan && html`<option value=${PROBLEM_OUTCOMES.join(',')}>problems (failed, invalid, not attempted)</option>`}
        ${Object.keys(outcomes ?? {}).map((o) => html`<option value=${o}>${o}</option>`)}
      </select></label>
      <label>Search <input id="search" type="search" placeholder="ref or value" value=${search}
        onChange=${(e) => {
          setSearch(e.target.value);
          query.current.search = e.target.value;
          reload();
        }} /></label>
      <span class="muted" id="grid-total">${total === undefined ? '' : `${total.toLocaleString('en')} rows`}</span>
    </div>
    <div id="grid" ref=${element}></div>`;
}

function RunPage({ id, plan }) {
  const { data: run, error } = useApi(`/api/runs/${encodeURIComponent(id)}`);
  const { data: problems } = useApi(`/api/runs/${encodeURIComponent(id)}/problems`);
  const live = useLive(id, run?.state === 'running');
  if (error) return html`<p class="error">${error}</p>`;
  if (!run) return html`<p class="muted">Loading…</p>`;
  const base = `/api/runs/${encodeURIComponent(id)}`;
  const isPlan = plan || run.plan;
  return html`<h1>${isPlan ? 'Plan' : 'Run'} ${run.runId} <${State} state=${live?.state ?? run.state} /></h1>
    <div class="cards">
      <${OutcomeChart} outcomes=${live?.outcomes ?? run.outcomes} />
      <div class="card">
        <div><b>source</b> ${run.source}</div>
        <div><b>entity</b> ${run.entity}</div>
        <div><b>started</b> ${new Date(run.startedAt).toLocaleString()}</div>
        <div><b>duration</b> ${duration(run.durationMs)}</div>
        <div><b>rows</b> ${run.rows.toLocaleString('en')}: ${counts(run.outcomes)}</div>
        ${run.exitCode !== undefined && html`<div><b>exit code</b> ${run.exitCode}</div>`}
        ${run.requests && html`<div><b>requests</b> ${run.requests.total}</div>`}
        ${run.message && html`<p>${run.message}</p>`}
        ${run.state === 'running' && html`<div id="live"><${LiveProgress} live=${live} /></div>`}
        <p>Download the report: <a href=${`${base}/report.csv`}>CSV</a> · <a href=${`${base}/report.xlsx`}>XLSX</a>
          ${run.rejects && html` · <a href=${`${base}/rejects`}>rejects file</a>`}</p>
      </div>
    </div>
    ${
      run.resumeCommand &&
      html`<h2>Resume</h2><p>The run did not finish; this continues it (rows already done are not done again):</p>
      <code class="cmd" id="resume">${run.resumeCommand}</code>`
    }
    ${!isPlan && html`<h2>Top problems</h2><${Problems} problems=${problems?.problems} />`}
    <h2>${isPlan ? 'What would change' : 'Rows'}</h2>
    <${ReportGrid} rowsUrl=${`${base}/rows`} outcomes=${run.outcomes} plan=${isPlan} />`;
}

function CheckPage() {
  const [feed, setFeed] = useState(undefined);
  const [profile, setProfile] = useState(undefined);
  const [over, setOver] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(undefined);
  // A drop of two files: the .json one beside a feed is the profile (a JSON feed alone is a feed); a
  // .yaml or .yml file is always a profile (no feed is YAML).
  const take = (files) => {
    const list = [...files];
    let chosenFeed = feed;
    for (const file of list) {
      if (/\.ya?ml$/i.test(file.name)) {
        setProfile(file);
        continue;
      }
      const isProfile =
        /\.json$/i.test(file.name) &&
        (list.length > 1 || chosenFeed) &&
        file !== list.find((f) => !/\.json$/i.test(f.name));
      if (isProfile && (chosenFeed || list.some((f) => !/\.json$/i.test(f.name)))) setProfile(file);
      else {
        chosenFeed = file;
        setFeed(file);
      }
    }
  };
  const submit = async (e) => {
    e.preventDefault();
    if (!feed) return setError('Drop a feed first');
    setBusy(true);
    setError(undefined);
    const form = new FormData();
    form.append('feed', feed, feed.name);
    if (profile) form.append('profile', profile, profile.name);
    const entity = e.target.entity.value;
    if (entity) form.append('entity', entity);
    try {
      const result = await api('/api/check', { method: 'POST', body: form });
      window.location.assign(`/checks/${result.id}`);
    } catch (err) {
      setError(err.message);
      setBusy(false);
    }
  };
  return html`<h1>Check a file</h1>
    <p>A feed (CSV, XLSX, JSON, NDJSON) and its mapping profile (JSON or YAML) are checked as <code>catalog-io validate</code> checks them: nothing is written to the tenant.</p>
    <form id="check-form" onSubmit=${submit}>
      <div id="drop" class=${`drop${over ? ' over' : ''}`}
        onDragOver=${(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave=${() => setOver(false)}
        onDrop=${(e) => {
          e.preventDefault();
          setOver(false);
          take(e.dataTransfer.files);
        }}>
        <p>Drop the feed here, or choose it:</p>
        <p><input type="file" id="feed" name="feed" onChange=${(e) => setFeed(e.target.files[0])} /></p>
        <p>Profile (optional): <input type="file" id="profile" name="profile" accept=".json,.yaml,.yml" onChange=${(e) => setProfile(e.target.files[0])} /></p>
        <p>Entity (without a profile): <input name="entity" placeholder="by its name or header" /></p>
        <p class="muted">${feed ? `feed: ${feed.name}` : 'no feed yet'}${profile ? ` · profile: ${profile.name}` : ''}</p>
      </div>
      <p><button type="submit" id="check" disabled=${busy}>${busy ? 'Checking…' : 'Check'}</button></p>
      ${error && html`<p class="error" id="check-error">${error}</p>`}
    </form>`;
}

function CheckResultPage({ id }) {
  const { data: check, error } = useApi(`/api/checks/${encodeURIComponent(id)}`);
  if (error) return html`<p class="error">${error}</p>`;
  if (!check) return html`<p class="muted">Loading…</p>`;
  return html`<h1>Check of ${check.file}</h1>
    <div class="cards">
      <${OutcomeChart} outcomes=${check.outcomes} />
      <div class="card" id="check-summary">
        <div><b>rows</b> ${check.rows.toLocaleString('en')}: ${counts(check.outcomes)}</div>
        ${check.notes.map((n) => html`<div class="muted">${n}</div>`)}
        ${check.warnings.map((w) => html`<div class="bad">${w}</div>`)}
      </div>
    </div>
    <h2>Top problems</h2><${Problems} problems=${check.problems} />
    <h2>Rows</h2>
    <${ReportGrid} rowsUrl=${`/api/checks/${encodeURIComponent(id)}/rows`} outcomes=${check.outcomes} />`;
}

/** The page for this path: [pattern, nav entry, page]. */
const ROUTES = [
  [/^\/runs\/([^/]+)$/, 'runs', (id) => html`<${RunPage} id=${id} />`],
  [/^\/plans\/([^/]+)$/, 'runs', (id) => html`<${RunPage} id=${id} plan=${true} />`],
  [/^\/checks\/([^/]+)$/, 'check', (id) => html`<${CheckResultPage} id=${id} />`],
  [/^\/check$/, 'check', () => html`<${CheckPage} />`],
  [/^/, 'runs', () => html`<${RunsPage} />`],
];

function App({ about }) {
  const path = window.location.pathname;
  const [pattern, here, page] = ROUTES.find(([p]) => p.test(path));
  const id = pattern.exec(path)[1];
  return html`<${Nav} here=${here} jobs=${about?.jobs} /><main>${page(id && decodeURIComponent(id))}</main>`;
}

const root = document.getElementById('app');
const draw = (about) => {
  root.textContent = '';
  render(html`<${App} about=${about} />`, root);
};
api('/api/about').then(draw, () => draw(undefined));
