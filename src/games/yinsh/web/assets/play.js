// The play page: talks to the JSON API and turns clicks into decisions
// (with page.js's helpers and board.js's board).
"use strict";

const STRENGTHS = {
  greedy: { weak: "greedy:threats=false", medium: "greedy", strong: "greedy" },
  alphabeta: { weak: "alphabeta:depth=1", medium: "alphabeta:depth=2", strong: "alphabeta:depth=4" },
  "mcts-rollout": { weak: "mcts-rollout:playouts=200", medium: "mcts-rollout:playouts=1000", strong: "mcts-rollout:playouts=5000" },
};

let game = null;        // GameView from the server
let selected = null;    // ring picked for a move
let busy = false;       // a request that changes the game is under way
let review = null;      // { data, step } while reviewing
let analysisSeq = 0;
let lastAnalysis = null;

const board = new Yinsh.Board($("board"), onPoint);

function legalSet() { return new Set(game ? game.legal : []); }
function humanToAct() { return game && !game.outcome && !game.engine_to_act && !busy; }

function onPoint(p) {
  if (review || !humanToAct()) return;
  const legal = legalSet();
  switch (game.decision) {
    case "place_ring":
      if (legal.has(p)) submit(p);
      break;
    case "move_ring":
      if (selected && legal.has(`${selected}-${p}`)) { submit(`${selected}-${p}`); return; }
      if (game.legal.some(d => d.startsWith(p + "-"))) selected = (selected === p ? null : p);
      else selected = null;
      render();
      break;
    case "remove_row": {
      const rows = game.legal.filter(d => d.startsWith("x") && Yinsh.rowPoints(d).includes(p));
      const ends = rows.filter(d => { const pts = Yinsh.rowPoints(d); return pts[0] === p || pts[4] === p; });
      if (rows.length === 1) submit(rows[0]);
      else if (ends.length === 1) submit(ends[0]);
      else if (rows.length > 1) showError({ message: "Several rows pass here: click an end of the row you want, or use the buttons." });
      break;
    }
    case "remove_ring":
      if (legal.has("x" + p)) submit("x" + p);
      break;
  }
}

async function submit(decision) {
  if (busy) return;
  busy = true; selected = null; showError(null);
  try {
    game = await api("POST", `/api/games/${game.id}/play`, { decision });
  } catch (e) { showError(e); }
  busy = false;
  render();
  await afterChange();
}

async function afterChange() {
  if (game && game.engine_to_act) await engineMove();
  else refreshAnalysis();
}

async function engineMove() {
  busy = true; render();
  try {
    const answer = await api("POST", `/api/games/${game.id}/engine`);
    game = answer.game;
  } catch (e) { showError(e); }
  busy = false;
  render();
  refreshAnalysis();
}

async function refreshAnalysis() {
  const seq = ++analysisSeq;
  if (!game || game.outcome) { lastAnalysis = null; renderAnalysis(); return; }
  try {
    const a = await api("GET", `/api/games/${game.id}/analysis`);
    if (seq !== analysisSeq) return;
    lastAnalysis = a;
  } catch (e) { if (seq === analysisSeq) lastAnalysis = null; }
  renderAnalysis();
}

function renderAnalysis() {
  const a = review ? null : lastAnalysis;
  if (!a) {
    $("wdl-text").textContent = "–";
    for (const id of ["wdl-w", "wdl-d", "wdl-l"]) $(id).style.flex = "1";
    board.setHeat(null); $("top-moves").hidden = true;
    return;
  }
  const [w, d, l] = a.to_act === "white" ? a.wdl : [a.wdl[2], a.wdl[1], a.wdl[0]];
  $("wdl-w").style.flex = String(w); $("wdl-d").style.flex = String(d); $("wdl-l").style.flex = String(l);
  const pct = (x) => (100 * x).toFixed(0) + "%";
  $("wdl-text").textContent = `White wins ${pct(w)} · draw ${pct(d)} · Black wins ${pct(l)} (${a.simulations} simulations)`;
  const on = $("heat-toggle").checked;
  $("top-moves").hidden = !on;
  if (!on) { board.setHeat(null); return; }
  const heat = {};
  const add = (p, x) => { heat[p] = (heat[p] || 0) + x; };
  for (const m of a.moves) {
    const d = m.decision;
    if (d === "pass") continue;
    if (/^x.*-/.test(d)) Yinsh.rowPoints(d).forEach(p => add(p, m.policy / 5));
    else if (d.startsWith("x")) add(d.slice(1), m.policy);
    else if (d.includes("-")) add(d.split("-")[1], m.policy);
    else add(d, m.policy);
  }
  const max = Math.max(1e-9, ...Object.values(heat));
  for (const k of Object.keys(heat)) heat[k] /= max;
  board.setHeat(heat);
  const ol = $("top-moves"); ol.innerHTML = "";
  for (const m of a.moves.slice(0, 5)) {
    const li = document.createElement("li");
    li.textContent = `${m.decision}  ${(100 * m.policy).toFixed(1)}%  (${m.visits} visits)`;
    ol.appendChild(li);
  }
}

function render() {
  const b = document.body.dataset;
  if (review) { renderReview(); return; }
  if (!game) return;
  $("review-bar").hidden = true;
  board.setPosition(game.board, game.flipped, game.last);
  const marks = {};
  let rows = [];
  const interactive = humanToAct();
  let prompt = "";
  if (game.outcome) prompt = "Game over.";
  else if (busy && game.engine_to_act) prompt = "The engine is thinking…";
  else if (game.engine_to_act) prompt = "The engine is to play.";
  else {
    const who = game.to_act === "white" ? "White" : "Black";
    prompt = {
      place_ring: `${who}: place a ring on an empty point.`,
      move_ring: selected ? `${who}: click a highlighted point to move the ring.` : `${who}: click one of your rings to move it.`,
      remove_row: `${who}: pick the row of five to remove.`,
      remove_ring: `${who}: pick one of your rings to remove.`,
    }[game.decision] || "";
  }
  if (interactive) {
    if (game.decision === "place_ring") for (const p of game.legal) marks[p] = "target";
    if (game.decision === "move_ring") {
      for (const d of game.legal) if (d.includes("-")) marks[d.split("-")[0]] = "movable";
      if (selected) {
        marks[selected] = "selected";
        for (const d of game.legal) if (d.startsWith(selected + "-")) marks[d.split("-")[1]] = "target";
      }
    }
    if (game.decision === "remove_row") {
      rows = game.legal.filter(d => d.startsWith("x"));
      for (const d of rows) for (const p of Yinsh.rowPoints(d)) marks[p] = "rowpt";
    }
    if (game.decision === "remove_ring") for (const d of game.legal) marks[d.slice(1)] = "ringpick";
  }
  board.setMarks(marks);
  board.setRows(rows);
  $("prompt").textContent = prompt;
  $("turn").textContent = game.turn;
  $("to-act").textContent = game.to_act || "–";
  $("removed-white").textContent = game.board.rings_removed.white;
  $("removed-black").textContent = game.board.rings_removed.black;
  $("to-win").textContent = `(${game.board.rings_to_win} to win)`;
  $("pool").textContent = game.board.pool;
  $("you").textContent = game.opponent === "human" ? "both sides" : game.human;
  $("opp").textContent = game.opponent;
  $("outcome").hidden = !game.outcome;
  $("outcome").textContent = game.outcome ? game.outcome.text : "";
  $("pass-btn").hidden = !(interactive && game.legal.includes("pass"));
  const rb = $("row-buttons"); rb.innerHTML = "";
  for (const d of rows) {
    const btn = document.createElement("button");
    btn.textContent = `remove ${d.slice(1)}`; btn.dataset.rowButton = d;
    btn.addEventListener("click", () => submit(d));
    rb.appendChild(btn);
  }
  $("undo-btn").disabled = !game.can_undo || busy || game.opponent === undefined;
  $("moves").value = game.moves.join(" ");
  // For tests and tools: the state as data attributes.
  b.gameId = game.id; b.decision = game.decision; b.toAct = game.to_act || "";
  b.human = game.human; b.busy = String(busy); b.engineToAct = String(game.engine_to_act);
  b.legal = JSON.stringify(interactive ? game.legal : []);
  b.outcome = game.outcome ? game.outcome.text : "";
  b.removed = JSON.stringify(game.board.rings_removed);
  b.steps = String(game.history.length);
  renderAnalysis();
}

function renderReview() {
  const { data, step } = review;
  const pos = data.positions[step];
  $("review-bar").hidden = false;
  board.setPosition(pos.board, [], step > 0 ? data.steps[step - 1].decision : null);
  board.setMarks({}); board.setRows([]); board.setHeat(null);
  const s = step > 0 ? data.steps[step - 1] : null;
  $("rv-label").textContent = `step ${step}/${data.steps.length}` + (s ? `: ${s.player} ${s.decision}` + (s.source ? ` (${s.source})` : "") : "");
  $("prompt").textContent = "Reviewing" + (data.result && step === data.steps.length ? ` — ${data.result}` : "");
  $("turn").textContent = pos.turn; $("to-act").textContent = pos.to_act || "–";
  $("removed-white").textContent = pos.board.rings_removed.white;
  $("removed-black").textContent = pos.board.rings_removed.black;
  $("pool").textContent = pos.board.pool;
  $("moves").value = data.moves.join(" ");
  document.body.dataset.reviewStep = String(step);
  renderAnalysis();
}

function opponentSpec() {
  const spec = $("ng-spec").value.trim();
  if (spec) return spec;
  const kind = $("ng-kind").value;
  const s = STRENGTHS[kind];
  return s ? s[$("ng-strength").value] : kind;
}

async function newGame(ev) {
  if (ev) ev.preventDefault();
  showError(null); review = null; selected = null; lastAnalysis = null;
  let color = $("ng-color").value;
  if (color === "random") color = Math.random() < 0.5 ? "white" : "black";
  try {
    game = await api("POST", "/api/games", {
      color, opponent: opponentSpec(), blitz: $("ng-blitz").checked, random_placement: $("ng-random").checked,
    });
    history.replaceState(null, "", `#${game.id}`);
  } catch (e) { showError(e); return; }
  render();
  await afterChange();
}

async function undo() {
  if (busy || !game) return;
  try { game = await api("POST", `/api/games/${game.id}/undo`); selected = null; showError(null); }
  catch (e) { showError(e); }
  render(); refreshAnalysis();
}

async function startReview() {
  showError(null);
  const file = $("review-file").files[0];
  const body = file ? { sgf: await file.text() } : { moves: $("review-text").value, blitz: $("review-blitz").checked };
  try {
    const data = await api("POST", "/api/review", body);
    review = { data, step: 0 };
    render();
  } catch (e) { showError(e); }
}

function step(to) {
  if (!review) return;
  review.step = Math.max(0, Math.min(review.data.steps.length, to));
  render();
}

async function init() {
  try {
    const cfg = await api("GET", "/api/config");
    const sel = $("ng-kind");
    const kinds = cfg.players.map(p => p.name).concat(["human"]);
    for (const k of kinds) {
      const o = document.createElement("option"); o.value = k; o.textContent = k === "human" ? "human (both sides here)" : k;
      sel.appendChild(o);
    }
    const def = cfg.default_opponent.split(":")[0];
    if (kinds.includes(def)) sel.value = def;
    if (!STRENGTHS[def] || !Object.values(STRENGTHS[def]).includes(cfg.default_opponent)) $("ng-spec").value = kinds.includes(cfg.default_opponent) ? "" : cfg.default_opponent;
  } catch (e) { showError(e); }
  $("new-form").addEventListener("submit", newGame);
  $("undo-btn").addEventListener("click", undo);
  $("pass-btn").addEventListener("click", () => submit("pass"));
  $("copy-btn").addEventListener("click", () => { $("moves").select(); navigator.clipboard?.writeText($("moves").value).catch(() => document.execCommand("copy")); });
  $("heat-toggle").addEventListener("change", renderAnalysis);
  $("review-btn").addEventListener("click", startReview);
  $("rv-first").addEventListener("click", () => step(0));
  $("rv-prev").addEventListener("click", () => step(review.step - 1));
  $("rv-next").addEventListener("click", () => step(review.step + 1));
  $("rv-last").addEventListener("click", () => step(review.data.steps.length));
  $("rv-exit").addEventListener("click", () => { review = null; render(); });
  document.addEventListener("keydown", (e) => {
    if (!review || e.target.tagName === "TEXTAREA" || e.target.tagName === "INPUT") return;
    if (e.key === "ArrowLeft") step(review.step - 1);
    if (e.key === "ArrowRight") step(review.step + 1);
  });
  const id = location.hash.slice(1);
  if (id) {
    try { game = await api("GET", `/api/games/${id}`); render(); await afterChange(); }
    catch (e) { /* a game from before a restart: start fresh */ }
  }
  document.body.dataset.ready = "true";
}

init();
