// The grid game's page (UMO 2014, Problem 1): draws the N x N board, turns
// clicks on highlighted points into actions (`Ge6` moves Green, `d5` puts
// a Red stone), lets the engine answer, shows the solver's verdict and
// draws two charts of the game played beside the solver's optimal line.
// The game's life on the page is page.js's GameSession.
"use strict";

let config = null;      // /api/grid/config
let drawnSide = null;
let layers = null;      // the SVG groups of the drawn board
const session = new GameSession("/api/grid/games", render);

const playerName = (c) => c === "white" ? "Player 1 (Green)" : c === "black" ? "Player 2 (Red)" : "–";
const FILES = "abcdefghijk";
function coords(name) { return [FILES.indexOf(name[0]), Number(name.slice(1)) - 1]; }

// ---- the board ----

function drawBoard(side) {
  const svg = $("board");
  const m = side - 1;
  svg.innerHTML = "";
  svg.setAttribute("viewBox", `-1 -0.8 ${m + 1.8} ${m + 1.8}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  svg.setAttribute("aria-label", `${side} x ${side} grid`);
  const pos = (name) => { const [c, r] = coords(name); return [c, m - r]; };
  const g = (cls) => el("g", { class: cls }, svg);
  const lines = g("lines"), labels = g("labels");
  layers = { pos, side, trail: g("trail-layer"), marks: g("marks"), stones: g("stones"), best: g("best"), hits: g("hits") };
  el("rect", { class: "grid-bg", x: -0.5, y: -0.5, width: m + 1, height: m + 1, rx: 0.12 }, lines);
  for (let i = 0; i <= m; i++) {
    el("line", { class: "line", x1: 0, y1: i, x2: m, y2: i }, lines);
    el("line", { class: "line", x1: i, y1: 0, x2: i, y2: m }, lines);
  }
  for (const [c, r] of [[0, 0], [0, m], [m, 0], [m, m]]) {
    el("rect", { class: "corner", x: c - 0.3, y: r - 0.3, width: 0.6, height: 0.6, rx: 0.08 }, lines);
  }
  for (let c = 0; c <= m; c++) {
    const t = el("text", { class: "label", x: c, y: m + 0.65, "text-anchor": "middle" }, labels);
    t.textContent = FILES[c];
  }
  for (let r = 0; r <= m; r++) {
    const t = el("text", { class: "label", x: -0.7, y: m - r + 0.12, "text-anchor": "middle" }, labels);
    t.textContent = String(r + 1);
  }
  for (let c = 0; c <= m; c++) {
    for (let r = 0; r <= m; r++) {
      const name = FILES[c] + (r + 1);
      const hit = el("circle", { class: "hit", cx: c, cy: m - r, r: 0.45, "data-point": name }, layers.hits);
      el("title", {}, hit);
      hit.addEventListener("click", () => onPoint(name));
    }
  }
  drawnSide = side;
}

/** Green's path so far: the start, then each point it stepped to. */
function greenPath() {
  const game = session.game;
  const c = (game.side - 1) / 2;
  const path = [FILES[c] + (c + 1)];
  for (const a of game.history) if (a.startsWith("G")) path.push(a.slice(1));
  return path;
}

function renderBoard(targets, best) {
  if (!layers) return;
  const game = session.game;
  const { pos } = layers;
  for (const k of ["trail", "marks", "stones", "best"]) layers[k].innerHTML = "";
  const path = greenPath();
  if (path.length > 1) {
    el("polyline", { class: "trail", points: path.map(p => pos(p).join(",")).join(" ") }, layers.trail);
  }
  const last = game.last ? (game.last.startsWith("G") ? game.last.slice(1) : game.last) : null;
  for (const p of game.board.red) {
    const [x, y] = pos(p);
    el("circle", { class: "stone red" + (p === last ? " last" : ""), cx: x, cy: y, r: 0.3, "data-stone": "red", "data-at": p }, layers.stones);
  }
  const [gx, gy] = pos(game.board.green);
  el("circle", { class: "stone green" + (game.board.green === last ? " last" : ""), cx: gx, cy: gy, r: 0.34, "data-stone": "green", "data-at": game.board.green }, layers.stones);
  for (const [p, kind] of Object.entries(targets)) {
    const [x, y] = pos(p);
    el("circle", { class: `mark ${kind}`, cx: x, cy: y, r: kind === "lose" ? 0.36 : 0.12 }, layers.marks);
  }
  for (const p of best) {
    const [x, y] = pos(p);
    el("circle", { class: "best-ring", cx: x, cy: y, r: 0.42 }, layers.best);
  }
  for (const hit of layers.hits.children) {
    const p = hit.dataset.point;
    const kind = targets[p];
    if (kind) hit.dataset.target = kind; else delete hit.dataset.target;
    if (best.includes(p)) hit.dataset.best = "true"; else delete hit.dataset.best;
    hit.firstChild.textContent = kind === "lose" ? `G${p}: Green enters a corner, and Player 1 loses`
      : kind === "step" ? `G${p}: move Green here` : kind === "place" ? `${p}: put a Red stone here` : p;
  }
}

function onPoint(p) {
  if (!session.humanToAct()) return;
  const legal = session.game.legal.find(l => l.point === p);
  if (legal) session.play(legal.action);
}

// ---- the charts ----

/** Draws `key` of the played and optimal series into `svg`, as lines with a dot per point. */
function drawChart(svg, played, optimal, key, label) {
  svg.innerHTML = "";
  const W = 320, H = 160, L = 34, R = 310, T = 10, B = 130;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const all = played.concat(optimal);
  const xMax = Math.max(1, ...all.map(p => p.p1_moves));
  const yMax = Math.max(1, ...all.map(p => p[key]));
  const sx = (x) => L + x / xMax * (R - L);
  const sy = (y) => B - y / yMax * (B - T);
  el("line", { class: "axis", x1: L, y1: B, x2: R, y2: B }, svg);
  el("line", { class: "axis", x1: L, y1: T, x2: L, y2: B }, svg);
  const step = (max) => Math.max(1, Math.ceil(max / 8));
  for (let x = 0; x <= xMax; x += step(xMax)) {
    const t = el("text", { class: "tick", x: sx(x), y: B + 13, "text-anchor": "middle" }, svg);
    t.textContent = String(x);
  }
  for (let y = 0; y <= yMax; y += step(yMax)) {
    el("line", { class: "gridline", x1: L, y1: sy(y), x2: R, y2: sy(y) }, svg);
    const t = el("text", { class: "tick", x: L - 5, y: sy(y) + 3, "text-anchor": "end" }, svg);
    t.textContent = String(y);
  }
  const xl = el("text", { class: "tick", x: (L + R) / 2, y: H - 3, "text-anchor": "middle" }, svg);
  xl.textContent = "moves of Player 1";
  for (const [name, series] of [["optimal", optimal], ["played", played]]) {
    const g = el("g", { class: `chart-series ${name}`, "data-series": name, "data-points": series.length }, svg);
    if (series.length > 1) {
      el("polyline", { class: `series ${name}`, points: series.map(p => `${sx(p.p1_moves).toFixed(1)},${sy(p[key]).toFixed(1)}`).join(" ") }, g);
    }
    for (const p of series) {
      const c = el("circle", { class: `pt ${name}`, cx: sx(p.p1_moves).toFixed(1), cy: sy(p[key]).toFixed(1), r: name === "played" ? 3 : 4.2, "data-x": p.p1_moves, "data-y": p[key] }, g);
      const t = el("title", {}, c);
      t.textContent = `${name === "played" ? "this game" : "optimal line"}: after ${p.p1_moves} moves of Player 1, ${label} ${p[key]}`;
    }
  }
}

function renderCharts() {
  const game = session.game;
  const { played, optimal } = game.charts;
  drawChart($("chart-red"), played, optimal, "red", "Red stones");
  drawChart($("chart-distance"), played, optimal, "distance", "distance");
  const lastPlayed = played[played.length - 1];
  const lastOpt = optimal[optimal.length - 1];
  $("chart-summary").textContent =
    `This game: ${lastPlayed.p1_moves} moves of Player 1, ${game.board.red.length} Red stones` +
    (game.outcome ? " (over)" : " so far") +
    `. Optimal line: ${lastOpt.p1_moves} moves, ${game.optimal.red_at_end} Red stones at the end.`;
}

// ---- drawing the page ----

function render() {
  const game = session.game;
  if (!game) return;
  if (drawnSide !== game.side) drawBoard(game.side);
  const b = document.body.dataset;
  const interactive = session.humanToAct();
  const targets = {};
  if (interactive) {
    for (const l of game.legal) targets[l.point] = l.loses ? "lose" : l.action.startsWith("G") ? "step" : "place";
  }
  const solver = game.solver && game.solver.ply === game.ply ? game.solver : null;
  const showBest = $("best-toggle").checked && interactive && solver && solver.best;
  const bestActions = showBest ? solver.best : [];
  const best = bestActions.map(a => a.startsWith("G") ? a.slice(1) : a);
  renderBoard(targets, best);

  let prompt = "";
  if (game.outcome) prompt = "Game over.";
  else if (session.busy && game.engine_to_act) prompt = "The engine is thinking…";
  else if (game.engine_to_act) prompt = "The engine is to play.";
  else if (game.to_act === "white") prompt = "Player 1: click a highlighted point to move Green there (a corner, ringed in red, loses).";
  else prompt = "Player 2: click a highlighted empty point to put a Red stone there.";

  $("prompt").textContent = prompt;
  $("to-act").textContent = game.to_act ? playerName(game.to_act) : "–";
  const [c, r] = coords(game.board.green), m = game.side - 1;
  const dist = Math.min(c, m - c) + Math.min(r, m - r);
  $("green-at").textContent = `${game.board.green}, ${dist} step${dist === 1 ? "" : "s"} from a corner`;
  $("red-count").textContent = String(game.board.red.length);
  listMoves(game.history);
  renderSolver(solver, bestActions);
  renderCharts();
  session.showStatus(playerName, game.legal.map(l => l.action));
  b.best = JSON.stringify(bestActions);
  b.solverPly = solver ? String(solver.ply) : "";
  b.played = String(game.charts.played.length);
  b.optimal = String(game.charts.optimal.length);
}

function renderSolver(solver, best) {
  const game = session.game;
  if (game.outcome) $("verdict").textContent = "The game is over.";
  else if (!solver) $("verdict").textContent = "…";
  else $("verdict").textContent = solver.value ? `${solver.value.text} (${solver.nodes.toLocaleString("en")} positions searched).` : solver.text;
  $("best-list").textContent = best.length ? `Best: ${best.join(" ")}` : "";
  $("optimal-line").textContent = `From the start, ${game.optimal.value.text}: ${game.optimal.moves.join(" ")}`;
}

// ---- the new-game form ----

async function init() {
  try {
    config = await api("GET", "/api/grid/config");
  } catch (e) { showError(e); }
  listPlayerKinds(config && config.players);
  offerSuggestions(config ? config.suggestions : []);
  if (!$("ng-spec").value) $("ng-spec").value = config ? config.default_opponent : "solver";
  $("ng-variant").addEventListener("change", () => { if (!session.game) drawBoard(Number($("ng-variant").value.split("x")[0])); });
  session.bindControls();
  $("best-toggle").addEventListener("change", render);
  if (await session.resume()) {
    render();
    await session.engineIfToAct();
  } else drawBoard(Number($("ng-variant").value.split("x")[0]));
  document.body.dataset.ready = "true";
}

init();
