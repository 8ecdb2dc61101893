// The Connect Four page: draws the 7 x 6 frame and every stone, turns a
// click on a column into the decision (its number, `1` to `7`), lets the
// engine answer, outlines the winning four, and on request shows the
// exact solver's score of every column (GET .../analysis).
"use strict";

let config = null;      // /api/connect4/config
let layers = null;      // the SVG groups of the drawn board
let analysis = null;    // the solver's answer for the position shown, if asked
let asked = "";         // the moves that answer is for
const W = 7, H = 6;
const session = new GameSession("/api/connect4/games", render, () => { analysis = null; });

const cap = (c) => c ? c[0].toUpperCase() + c.slice(1) : "–";
/** The centre of the cell in column `c` (0-based) and row `r` (0 at the bottom). */
const at = (c, r) => [c + 0.5, H - r - 0.5];

// ---- the board ----

function drawBoard() {
  const svg = $("board");
  svg.innerHTML = "";
  svg.setAttribute("viewBox", `-0.2 -0.9 ${W + 0.4} ${H + 1.6}`);
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  const g = (cls) => el("g", { class: cls }, svg);
  const frame = g("frame-layer"), labels = g("labels");
  layers = { stones: g("stones"), four: g("four-layer"), scores: g("scores"), hits: g("hits") };
  el("rect", { class: "frame", x: 0, y: 0, width: W, height: H, rx: 0.15 }, frame);
  for (let c = 0; c < W; c++) {
    for (let r = 0; r < H; r++) {
      const [x, y] = at(c, r);
      el("circle", { class: "hole", cx: x, cy: y, r: 0.4 }, frame);
    }
    const t = el("text", { class: "label", x: c + 0.5, y: H + 0.45, "text-anchor": "middle" }, labels);
    t.textContent = String(c + 1);
    const hit = el("rect", { class: "column-hit", x: c, y: -0.9, width: 1, height: H + 0.9, "data-column": String(c + 1) }, layers.hits);
    el("title", {}, hit);
    hit.addEventListener("click", () => onColumn(c + 1));
  }
}

function renderBoard(interactive) {
  if (!layers) drawBoard();
  const game = session.game;
  for (const k of ["stones", "four", "scores"]) layers[k].innerHTML = "";
  const last = game.last ? Number(game.last) : 0;
  game.columns.forEach((stones, c) => {
    stones.forEach((colour, r) => {
      const [x, y] = at(c, r);
      const top = c + 1 === last && r === stones.length - 1;
      el("circle", { class: `stone ${colour}` + (top ? " last" : ""), cx: x, cy: y, r: 0.4,
        "data-cell": `${c + 1}-${r + 1}`, "data-colour": colour }, layers.stones);
    });
  });
  for (const [c, r] of game.four) {
    const [x, y] = at(c - 1, r - 1);
    el("circle", { class: "four", cx: x, cy: y, r: 0.44 }, layers.four);
  }
  const legal = new Set(interactive ? game.legal : []);
  for (const hit of layers.hits.children) {
    const c = Number(hit.dataset.column);
    if (legal.has(c)) hit.dataset.target = "drop"; else delete hit.dataset.target;
    hit.firstChild.textContent = legal.has(c) ? `drop a stone into column ${c}` : `column ${c}`;
  }
  if (analysis && analysis.solved && $("show-perfect").checked) {
    analysis.columns.forEach((s, c) => {
      if (s === null) return;
      const best = analysis.best.includes(c + 1);
      const t = el("text", { class: "score" + (best ? " best" : ""), x: c + 0.5, y: -0.3, "text-anchor": "middle",
        "data-score": String(s) }, layers.scores);
      t.textContent = s > 0 ? `+${s}` : String(s);
    });
  }
}

function onColumn(c) {
  if (!session.humanToAct()) return;
  if (!session.game.legal.includes(c)) return;
  session.play(String(c));
}

// ---- the solver's view ----

async function analyse() {
  const game = session.game;
  const moves = game ? game.history.join("") : "";
  if (!game || game.outcome || !$("show-perfect").checked) { $("verdict").textContent = ""; return; }
  if (analysis && asked === moves) return;
  asked = moves;
  $("verdict").textContent = "The solver is thinking…";
  document.body.dataset.analysis = "pending";
  try {
    const a = await api("GET", `/api/connect4/games/${game.id}/analysis`);
    if (!session.game || session.game.history.join("") !== a.moves) return;
    analysis = a;
    $("verdict").textContent = a.solved ? `Score ${a.score}: ${a.verdict}. Best: ${a.best.join(", ")}.`
      : `Too deep for the solver here (${a.nodes.toLocaleString()} positions searched).`;
    document.body.dataset.analysis = a.solved ? "solved" : "unsolved";
  } catch (e) { $("verdict").textContent = String(e.message || e); document.body.dataset.analysis = "error"; }
  render();
}

// ---- drawing the page ----

function prompt(game) {
  if (game.outcome) return "Game over.";
  if (session.busy && game.engine_to_act) return "The engine is thinking…";
  if (game.engine_to_act) return "The engine is to play.";
  return `${cap(game.to_act)}: click a column to drop a stone.`;
}

function render() {
  const game = session.game;
  if (!game) return;
  renderBoard(session.humanToAct());
  $("prompt").textContent = prompt(game);
  $("to-act").textContent = game.to_act ? cap(game.to_act) : "–";
  $("stones").textContent = String(game.history.length);
  listMoves(game.turns.map(t => t.text));
  session.showStatus(cap, game.legal.map(String));
  if (!session.busy) analyse();
}

async function init() {
  try {
    config = await api("GET", "/api/connect4/config");
  } catch (e) { showError(e); }
  listPlayerKinds(config && config.players);
  offerSuggestions(config ? config.suggestions : []);
  if (!$("ng-spec").value) $("ng-spec").value = config ? config.default_opponent : "alphabeta:depth=10";
  $("show-perfect").addEventListener("change", () => { if (session.game) { render(); } });
  session.bindControls();
  drawBoard();
  if (await session.resume()) {
    render();
    await session.engineIfToAct();
  }
  document.body.dataset.ready = "true";
}

init();
