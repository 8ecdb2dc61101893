// What the Morris page tests share: reading the page's game and playing an
// action by clicks on the board.

/**
 * The game as the page shows it (its `data-*` attributes and stones): the
 * phase, who acts, the legal and the marked perfect actions, the decision
 * count (`steps`) and the one the perfect answer is for (`perfectSteps`).
 */
export const boardState = (page) => page.evaluate(() => {
  const b = document.body.dataset;
  const stones = [...document.querySelectorAll("[data-stone]")].map(e => [e.dataset.at, e.dataset.stone]);
  return { id: b.gameId, variant: b.variant, phase: b.phase, toAct: b.toAct, human: b.human, busy: b.busy,
    engineToAct: b.engineToAct, legal: JSON.parse(b.legal || "[]"), outcome: b.outcome || "",
    steps: Number(b.steps || 0), best: JSON.parse(b.best || "[]"), perfectSteps: b.perfectSteps, stones };
});

/**
 * Plays `action` on `page` by clicks: a point to place on, a stone then its
 * target ("a1-a4"), or a stone to take ("xa1").
 */
export async function clickAction(page, action) {
  if (action.startsWith("x")) {
    const p = action.slice(1);
    await page.waitForSelector(`.hits [data-point="${p}"][data-target="remove"]`);
    await page.click(`.hits [data-point="${p}"]`);
  } else if (action.includes("-")) {
    const [from, to] = action.split("-");
    await page.waitForSelector(`.hits [data-point="${from}"][data-target="movable"]`);
    await page.click(`.hits [data-point="${from}"]`);
    await page.waitForSelector(`.hits [data-point="${to}"][data-target="target"]`);
    await page.click(`.hits [data-point="${to}"]`);
  } else {
    await page.waitForSelector(`.hits [data-point="${action}"][data-target="target"]`);
    await page.click(`.hits [data-point="${action}"]`);
  }
}
