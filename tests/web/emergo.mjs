// Plays Emergo on its page through clicks alone, against `random`, on the
// small board (7 x 7, 8 men each) until the outcome shows: a man enters on
// a clicked square; a unit steps or jumps by a click on it and one on a
// highlighted square; a capture chain takes one click per jump, its unit
// kept picked. After every decision it checks the board drawn against the
// API's view (every unit where the game has it, with its counts, the men in
// hand, the move list), the highlighted squares against the legal
// decisions, and that the board changed; clicks the rules do not allow must
// send nothing and change nothing. Undoes once by the button; screenshots.
//
// usage: node emergo.mjs <url> <screenshot prefix>
// Uses Debian's chromium ($CHROMIUM or /usr/bin/chromium).
import { fail, launch, startByForm, untilHumanActs } from "./browser.mjs";

const { page, url, shotPrefix, done } = await launch("emergo", { width: 1280, height: 900 });

// Every request that could change a game.
let posts = 0;
page.on("request", (r) => { if (r.method() === "POST") posts++; });

const state = () => page.evaluate(() => {
  const b = document.body.dataset;
  return { id: b.gameId, variant: b.variant, phase: b.phase, toAct: b.toAct, human: b.human, busy: b.busy,
    engineToAct: b.engineToAct, legal: JSON.parse(b.legal || "[]"), outcome: b.outcome || "",
    steps: Number(b.steps || 0), selected: b.selected || "", chain: b.chain || "" };
});

/** Waits until the human may act or the game is over, after `steps` changed. */
async function settle(previousSteps) {
  await untilHumanActs(page, previousSteps);
  return state();
}

const apiGame = (id) => page.evaluate(async (gid) => (await fetch(`/api/emergo/games/${gid}`)).json(), id);

/** The units as drawn: square, owner, unit text and the counts written on it. */
const drawnUnits = () => page.$$eval("[data-unit]", (us) => us.map(u => ({
  at: u.dataset.at, owner: u.dataset.owner, unit: u.dataset.unit,
  counts: (u.querySelector("text") || { textContent: "" }).textContent,
})).sort((a, b) => a.at.localeCompare(b.at)));

const targets = () => page.$$eval(".hits [data-target]", (hs) => Object.fromEntries(hs.map(h => [h.dataset.square, h.dataset.target])));

/** The squares that should be highlighted for `g` with `picked` (a unit or none). */
function wantTargets(g, picked) {
  const want = {};
  for (const l of g.legal) {
    if (l.kind === "enter") want[l.to] = "enter";
    else want[l.from] = "movable";
  }
  if (picked) {
    want[picked] = "selected";
    for (const l of g.legal) if (l.from === picked) want[l.to] = l.kind;
  }
  return want;
}

const same = (a, b) => JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** The board, the men in hand, the move list and the highlights as drawn, against the API. */
async function checkDrawn(s) {
  const g = await apiGame(s.id);
  const squares = await page.$$eval(".hits [data-square]", (hs) => hs.length);
  if (squares !== (g.side * g.side + 1) / 2) fail(`${squares} squares to click on a ${g.side} x ${g.side} board`);
  const units = await drawnUnits();
  const want = g.board.units.map(u => ({ at: u.square, owner: u.owner, unit: u.text,
    counts: u.prisoners > 0 ? `${u.controllers}/${u.prisoners}` : u.controllers > 1 ? String(u.controllers) : "" }))
    .sort((a, b) => a.at.localeCompare(b.at));
  if (JSON.stringify(units) !== JSON.stringify(want)) fail(`units drawn ${JSON.stringify(units)}, the game has ${JSON.stringify(want)}`);
  for (const c of ["white", "black"]) {
    const hand = (await page.textContent(`#hand-${c}`)).trim();
    if (hand !== String(g.board.hand[c])) fail(`${c}'s hand shown as ${hand}, not ${g.board.hand[c]}`);
  }
  const rows = await page.$$eval("#move-list li", (lis) => lis.length);
  if (rows !== Math.ceil(g.turns.length / 2)) fail(`move list has ${rows} rows for ${g.turns.length} turns`);
  const humanActs = !g.outcome && !g.engine_to_act;
  const want2 = humanActs ? wantTargets(g, g.chain || s.selected || null) : {};
  const got = await targets();
  if (!same(got, want2)) fail(`highlighted ${JSON.stringify(got)}, expected ${JSON.stringify(want2)} (phase ${g.phase})`);
  return { g, units };
}

async function clickSquare(sq) { await page.click(`.hits [data-square="${sq}"]`); }

/** Clicks a square the rules give nothing to do: no request, nothing changes. */
async function clickNothing(s, g) {
  const t = await targets();
  const free = (await page.$$eval(".hits [data-square]", (hs) => hs.map(h => h.dataset.square)))
    .filter(sq => !t[sq] && !g.board.units.some(u => u.square === sq && u.owner === g.to_act));
  if (!free.length) return false;
  const before = posts;
  const unitsBefore = JSON.stringify(await drawnUnits());
  await clickSquare(free[(s.steps * 5) % free.length]);
  await page.waitForTimeout(100);
  const after = await state();
  if (posts !== before) fail(`a click on ${free[0]}, which the rules give nothing to do, sent a request`);
  if (after.steps !== s.steps || JSON.stringify(await drawnUnits()) !== unitsBefore) fail("an idle click changed the game");
  if ((await page.textContent("#error")).trim()) fail(`an idle click showed an error: ${await page.textContent("#error")}`);
  return true;
}

// A fixed sequence of choices, so that a failure can be replayed.
let seed = 12345;
function pick(n) { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; }

/**
 * The human's decision: any entry or jump, but a step towards the nearest
 * enemy unit, so that units meet and the game ends well before its limits.
 */
function choose(g) {
  if (g.phase !== "move") return g.legal[pick(g.legal.length)];
  const xy = (sq) => [sq.charCodeAt(0) - 97, Number(sq.slice(1))];
  const enemies = g.board.units.filter(u => u.owner !== g.to_act).map(u => xy(u.square));
  const near = (sq) => {
    const [c, r] = xy(sq);
    return Math.min(...enemies.map(([ec, er]) => Math.max(Math.abs(ec - c), Math.abs(er - r))));
  };
  const best = Math.min(...g.legal.map(l => near(l.to)));
  const closest = g.legal.filter(l => near(l.to) === best);
  return closest[pick(closest.length)];
}

await done(async () => {
  await page.goto(`${url}emergo`);
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  // Each board drawn before any game: 25 squares on 7 x 7, 41 on 9 x 9.
  for (const [v, n] of [["small", 25], ["standard", 41], ["small", 25]]) {
    await page.selectOption("#ng-variant", v);
    await page.waitForFunction((k) => document.querySelectorAll(".hits [data-square]").length === k, n);
  }
  const suggested = await page.inputValue("#ng-spec");
  if (!suggested.startsWith("alphabeta")) fail(`the suggested opponent is ${suggested}`);

  await startByForm(page, "small", "random", "white");
  let s = await state();
  const id = s.id;
  let decisions = 0, idle = 0, chainJumps = 0, undone = false, midShot = false;
  let turnStart = 0;    // where the human's latest turn began
  while (!s.outcome) {
    if (s.id !== id) fail("the game changed under the test");
    if (s.toAct !== "white") fail(`the human (White) is not to act: ${JSON.stringify(s)}`);
    const { g, units } = await checkDrawn(s);
    if (g.phase !== "chain") {
      if (!undone && turnStart >= 10) {
        // Undo takes back the human's latest turn and the engine's reply.
        const before = s.steps;
        await page.click("#undo-btn");
        s = await settle(before);
        if (s.steps !== turnStart || s.toAct !== "white") fail(`undo went to ${s.steps} decisions, ${s.toAct} to act, not ${turnStart}`);
        undone = true;
        continue;
      }
      turnStart = s.steps;
      if (await clickNothing(s, g)) idle++;
    }
    const legal = choose(g);
    const prev = s.steps;
    if (legal.kind === "enter") {
      await clickSquare(legal.to);
    } else {
      if (g.chain) {
        if (legal.from !== g.chain || s.selected !== "" && s.selected !== g.chain) fail(`the chain's unit ${g.chain} is not the one to jump`);
      } else {
        await clickSquare(legal.from);
        await page.waitForFunction((f) => document.body.dataset.selected === f, legal.from);
        const want = wantTargets(g, legal.from);
        const got = await targets();
        if (!same(got, want)) fail(`${legal.from} picked: highlighted ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
      }
      if (g.chain) chainJumps++;
      await clickSquare(legal.to);
    }
    decisions++;
    s = await settle(prev);
    if (JSON.stringify(await drawnUnits()) === JSON.stringify(units)) fail(`${legal.action} left the board as it was`);
    if (!midShot && s.steps >= 16 && !s.outcome) {
      await page.screenshot({ path: `${shotPrefix}-mid.png` });
      midShot = true;
    }
    if (decisions > 800) fail("the game does not end");
  }
  const { g } = await checkDrawn(s);
  const shown = (await page.textContent("#outcome")).trim();
  if (!(await page.isVisible("#outcome")) || shown !== g.outcome.text) fail(`outcome shown "${shown}", the API's ${JSON.stringify(g.outcome)}`);
  if (!/^(White wins|Black wins|Draw): /.test(shown)) fail(`no outcome in words: "${shown}"`);
  if (!undone) fail("undo was never tried");
  if (idle === 0) fail("no idle click was tried");
  if (!midShot) await page.screenshot({ path: `${shotPrefix}-mid.png` });
  await page.screenshot({ path: `${shotPrefix}-end.png` });
  console.log(`small, White by clicks vs random: ${shown} after ${g.turns.map(t => t.text).join(" ")}`);
  return { outcome: shown, decisions, chainJumps, idleClicks: idle, turns: g.turns.length };
});
