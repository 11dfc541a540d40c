// Forms and buttons an agent's reply offers (its turn's `forms`): drawn here, and a choice or the filled-in
// fields go back to the agent as the person's next message. Widgets are kept per reply, so typing survives
// the reply being drawn again.
import { button, element } from "./dom.js";

const widgets = new Map(); // `${event_id} ${index}` -> widget

export function formWidget(eventId, index, form, submit) {
  const key = `${eventId} ${index}`;
  if (!widgets.has(key)) widgets.set(key, form.kind === "buttons" ? buttons(form, submit) : fields(form, submit));
  return widgets.get(key);
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
