// What the Morris page tests share: playing an action by clicks on the board.

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
