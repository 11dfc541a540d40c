// Forms and buttons an agent's reply offers (its turn's `forms`): drawn here, and a choice or the filled-in
// fields go back to the agent as the person's next message. Widgets are kept per reply, so typing survives
// the reply being drawn again.
import { button, element } from "./dom.js";
import { state } from "./model.js";

const ADMIN_POWER = 100; // a room admin may answer any card, as the room runtime decides

const widgets = new Map(); // `${event_id} ${index}` -> widget

// `refused`: why the reader may not answer (a card only its requester or a room admin answers), or "".
export function formWidget(eventId, index, form, submit, refused = "") {
  const key = `${eventId} ${index}`;
  if (!widgets.has(key)) widgets.set(key, form.kind === "buttons" ? buttons(form, submit) : fields(form, submit));
  const widget = widgets.get(key);
  if (!widget.classList.contains("sent")) offer(widget, refused);
  return widget;
}

function member(userId) {
  return state.room && state.room.members.find((m) => m.user_id === userId);
}

// A name to show for `userId`: their display name, but the id where that name is "You" (the local user's,
// which would read as the reader).
function nameOf(userId) {
  const name = member(userId) && member(userId).display_name;
  return name && name.toLowerCase() !== "you" ? name : userId;
}

// How a card's "who may answer" reads for the person posting now: "You or a room admin", "Ann or a room admin".
export function whoMayAnswer(form) {
  if (!form.requester) return form.who;
  return `${form.requester === state.userId ? "You" : nameOf(form.requester)} or a room admin`;
}

// Why the person posting now may not answer a card's form ("" when they may): only its requester or an admin.
export function refusal(form) {
  const poster = member(state.userId);
  if (!form.requester || form.requester === state.userId || (poster && poster.power_level >= ADMIN_POWER)) return "";
  return `Only ${nameOf(form.requester)} or a room admin may answer this`;
}

// Who posts may change (the sidebar's "Posting as"): each drawing offers the controls to them or not.
function offer(widget, refused) {
  for (const control of widget.querySelectorAll("button, input, select")) {
    control.disabled = Boolean(refused);
    if (control.dataset.title === undefined) control.dataset.title = control.title;
    control.title = refused || control.dataset.title;
  }
  widget.classList.toggle("refused", Boolean(refused));
  const note = widget.querySelector(".refusal");
  if (note) note.remove();
  if (refused) widget.append(element("span", "refusal muted", `${refused}.`));
}

function sent(widget, text) {
  for (const control of widget.querySelectorAll("button, input, select")) control.disabled = true;
  widget.classList.add("sent");
  widget.title = `Sent: ${text}`;
}

function buttons(form, submit) {
  const widget = element("div", "agent-buttons");
  for (const option of form.options) {
    widget.append(
      button(option, `Answer "${option}"`, async () => {
        if (await submit(option)) sent(widget, option);
      }, "agent-button"),
    );
  }
  return widget;
}

function fields(form, submit) {
  const widget = element("form", "agent-form");
  const inputs = form.fields.map((item) => {
    const row = element("label", "field");
    let input;
    if (item.choices.length) {
      input = element("select");
      for (const choice of item.choices) input.append(element("option", "", choice));
    } else {
      input = element("input");
      input.type = "text";
    }
    row.append(element("span", "field-label", item.label), input);
    widget.append(row);
    return [item.label, input];
  });
  const send = element("button", "primary", "Send");
  send.type = "submit";
  widget.append(send);
  widget.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = inputs.map(([label, input]) => `${label}: ${input.value}`).join("\n");
    if (await submit(text)) sent(widget, text);
  });
  return widget;
}
