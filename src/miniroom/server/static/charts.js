// Bar charts of the usage page, drawn as SVG by hand (a few dozen lines instead of a chart library): one bar
// per row of a usage table, its numbers in the bar's <title> (the tooltip) and in the label at its end.
import { element } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const ROW = 24; // px per bar, its gap included
const BAR = 16;
const LABEL = 180; // px for the row names on the left
const PLOT = 300; // px for the longest bar
const WIDTH = LABEL + PLOT + 240; // and room for the value after it
const NAME_CHARS = 26;

// Tokens stacked in this order: what the provider read from its prompt cache sits right beside what it
// read anew, so the share caching saved shows at a glance.
export const SEGMENTS = [
  ["input", "input"],
  ["cache_read", "cache read"],
  ["cache_write", "cache write"],
  ["output", "output"],
];

export const count = (value) => Number(value || 0).toLocaleString("en-US");

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function withTitle(node, text) {
  node.append(svg("title", {}, text));
  return node;
}

function shortName(name) {
  return name.length > NAME_CHARS ? `${name.slice(0, NAME_CHARS - 1)}…` : name;
}

// A figure with `title` and one line per row: its name, then what `draw(row, y)` returns for its bar.
function chart(kind, title, rows, key, draw) {
  const height = rows.length * ROW + 4;
  const picture = svg("svg", {
    class: "usage-chart-bars",
    viewBox: `0 0 ${WIDTH} ${height}`,
    width: WIDTH,
    height,
    role: "img",
    "aria-label": title,
  });
  rows.forEach((row, index) => {
    const y = index * ROW + 2;
    const group = svg("g", { class: "usage-bar", "data-key": row[key] });
    const name = withTitle(svg("text", { class: "name", x: 0, y: y + BAR - 3 }, shortName(row[key])), row[key]);
    group.append(name, ...draw(row, y));
    picture.append(group);
  });
  const figure = element("figure", `usage-chart ${kind}`);
  figure.append(element("figcaption", "", title), picture);
  return figure;
}

function scale(values) {
  const most = Math.max(0, ...values);
  return (value) => (most > 0 ? (Math.max(0, value) / most) * PLOT : 0);
}

function valueLabel(x, y, text) {
  return svg("text", { class: "value", x: x + 6, y: y + BAR - 3 }, text);
}

// Spend: one bar per row, as long as its cost against the largest.
export function spendChart(rows, key, title, money) {
  const length = scale(rows.map((row) => row.cost || 0));
  return chart("cost", title, rows, key, (row, y) => {
    const width = length(row.cost || 0);
    const text = `${row[key]}: ${money(row.cost)} for ${count(row.requests)} requests`;
    const bar = withTitle(svg("rect", { class: "bar cost", x: LABEL, y, width, height: BAR, rx: 2 }), text);
    return [bar, valueLabel(LABEL + width, y, money(row.cost))];
  });
}

export function tokenTotal(row) {
  return SEGMENTS.reduce((sum, [kind]) => sum + (row[kind] || 0), 0);
}

// The share of the prompt (input, cache reads and writes) that the provider read from its cache.
export function cacheShare(row) {
  const prompt = (row.input || 0) + (row.cache_read || 0) + (row.cache_write || 0);
  return prompt ? Math.round((100 * (row.cache_read || 0)) / prompt) : 0;
}

// Tokens: one stacked bar per row, a segment per kind, labelled with the total and the cache's share.
export function tokenChart(rows, key, title) {
  const length = scale(rows.map(tokenTotal));
  return chart("tokens", title, rows, key, (row, y) => {
    let x = LABEL;
    const parts = SEGMENTS.map(([kind, label]) => {
      const width = length(row[kind] || 0);
      const text = `${row[key]}: ${count(row[kind])} ${label} tokens`;
      const part = withTitle(svg("rect", { class: `bar ${kind}`, x, y, width, height: BAR }), text);
      x += width;
      return part;
    });
    const share = cacheShare(row);
    const cached = share ? ` · ${share}% of input from cache` : "";
    return [...parts, valueLabel(x, y, `${count(tokenTotal(row))}${cached}`)];
  });
}

// The colours of the token kinds, as the bars show them.
export function tokenLegend() {
  const legend = element("p", "usage-legend");
  for (const [kind, label] of SEGMENTS) {
    const entry = element("span", "legend-entry");
    entry.append(element("span", `swatch ${kind}`), label);
    legend.append(entry);
  }
  return legend;
}
