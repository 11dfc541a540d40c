// The usage page: tokens (input, output, cache) and cost by agent, model and day, from the agents' sessions,
// failed attempts included; each dimension as bar charts above its table.
import { api } from "./api.js";
import { cacheShare, count, spendChart, tokenChart, tokenLegend } from "./charts.js";
import { element } from "./dom.js";

const COLUMNS = [
  ["requests", "Requests"],
  ["failed", "Failed"],
  ["input", "Input"],
  ["output", "Output"],
  ["cache_read", "Cache read"],
  ["cache_write", "Cache write"],
  ["cost", "Cost"],
];
const GROUPS = [
  ["by_agent", "agent", "Agent"],
  ["by_model", "model", "Model"],
  ["by_day", "day", "Day"],
];

export function money(cost) {
  return `$${Number(cost || 0).toFixed(cost && cost < 0.01 ? 4 : 2)}`;
}

function cell(key, value) {
  return key === "cost" ? money(value) : count(value);
}

function table(rows, key, title) {
  const grid = element("table", "usage-table");
  const head = element("tr");
  head.append(element("th", "", title), ...COLUMNS.map(([, label]) => element("th", "", label)));
  grid.append(head);
  for (const row of rows) {
    const line = element("tr");
    line.append(element("td", "", row[key]), ...COLUMNS.map(([column]) => element("td", column, cell(column, row[column]))));
    grid.append(line);
  }
  return grid;
}

// One dimension: its spend and its tokens as bars, then the table they are drawn from.
function group(rows, key, title) {
  const wrap = element("section", `usage-group ${key}`);
  const per = title.toLowerCase();
  const charts = element("div", "usage-charts");
  charts.append(spendChart(rows, key, `Spend per ${per}`, money), tokenChart(rows, key, `Tokens per ${per}`));
  wrap.append(element("h4", "", `By ${per}`), charts, table(rows, key, title));
  return wrap;
}

export async function open(view) {
  const report = await api("/api/usage");
  const total = element("dl", "usage-total");
  for (const [column, label] of COLUMNS) {
    const value = element("dd", column, cell(column, report.total[column]));
    total.append(element("dt", "", label), value);
  }
  const note = "Every request of every agent's sessions, failed attempts included: each is paid.";
  view.body.append(element("p", "muted", note), total);
  if (!report.total.requests) {
    view.body.append(element("p", "muted", "No requests yet."));
    return;
  }
  const cache = "Cache read: input the provider served from its prompt cache, billed at a fraction of the input price";
  view.body.append(tokenLegend(), element("p", "muted usage-cache", `${cache}: ${cacheShare(report.total)}% of all input.`));
  for (const [list, key, title] of GROUPS) {
    if (report[list].length) view.body.append(group(report[list], key, title));
  }
}
