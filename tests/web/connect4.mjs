// Plays Connect Four on its page through clicks alone, against `random`,
// as White until the outcome shows. After every decision it checks the
// stones drawn against the API's view (every stone in its column and row,
// the move list), that the clickable columns are the legal ones, and that
// a click on a full column sends nothing. Undoes once by the button; turns
// on the solver's scores late in the game and checks them against the
// analysis; checks the winning four outlined; screenshots.
//
// usage: node connect4.mjs <url> <screenshot prefix>
// Uses Debian's chromium ($CHROMIUM or /usr/bin/chromium).
import { fail, launch, startByForm, untilHumanActs } from "./browser.mjs";

const { page, url, shotPrefix, done } = await launch("connect4", { width: 1280, height: 900 });

let posts = 0;
page.on("request", (r) => { if (r.method() === "POST") posts++; });

const state = () => page.evaluate(() => {
  const b = document.body.dataset;
  return { id: b.gameId, toAct: b.toAct, busy: b.busy, engineToAct: b.engineToAct,
    legal: JSON.parse(b.legal || "[]"), outcome: b.outcome || "", steps: Number(b.steps || 0),
    analysis: b.analysis || "" };
});

async function settle(previousSteps) {
  await untilHumanActs(page, previousSteps);
  return state();
}

const apiGame = (id) => page.evaluate(async (gid) => (await fetch(`/api/connect4/games/${gid}`)).json(), id);

/** The stones as drawn, `column-row` (1-based) to colour. */
const drawnStones = () => page.$$eval("[data-cell]", (ss) => Object.fromEntries(ss.map(s => [s.dataset.cell, s.dataset.colour])));
const targets = () => page.$$eval(".hits [data-target]", (hs) => hs.map(h => Number(h.dataset.column)).sort());

async function checkDrawn(s) {
  const g = await apiGame(s.id);
  const want = {};
  g.columns.forEach((stones, c) => stones.forEach((colour, r) => { want[`${c + 1}-${r + 1}`] = colour; }));
  const got = await drawnStones();
  if (JSON.stringify(Object.entries(got).sort()) !== JSON.stringify(Object.entries(want).sort())) {
    fail(`stones drawn ${JSON.stringify(got)}, the game has ${JSON.stringify(want)}`);
  }
  const rows = await page.$$eval("#move-list li", (lis) => lis.length);
  if (rows !== Math.ceil(g.turns.length / 2)) fail(`move list has ${rows} rows for ${g.turns.length} turns`);
  const humanActs = !g.outcome && !g.engine_to_act;
  const legal = humanActs ? [...g.legal].sort() : [];
  const t = await targets();
  if (JSON.stringify(t) !== JSON.stringify(legal)) fail(`clickable columns ${t}, legal ${legal}`);
  return g;
}

let seed = 4242;
function pick(n) { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; }

await done(async () => {
  await page.goto(`${url}connect4`);
  await page.waitForFunction(() => document.body.dataset.ready === "true");
  if ((await page.$$(".hole")).length !== 42) fail("the frame has not 42 holes");
  await startByForm(page, "standard", "random", "white");
  let s = await state();
  let decisions = 0, undone = false, fullClick = false, scored = false, checked = false, midShot = false;
  while (!s.outcome) {
    if (s.toAct !== "white") fail(`the human (White) is not to act: ${JSON.stringify(s)}`);
    const g = await checkDrawn(s);
    if (!undone && s.steps >= 6) {
      const before = s.steps;
      await page.click("#undo-btn");
      s = await settle(before);
      if (s.steps !== before - 2) fail(`undo went from ${before} to ${s.steps} decisions`);
      undone = true;
      continue;
    }
    // A full column: a click on it sends nothing.
    const full = [1, 2, 3, 4, 5, 6, 7].find(c => !g.legal.includes(c));
    if (full && !fullClick) {
      const before = posts;
      await page.click(`.hits [data-column="${full}"]`);
      await page.waitForTimeout(100);
      if (posts !== before) fail(`a click on the full column ${full} sent a request`);
      fullClick = true;
    }
    // From the 12th stone on, the solver's scores are shown: once they are
    // solved, they must be the analysis's, and the human plays a best column.
    if (!checked && s.steps >= 12) {
      await page.click("#perfect summary");
      await page.check("#show-perfect");
      checked = true;
    }
    let a = null;
    if (checked) {
      await page.waitForFunction(() => ["solved", "unsolved", "error"].includes(document.body.dataset.analysis), null, { timeout: 60000 });
      a = await page.evaluate(async (gid) => (await fetch(`/api/connect4/games/${gid}/analysis`)).json(), s.id);
      const shownState = await page.evaluate(() => document.body.dataset.analysis);
      if (shownState !== (a.solved ? "solved" : "unsolved")) fail(`the page says ${shownState}, the analysis solved=${a.solved}`);
      if (a.solved) {
        const shown = await page.$$eval("[data-score]", (ts) => ts.map(t => Number(t.dataset.score)));
        const want = a.columns.filter(x => x !== null);
        if (JSON.stringify(shown) !== JSON.stringify(want)) fail(`scores shown ${shown}, the solver's ${want}`);
        if (!(await page.textContent("#verdict")).includes(`Score ${a.score}`)) fail("no verdict shown");
        if (!scored) await page.screenshot({ path: `${shotPrefix}-scores.png` });
        scored = true;
      }
    }
    const choices = a && a.solved ? a.best : g.legal;
    const c = choices[pick(choices.length)];
    const prev = s.steps;
    const before = JSON.stringify(await drawnStones());
    await page.click(`.hits [data-column="${c}"]`);
    decisions++;
    s = await settle(prev);
    if (JSON.stringify(await drawnStones()) === before) fail(`column ${c} left the board as it was`);
    if (!midShot && s.steps >= 12 && !s.outcome) { await page.screenshot({ path: `${shotPrefix}-mid.png` }); midShot = true; }
    if (decisions > 40) fail("the game does not end");
  }
  const g = await checkDrawn(s);
  const shown = (await page.textContent("#outcome")).trim();
  if (!(await page.isVisible("#outcome")) || shown !== g.outcome.text) fail(`outcome shown "${shown}", the API's ${JSON.stringify(g.outcome)}`);
  const outlined = await page.$$eval(".four", (fs) => fs.length);
  if (outlined !== g.four.length) fail(`${outlined} cells outlined, the four has ${g.four.length}`);
  if (!undone) fail("undo was never tried");
  if (!midShot) await page.screenshot({ path: `${shotPrefix}-mid.png` });
  await page.screenshot({ path: `${shotPrefix}-end.png` });
  console.log(`White by clicks vs random: ${shown} after ${g.history.join("")}`);
  return { outcome: shown, decisions, scored, fullClick };
});
