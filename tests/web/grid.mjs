// Plays the UMO 2014 grid game on its page through clicks alone, against
// the exact `solver`: first as Player 2 on 9 x 9 with "show the solver's
// moves" on, clicking the marked placements (and undoing once by the
// button) to the olympiad's win, then as Player 1 on 5 x 5, where the
// steps onto a corner are marked as losing. After every move it checks the
// highlighted points against the legal actions and the two charts' SVG
// against the game (one dot per move of Player 1, plus the start, for the
// game and for the solver's optimal line), and takes screenshots.
//
// usage: node grid.mjs <url> <screenshot prefix>
// Uses Debian's chromium ($CHROMIUM or /usr/bin/chromium).
import { fail, launch, startByForm, untilHumanActs } from "./browser.mjs";

const { page, url, shotPrefix, done } = await launch("grid", { width: 1280, height: 1000 });

const state = () => page.evaluate(() => {
  const b = document.body.dataset;
  return { id: b.gameId, variant: b.variant, toAct: b.toAct, human: b.human, busy: b.busy,
    engineToAct: b.engineToAct, legal: JSON.parse(b.legal || "[]"), outcome: b.outcome || "",
    steps: Number(b.steps || 0), best: JSON.parse(b.best || "[]"), solverPly: b.solverPly,
    played: Number(b.played || 0), optimal: Number(b.optimal || 0) };
});

/** Waits until the human may act or the game is over, after `steps` changed. */
async function settle(previousSteps) {
  await untilHumanActs(page, previousSteps);
  return state();
}

const apiGame = (id) => page.evaluate(async (gid) => (await fetch(`/api/grid/games/${gid}`)).json(), id);

/** The board and the charts as drawn, against the API's view of the game. */
async function checkDrawn(s) {
  const g = await apiGame(s.id);
  const drawn = await page.evaluate(() => {
    const hits = [...document.querySelectorAll(".hits [data-point]")];
    const count = (sel) => document.querySelectorAll(sel).length;
    return {
      points: hits.length,
      targets: Object.fromEntries(hits.filter(h => h.dataset.target).map(h => [h.dataset.point, h.dataset.target])),
      red: [...document.querySelectorAll('[data-stone="red"]')].map(e => e.dataset.at).sort(),
      green: [...document.querySelectorAll('[data-stone="green"]')].map(e => e.dataset.at),
      charts: ["chart-red", "chart-distance"].map(c => ({
        played: count(`#${c} .chart-series.played circle`),
        optimal: count(`#${c} .chart-series.optimal circle`),
        playedLine: count(`#${c} polyline.series.played`),
        optimalLine: count(`#${c} polyline.series.optimal`),
        playedY: [...document.querySelectorAll(`#${c} .chart-series.played circle`)].map(e => Number(e.dataset.y)),
      })),
    };
  });
  if (drawn.points !== g.side * g.side) fail(`${drawn.points} points drawn on a ${g.side} x ${g.side} board`);
  if (JSON.stringify(drawn.red) !== JSON.stringify([...g.board.red].sort())) fail(`red stones drawn ${drawn.red} vs ${g.board.red}`);
  if (drawn.green.length !== 1 || drawn.green[0] !== g.board.green) fail(`green drawn at ${drawn.green}, not ${g.board.green}`);
  // Highlighted: exactly the legal actions' points while the human acts.
  const humanActs = !g.outcome && !g.engine_to_act;
  const want = humanActs ? Object.fromEntries(g.legal.map(l => [l.point, l.loses ? "lose" : l.action.startsWith("G") ? "step" : "place"])) : {};
  if (JSON.stringify(Object.entries(drawn.targets).sort()) !== JSON.stringify(Object.entries(want).sort())) {
    fail(`highlighted ${JSON.stringify(drawn.targets)}, legal ${JSON.stringify(want)}`);
  }
  if (humanActs && g.to_act === "black" && g.legal.length !== g.side * g.side - 1 - g.board.red.length) fail("Player 2 is not offered every empty point");
  // One dot per move of Player 1 (plus the start), for both series.
  const p1Moves = g.history.filter(a => a.startsWith("G")).length;
  for (const [i, c] of drawn.charts.entries()) {
    if (c.played !== p1Moves + 1) fail(`chart ${i}: ${c.played} played dots after ${p1Moves} moves of Player 1`);
    if (c.optimal !== g.charts.optimal.length || c.optimal < 2) fail(`chart ${i}: ${c.optimal} optimal dots`);
    if (c.optimalLine !== 1 || c.playedLine !== (p1Moves > 0 ? 1 : 0)) fail(`chart ${i}: lines ${JSON.stringify(c)}`);
    const key = i === 0 ? "red" : "distance";
    if (JSON.stringify(c.playedY) !== JSON.stringify(g.charts.played.map(p => p[key]))) fail(`chart ${i} dots ${c.playedY} vs the game's ${key}`);
  }
  return { g, drawn };
}

async function startGame(variant, spec, color) {
  await startByForm(page, variant, spec, color);
  return state();
}

async function clickPoint(p, kind) {
  await page.waitForSelector(`.hits [data-point="${p}"][data-target="${kind}"]`);
  await page.click(`.hits [data-point="${p}"]`);
}

async function checkOutcome(id) {
  const shown = (await page.textContent("#outcome")).trim();
  if (!(await page.isVisible("#outcome")) || !/^Player [12] wins: /.test(shown)) fail(`no outcome shown: "${shown}"`);
  const api = await apiGame(id);
  if (!api.outcome || api.outcome.text !== shown) fail(`outcome shown "${shown}" differs from the API's ${JSON.stringify(api.outcome)}`);
  return shown;
}

await done(async () => {
  let result = {};
  await page.goto(`${url}grid`);
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  // Each board drawn before any game.
  for (const [v, n] of [["5x5", 25], ["11x11", 121], ["9x9", 81]]) {
    await page.selectOption("#ng-variant", v);
    await page.waitForFunction((k) => document.querySelectorAll(".hits [data-point]").length === k, n);
  }
  if ((await page.inputValue("#ng-spec")) !== "solver") fail("the solver is not the suggested opponent");

  // 9 x 9 as Player 2, clicking the solver's own moves.
  await page.check("#best-toggle");
  let s = await startGame("9x9", "solver", "black");
  const id = s.id;
  let clicks = 0, undone = false, midShot = false;
  while (!s.outcome) {
    if (s.id !== id) fail("the game changed under the test");
    if (s.toAct !== "black") fail(`the human (Player 2) is not to act: ${JSON.stringify(s)}`);
    await page.waitForFunction(() => JSON.parse(document.body.dataset.best || "[]").length > 0, null, { timeout: 60000 });
    s = await state();
    await checkDrawn(s);
    const verdict = (await page.textContent("#verdict")).trim();
    if (!verdict.startsWith("Player 2 wins")) fail(`verdict shown as "${verdict}"`);
    const marked = await page.$$eval(".hits [data-best]", (xs) => xs.map(x => x.dataset.point));
    if (!marked.length || !marked.includes(s.best[0])) fail(`best ${s.best} not marked (${marked})`);
    const prev = s.steps;
    await clickPoint(s.best[0], "place");
    clicks++;
    s = await settle(prev);
    if (!undone && !s.outcome && s.steps >= 6) {
      // Undo takes back the human's placement and the solver's step.
      const before = s.steps;
      await page.click("#undo-btn");
      s = await settle(before);
      if (s.steps !== before - 2 || s.toAct !== "black") fail(`undo went to ${s.steps} steps, ${s.toAct} to act, from ${before}`);
      undone = true;
    }
    if (!midShot && s.steps >= 8 && !s.outcome) {
      await page.screenshot({ path: `${shotPrefix}-nine-mid.png` });
      midShot = true;
    }
    if (clicks > 100) fail("too many clicks");
  }
  const shown = await checkOutcome(id);
  if (shown !== "Player 2 wins: Green entered a corner") fail(`perfect play as Player 2 did not win: "${shown}"`);
  const { g } = await checkDrawn(s);
  if (g.charts.played.length !== 9 || g.charts.optimal.length !== 9) fail(`charts of ${g.charts.played.length} and ${g.charts.optimal.length} points, not 9`);
  if (g.board.red.length !== 15) fail(`${g.board.red.length} Red stones at the end, not 15`);
  const moves = await page.$$eval("#move-list li", (lis) => lis.length);
  if (moves !== Math.ceil(g.history.length / 2)) fail(`move list has ${moves} rows for ${g.history.length} decisions`);
  if (!undone) fail("undo was never tried");
  await page.screenshot({ path: `${shotPrefix}-nine-end.png` });
  result.nine = { outcome: shown, clicks, moves: g.history.join(" ") };
  console.log(`9x9 as Player 2: ${shown} after ${g.history.join(" ")}`);

  // 5 x 5 as Player 1: safe steps while there are any; corner steps marked.
  await page.uncheck("#best-toggle");
  s = await startGame("5x5", "solver", "white");
  const id5 = s.id;
  let cornerMarks = 0;
  while (!s.outcome) {
    const { g } = await checkDrawn(s);
    const loses = g.legal.filter(l => l.loses);
    for (const l of loses) {
      const title = await page.$eval(`.hits [data-point="${l.point}"] title`, (t) => t.textContent);
      if (!title.includes("loses")) fail(`the corner step ${l.action} has no warning: "${title}"`);
      cornerMarks++;
    }
    const safe = g.legal.filter(l => !l.loses);
    const pick = (safe.length ? safe : loses)[0];
    const prev = s.steps;
    await clickPoint(pick.point, pick.loses ? "lose" : "step");
    s = await settle(prev);
  }
  const shown5 = await checkOutcome(id5);
  const { g: g5 } = await checkDrawn(s);
  if (cornerMarks === 0) fail("no corner step was ever marked");
  await page.screenshot({ path: `${shotPrefix}-five-end.png` });
  result.five = { outcome: shown5, moves: g5.history.join(" "), cornerMarks };
  console.log(`5x5 as Player 1: ${shown5} after ${g5.history.join(" ")}`);

  return result;
});
