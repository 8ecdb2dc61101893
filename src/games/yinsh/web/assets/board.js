// The YINSH board as SVG: geometry, drawing, and a click callback per point.
// Columns A-K are vertical; row numbers grow upwards along each column, so
// the (1,0) lines run down-right and the (1,1) lines up-right.
// Needs page.js (for `el`).
"use strict";

const LETTERS = "abcdefghijk";
const AXES = [[1, 0], [0, 1], [1, 1]];

/** Is (col,row), 0-based, one of the 85 points? Same test as the engine. */
function onBoard(c, r) {
  if (c < 0 || c > 10 || r < 0 || r > 10) return false;
  const x = c - 5, y = r - 5;
  const d = Math.max(Math.abs(x), Math.abs(y), Math.abs(x - y));
  if (d > 5) return false;
  return !(d === 5 && (x === 0 || y === 0 || x === y));
}

function pointName(c, r) { return LETTERS[c] + (r + 1); }
function parsePoint(name) {
  return [LETTERS.indexOf(name[0]), parseInt(name.slice(1), 10) - 1];
}
const POINTS = [];
for (let c = 0; c < 11; c++) for (let r = 0; r < 11; r++) if (onBoard(c, r)) POINTS.push([c, r]);

const W = Math.sqrt(3) / 2;
function xy(c, r) { return [c * W, -(r - c / 2)]; }
function xyName(name) { const [c, r] = parsePoint(name); return xy(c, r); }

/** The five points of a row removal `xa5-a9`. */
function rowPoints(decision) {
  const [a, b] = decision.slice(1).split("-");
  const [c0, r0] = parsePoint(a), [c1, r1] = parsePoint(b);
  const dc = Math.sign(c1 - c0), dr = Math.sign(r1 - r0);
  const out = [];
  for (let k = 0; k < 5; k++) out.push(pointName(c0 + k * dc, r0 + k * dr));
  return out;
}

class Board {
  /** `svg`: an empty <svg>; `onPoint(name)` is called for clicks on points. */
  constructor(svg, onPoint) {
    this.svg = svg;
    this.onPoint = onPoint || (() => {});
    const xs = POINTS.map(([c, r]) => xy(c, r)[0]);
    const ys = POINTS.map(([c, r]) => xy(c, r)[1]);
    const pad = 0.9;
    const x0 = Math.min(...xs) - pad, y0 = Math.min(...ys) - pad;
    svg.setAttribute("viewBox", `${x0} ${y0} ${Math.max(...xs) - x0 + pad} ${Math.max(...ys) - y0 + pad}`);
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    this.drawGrid();
    this.heat = el("g", { class: "heat" }, svg);
    this.bands = el("g", { class: "bands" }, svg);
    this.pieces = el("g", { class: "pieces" }, svg);
    this.marks = el("g", { class: "marks" }, svg);
    this.hits = el("g", { class: "hits" }, svg);
    for (const [c, r] of POINTS) {
      const [x, y] = xy(c, r);
      const name = pointName(c, r);
      const h = el("circle", { cx: x, cy: y, r: 0.46, class: "hit", "data-point": name }, this.hits);
      h.addEventListener("click", () => this.onPoint(name));
    }
  }

  drawGrid() {
    const g = el("g", { class: "grid" }, this.svg);
    for (const [dc, dr] of AXES) {
      for (const [c, r] of POINTS) {
        if (onBoard(c - dc, r - dr)) continue; // not the start of a line
        let n = 0;
        while (onBoard(c + (n + 1) * dc, r + (n + 1) * dr)) n++;
        if (n === 0) continue;
        const [x1, y1] = xy(c, r), [x2, y2] = xy(c + n * dc, r + n * dr);
        el("line", { x1, y1, x2, y2, class: "line" }, g);
      }
    }
    for (const [c, r] of POINTS) {
      const [x, y] = xy(c, r);
      el("circle", { cx: x, cy: y, r: 0.06, class: "dot" }, g);
    }
    const labels = el("g", { class: "labels" }, this.svg);
    for (let c = 0; c < 11; c++) {
      const rows = POINTS.filter(p => p[0] === c).map(p => p[1]);
      const lo = Math.min(...rows), hi = Math.max(...rows);
      const [xb, yb] = xy(c, lo), [xt, yt] = xy(c, hi);
      for (const [x, y] of [[xb, yb + 0.62], [xt, yt - 0.62]]) {
        const t = el("text", { x, y, class: "label", "text-anchor": "middle", "dominant-baseline": "middle" }, labels);
        t.textContent = LETTERS[c].toUpperCase();
      }
    }
    for (let r = 0; r < 11; r++) {
      const cols = POINTS.filter(p => p[1] === r).map(p => p[0]);
      const lo = Math.min(...cols);
      const [x, y] = xy(lo, r);
      // Beyond the start of the (1,0) line, which runs down-right.
      const t = el("text", { x: x - 0.5 * W * 1.15, y: y - 0.25 * 1.15, class: "label", "text-anchor": "middle", "dominant-baseline": "middle" }, labels);
      t.textContent = String(r + 1);
    }
  }

  clear(g) { while (g.firstChild) g.removeChild(g.firstChild); }

  /** Draws rings and markers of a BoardView; `flipped` markers are marked. */
  setPosition(board, flipped, last) {
    this.clear(this.pieces);
    const flip = new Set(flipped || []);
    for (const color of ["white", "black"]) {
      for (const p of board.markers[color]) {
        const [x, y] = xyName(p);
        el("circle", { cx: x, cy: y, r: 0.3, class: `marker ${color}${flip.has(p) ? " flipped" : ""}`, "data-marker": color, "data-at": p }, this.pieces);
      }
    }
    for (const color of ["white", "black"]) {
      for (const p of board.rings[color]) {
        const [x, y] = xyName(p);
        const g = el("g", { class: `ring ${color}`, "data-ring": color, "data-at": p }, this.pieces);
        el("circle", { cx: x, cy: y, r: 0.4, class: "ring-edge" }, g);
        el("circle", { cx: x, cy: y, r: 0.4, class: "ring-body" }, g);
      }
    }
    if (last && /^[a-k]\d+-[a-k]\d+$/.test(last)) {
      const [a, b] = last.split("-");
      const [x1, y1] = xyName(a), [x2, y2] = xyName(b);
      el("line", { x1, y1, x2, y2, class: "last-move" }, this.pieces);
    }
  }

  /** Highlights points: a map name -> class ("target", "selected", "ringpick"). */
  setMarks(marks) {
    this.clear(this.marks);
    for (const h of this.hits.children) h.removeAttribute("data-target");
    for (const [p, cls] of Object.entries(marks || {})) {
      const [x, y] = xyName(p);
      el("circle", { cx: x, cy: y, r: cls === "target" ? 0.16 : 0.47, class: `mark ${cls}` }, this.marks);
      const h = this.hits.querySelector(`[data-point="${p}"]`);
      if (h) h.setAttribute("data-target", cls);
    }
  }

  /** Candidate rows as bands (decisions like `xa2-a6`). */
  setRows(rows) {
    this.clear(this.bands);
    for (const d of rows || []) {
      const pts = rowPoints(d);
      const [x1, y1] = xyName(pts[0]), [x2, y2] = xyName(pts[4]);
      el("line", { x1, y1, x2, y2, class: "band", "data-row": d }, this.bands);
    }
  }

  /** Heat map: name -> weight in [0,1]. */
  setHeat(weights) {
    this.clear(this.heat);
    for (const [p, w] of Object.entries(weights || {})) {
      if (w <= 0.001) continue;
      const [x, y] = xyName(p);
      el("circle", { cx: x, cy: y, r: 0.2 + 0.3 * Math.sqrt(w), class: "heatdot", "fill-opacity": (0.25 + 0.7 * w).toFixed(3) }, this.heat);
    }
  }
}

window.Yinsh = { Board, rowPoints, parsePoint, pointName, onBoard, POINTS };
