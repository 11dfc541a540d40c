// Small DOM helpers shared by the chat and the settings pages: text reaches the page only as textContent.

export const $ = (id) => document.getElementById(id);

// Make `change`; each of the `lists` that showed its end before it shows its end after it (whoever was reading
// there follows what comes), while a list scrolled up to older messages stays where it is.
export function keepingEnds(lists, change) {
  const following = lists.filter((list) => list.scrollHeight - list.scrollTop - list.clientHeight < 40);
  change();
  for (const list of following) list.scrollTop = list.scrollHeight;
}

export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function button(label, title, onClick, className = "action") {
  const node = element("button", className, label);
  node.type = "button";
  if (title) node.title = title;
  node.addEventListener("click", onClick);
  return node;
}

// A labelled form control with a hint below it and a place for its error: {row, input, error}.
export function field(label, input, hint) {
  const row = element("label", "field");
  const error = element("span", "field-error");
  error.hidden = true;
  row.append(element("span", "field-label", label), input);
  if (hint) row.append(element("span", "hint", hint));
  row.append(error);
  return { row, input, error };
}

export function showError(fieldParts, message) {
  fieldParts.error.textContent = message || "";
  fieldParts.error.hidden = !message;
  fieldParts.input.classList.toggle("invalid", Boolean(message));
}

export function textInput(value, placeholder) {
  const input = element("input");
  input.type = "text";
  input.value = value ?? "";
  if (placeholder !== undefined) input.placeholder = String(placeholder);
  return input;
}

export function checkbox(checked, label) {
  const row = element("label", "check");
  const input = element("input");
  input.type = "checkbox";
  input.checked = Boolean(checked);
  row.append(input, element("span", "", label));
  return { row, input };
}

export function select(options, value) {
  const input = element("select");
  for (const [optionValue, label] of options) {
    const option = element("option", "", label);
    option.value = optionValue;
    input.append(option);
  }
  input.value = value ?? "";
  return input;
}

// A short message at the top of a dialog: kind is "info", "warning" or "error"; actions are buttons.
export function notice(container, kind, text, ...actions) {
  container.replaceChildren();
  container.hidden = !text;
  if (!text) return;
  container.className = `notice ${kind}`;
  container.append(element("span", "", text), ...actions);
}

// The page's status line: what went wrong and what to do; empty hides it.
export function showStatus(text) {
  const status = $("status");
  status.textContent = text;
  status.hidden = !text;
}

let toastTimer = null;
export function toast(text) {
  const box = $("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (box.hidden = true), 4000);
}
