// What the person does in the chat: send, react, edit. Each sent event goes through the page's own
// `receive` (bound by app.js), as if it came from the stream.
import { api, friendly } from "./api.js";
import { $, button, element, keepingEnds, showStatus } from "./dom.js";
import { myReaction, state } from "./model.js";
import { postingAs } from "./people.js";

let ui = { receive: () => {}, refresh: () => {} };

export function bindActions(handlers) {
  ui = handlers;
}

export function roomPath(suffix = "") {
  return `/api/rooms/${encodeURIComponent(state.room.room_id)}${suffix}`;
}

// A transaction id per message: sending it again (after an answer was lost) returns the stored message.
export function newTxnId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

export async function send(body, threadRoot, txnId) {
  const where = threadRoot ? { thread_root: threadRoot } : {};
  const payload = { body, ...where, txn_id: txnId, ...postingAs() };
  const sent = await api(roomPath("/messages"), { method: "POST", body: JSON.stringify(payload) });
  ui.receive(sent.event, false);
}

// A reaction of mine is taken back (redacted); any other is added.
export async function toggleReaction(message, key) {
  const mine = myReaction(message, key);
  try {
    const sent = mine
      ? await api(roomPath(`/events/${encodeURIComponent(mine)}/redact`), {
          method: "POST",
          body: JSON.stringify(postingAs()),
        })
      : await api(roomPath(`/messages/${encodeURIComponent(message.event.event_id)}/reactions`), {
          method: "POST",
          body: JSON.stringify({ key, ...postingAs() }),
        });
    ui.receive(sent.event, false);
    showStatus("");
  } catch (error) {
    showStatus(friendly(error, mine ? `take back your ${key}` : `react ${key}`));
  }
}

// The message's text in a box, saved with Enter or Save, left with Escape or Cancel (a phone has no Escape).
// Saving the text unchanged sends no edit: an edit makes the agents that answered it answer again.
export function startEdit(message, view) {
  if (!view || view.querySelector(".editor") || message.body === undefined) return;
  const editor = element("textarea", "editor");
  editor.value = message.body;
  editor.setAttribute("aria-label", "Edit the message");
  const body = view.querySelector(".body");
  const finish = () => {
    body.replaceChildren();
    ui.refresh(message);
  };
  const save = async () => {
    if (editor.value === message.body) return finish();
    try {
      const path = roomPath(`/messages/${encodeURIComponent(message.event.event_id)}`);
      const edit = { body: editor.value, ...postingAs() };
      const sent = await api(path, { method: "PUT", body: JSON.stringify(edit) });
      finish();
      ui.receive(sent.event, false);
      showStatus("");
    } catch (error) {
      showStatus(friendly(error, "save the edit"));
    }
  };
  const bar = element("div", "edit-bar");
  bar.append(
    element("span", "muted", "Enter saves · Esc cancels"),
    button("Cancel", "", finish),
    button("Save", "", save, "action primary"),
  );
  body.replaceChildren(editor, bar);
  editor.focus();
  editor.addEventListener("keydown", (event) => {
    if (event.key === "Escape") return finish();
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    save();
  });
}

// The box grows with its text, up to a third of the window, so that a message of several lines can be read
// before it is sent; an empty box (a sent message) is one line again.
function fitText(input) {
  input.style.height = "";
  if (!input.value) return;
  const border = input.offsetHeight - input.clientHeight;
  input.style.height = `${Math.min(input.scrollHeight + border, Math.round(window.innerHeight / 3))}px`;
}

export function wireComposer(form, input, threadRoot) {
  // As the box grows, the room and the thread keep their newest message in view for whoever read there.
  const fit = () => keepingEnds([$("timeline"), $("thread-timeline")], () => fitText(input));
  input.addEventListener("input", fit);
  let unsent = null; // a send that failed: the same text sent again to the same place reuses its id
  const submit = async () => {
    const body = input.value;
    const root = threadRoot();
    if (!body.trim()) return;
    if (!unsent || unsent.body !== body || unsent.root !== root) unsent = { body, root, txnId: newTxnId() };
    try {
      await send(body, root, unsent.txnId);
      unsent = null;
      input.value = "";
      fit();
      showStatus("");
    } catch (error) {
      showStatus(friendly(error, "send the message"));
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
}
