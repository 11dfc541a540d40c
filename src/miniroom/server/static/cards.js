// Tool calls as cards (name, what it was called with, the result behind a click, read from the agent's
// session), or in the compact view one line per call. Cards are kept per reply and call, so a reply edited
// as it streams keeps an opened card open.
import { api, friendly } from "./api.js";
import { element } from "./dom.js";
import { toolLine } from "./render.js";

const cards = new Map(); // `${event_id} ${call id}` -> card element
const STATUS = { running: "running…", waiting: "waiting for an answer…", done: "", error: "failed" };
const UNFINISHED = ["running", "waiting"];
// A background task's start call: the card follows the task, which ends after the call.
const TASK_STATUS = { done: "", failed: "failed", stopped: "stopped" };

export function toolCard(roomId, eventId, tool, line) {
  const key = `${eventId} ${tool.id}`;
  let card = cards.get(key);
  if (!card) {
    card = element("details", "tool-card");
    const head = element("summary");
    head.append(element("span", "tool-name", tool.name), element("span", "tool-summary"), element("span", "tool-status"));
    card.append(head, element("div", "tool-detail"), element("div", "tool-detail tool-outcome"));
    card.addEventListener("toggle", () => {
      if (card.open && !card.dataset.loaded) loadCall(card, roomId, eventId, tool.id);
    });
    cards.set(key, card);
  }
  const task = tool.task || null;
  const failed = task ? task.state === "failed" : tool.status === "error";
  card.className = `tool-card ${failed ? "error" : tool.status || ""}`;
  card.querySelector(".tool-summary").replaceChildren(...toolLine(line.replace(/^🔧 /, ""))); // a subagent's: its thread
  card.querySelector(".tool-status").textContent = task ? TASK_STATUS[task.state] ?? task.state : STATUS[tool.status] || "";
  showOutcome(card.querySelector(".tool-outcome"), task);
  if (!UNFINISHED.includes(tool.status) && card.dataset.loaded === "running") delete card.dataset.loaded; // fetch the result
  return card;
}

// How the background task ended, once it did: the beginning of its answer, error or stop note.
function showOutcome(box, task) {
  box.hidden = !task;
  if (!task) return;
  const heading = { done: "Task answer", failed: "Task error" }[task.state] || `Task ${task.state}`;
  const text = element("pre", `tool-result${task.state === "failed" ? " error" : ""}`, task.outcome || "(none)");
  box.replaceChildren(element("h5", "", heading), text);
}

async function loadCall(card, roomId, eventId, callId) {
  const detail = card.querySelector(".tool-detail");
  detail.replaceChildren(element("span", "muted", "Loading…"));
  try {
    const path = `/api/rooms/${encodeURIComponent(roomId)}/events/${encodeURIComponent(eventId)}/tools/${encodeURIComponent(callId)}`;
    const call = await api(path);
    card.dataset.loaded = call.result === null ? "running" : "1";
    const args = element("pre", "tool-arguments", JSON.stringify(call.arguments, null, 2));
    const result = element("pre", `tool-result${call.is_error ? " error" : ""}`);
    result.textContent = call.result ?? "(still running)";
    const parts = [element("h5", "", "Arguments"), args, element("h5", "", call.is_error ? "Error" : "Result"), result];
    if (call.truncated) parts.push(element("p", "muted", "Long values are cut here; the session keeps them whole."));
    detail.replaceChildren(...parts);
  } catch (error) {
    detail.replaceChildren(element("span", "notice error", friendly(error, "load the call")));
  }
}

const COMPACT = "miniroomCompact";

// The compact view, remembered in this browser: `body.compact` shows each call as one line.
export function wireCompactToggle(toggle) {
  const apply = (on) => {
    document.body.classList.toggle("compact", on);
    toggle.checked = on;
  };
  apply(localStorage.getItem(COMPACT) === "1");
  toggle.addEventListener("change", () => {
    localStorage.setItem(COMPACT, toggle.checked ? "1" : "0");
    apply(toggle.checked);
  });
}
