// The dashboard: every numeric field of metrics.jsonl, one chart per kind
// and field, refreshed every 10 seconds.
"use strict";

const NS = "http://www.w3.org/2000/svg";
let last = null;

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  parent.appendChild(e);
  return e;
}

function fmt(v) {
  if (Math.abs(v) >= 1e4 || (Math.abs(v) < 1e-2 && v !== 0)) return v.toExponential(1);
  return (Math.round(v * 1000) / 1000).toString();
}

function chart(title, points, xkey) {
  const div = document.createElement("div");
  div.className = "chart";
  div.dataset.chart = title;
  const h = document.createElement("h3"); h.textContent = title; div.appendChild(h);
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", "0 0 400 220");
  div.appendChild(svg);
  const pts = points.map((p, i) => [xkey === "g" ? (p.g ?? i) : (p.t ?? p.g ?? i), p.v]);
  if (pts.length === 0) return div;
  const xs = pts.map(p => p[0]), ys = pts.map(p => p[1]);
  let [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  if (y0 === y1) { y0 -= 1; y1 += 1; }
  const L = 50, R = 390, T = 10, B = 190;
  const sx = x => L + (x - x0) / (x1 - x0) * (R - L);
  const sy = y => B - (y - y0) / (y1 - y0) * (B - T);
  el("line", { x1: L, y1: B, x2: R, y2: B, class: "axis" }, svg);
  el("line", { x1: L, y1: T, x2: L, y2: B, class: "axis" }, svg);
  for (const y of [y0, (y0 + y1) / 2, y1]) {
    const t = el("text", { x: L - 4, y: sy(y) + 3, "text-anchor": "end", class: "tick" }, svg);
    t.textContent = fmt(y);
  }
  const xl = (x) => xkey === "g" || points[0].t == null ? fmt(x) : new Date(x * 1000).toLocaleTimeString();
  for (const [x, anchor] of [[x0, "start"], [x1, "end"]]) {
    const t = el("text", { x: sx(x), y: B + 16, "text-anchor": anchor, class: "tick" }, svg);
    t.textContent = xl(x);
  }
  el("polyline", { points: pts.map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join(" "), class: "series" }, svg);
  if (pts.length <= 60) for (const [x, y] of pts) el("circle", { cx: sx(x), cy: sy(y), r: 2.5, class: "pt" }, svg);
  const cap = document.createElement("div");
  cap.textContent = `${pts.length} points, last ${fmt(ys[ys.length - 1])}`;
  div.appendChild(cap);
  return div;
}

function render() {
  if (!last) return;
  const xkey = document.getElementById("x-axis").value;
  const charts = document.getElementById("charts");
  charts.innerHTML = "";
  for (const [kind, fields] of Object.entries(last.metrics)) {
    const h = document.createElement("h2"); h.textContent = kind; charts.appendChild(h);
    const grid = document.createElement("div"); grid.className = "charts"; charts.appendChild(grid);
    for (const [field, points] of Object.entries(fields)) grid.appendChild(chart(`${kind} · ${field}`, points, xkey));
  }
  const ev = document.getElementById("eval");
  ev.innerHTML = "";
  if (last.eval.length === 0) ev.textContent = "none yet";
  else {
    const t = document.createElement("table"); t.className = "eval";
    t.innerHTML = "<tr><th>file</th><th>games</th><th>counts</th><th>means</th></tr>";
    for (const f of last.eval) {
      const tr = document.createElement("tr");
      const counts = Object.entries(f.counts).map(([k, m]) => `${k}: ` + Object.entries(m).map(([v, n]) => `${v} ${n}`).join(", ")).join("; ");
      const means = Object.entries(f.means).map(([k, v]) => `${k} ${fmt(v)}`).join(", ");
      for (const text of [f.name, String(f.games), counts, means]) { const td = document.createElement("td"); td.textContent = text; tr.appendChild(td); }
      t.appendChild(tr);
    }
    ev.appendChild(t);
  }
}

async function refresh() {
  const info = document.getElementById("run-info");
  try {
    const res = await fetch("/api/run");
    const data = await res.json();
    if (!res.ok) { info.textContent = data.error; return; }
    last = data;
    info.textContent = `${data.dir}: ${data.lines} metric lines` + (data.skipped_lines ? `, ${data.skipped_lines} unreadable lines skipped` : "") + ` · updated ${new Date().toLocaleTimeString()}`;
    render();
  } catch (e) { info.textContent = String(e); }
}

document.getElementById("x-axis").addEventListener("change", render);
refresh();
setInterval(refresh, 10000);
