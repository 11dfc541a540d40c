// The form of one fetch or search service: it follows the type. Picking a type draws that type's settings
// (required ones marked, secrets masked with Show, each with its default) and names the service after the
// type while the name is still the one the type gave. The form edits the service object in place.
import { button, element, field, select, showError, textInput } from "./dom.js";

export const MASK = "••••••••"; // how the server shows a saved secret (config/secrets.py)

// `base`, or `base 2`, `base 3`, ... : the first that no service in `services` has (but `self`).
export function uniqueName(base, services, self = null) {
  const taken = new Set(services.filter((service) => service !== self).map((service) => service.name));
  let name = base;
  for (let n = 2; taken.has(name); n += 1) name = `${base} ${n}`;
  return name;
}

function typeOf(types, name) {
  return types.find((type) => type.name.toLowerCase() === String(name || "").toLowerCase()) || null;
}

// A name the type gave (`Brave`, `Brave 2`): one the person has not chosen, so a new type may replace it.
function givenByType(name, type) {
  return !name || (type && new RegExp(`^${type.name}( \\d+)?$`).test(name));
}

// options: types, services (all of them, for unique names), errors ({field: message}), changed() after a
// name or type change (the list shows them), reveal(name) -> the saved settings of `name` unmasked.
export function serviceForm(service, options) {
  const form = element("div", "service-form");
  const draw = () => form.replaceChildren(...parts(service, options, draw));
  draw();
  return form;
}

function parts(service, options, redraw) {
  const { types, services, errors } = options;
  const type = typeOf(types, service.type);
  const choices = types.map((known) => [known.name, known.name]);
  if (!type) choices.unshift([service.type || "", `${service.type || "(none)"}: not a known type`]);
  const typeField = field("Type *", select(choices, type ? type.name : service.type || ""), type ? type.summary : "Pick a type");
  typeField.row.dataset.key = "type";
  showError(typeField, errors.type || "");
  typeField.input.addEventListener("change", () => {
    const next = typeOf(types, typeField.input.value);
    if (givenByType(service.name, type)) service.name = uniqueName(next.name, services, service);
    service.type = next.name;
    const known = new Set(next.settings.map((spec) => spec.name));
    service.settings = Object.fromEntries(Object.entries(service.settings).filter(([key]) => known.has(key)));
    options.changed();
    redraw();
  });
  const nameField = field("Name *", textInput(service.name), "Unique in this file; messages name the service by it");
  nameField.row.dataset.key = "name";
  showError(nameField, errors.name || "");
  nameField.input.addEventListener("change", () => {
    service.name = nameField.input.value.trim();
    options.changed();
  });
  const shown = [typeField.row, nameField.row];
  if (errors[""]) shown.push(element("p", "field-error", errors[""]));
  const specs = type ? type.settings : [];
  if (specs.length) shown.push(element("h4", "", `${type.name} settings`));
  for (const spec of specs) shown.push(settingField(service, spec, errors[spec.name], options));
  const known = new Set(specs.map((spec) => spec.name));
  for (const key of Object.keys(service.settings).filter((name) => !known.has(name))) {
    const hint = `${type ? type.name : "This type"} has no such setting; it is kept as written`;
    shown.push(settingField(service, { name: key, kind: "text", default: null, choices: [], note: hint }, errors[key], options));
  }
  return shown;
}

function defaultHint(spec) {
  const parts = [];
  if (spec.note) parts.push(spec.note[0].toUpperCase() + spec.note.slice(1));
  if (spec.required) parts.push("Required");
  parts.push(`Default: ${spec.default ?? "none"}`);
  return parts.join(". ");
}

function settingField(service, spec, error, options) {
  const value = service.settings[spec.name] ?? "";
  let input;
  if (spec.kind === "enum") {
    input = select([["", `Default (${spec.default ?? "none"})`], ...spec.choices.map((choice) => [choice, choice])], String(value));
  } else if (/per line/.test(spec.note || "")) {
    input = element("textarea");
    input.rows = 3;
    input.value = String(value);
  } else {
    input = textInput(String(value), spec.default ?? (spec.required ? "required" : ""));
  }
  const parts = field(`${spec.name}${spec.required ? " *" : ""}`, input, defaultHint(spec));
  parts.row.dataset.key = spec.name;
  if (spec.required) parts.row.classList.add("required");
  showError(parts, error || "");
  const store = () => {
    const text = input.value;
    if (text.trim()) service.settings[spec.name] = text;
    else delete service.settings[spec.name];
  };
  input.addEventListener(spec.kind === "enum" ? "change" : "input", store);
  if (spec.kind === "secret") secretControls(parts, service, spec, options);
  return parts.row;
}

// A secret is typed and shown masked; Show reveals it, asking the server for a saved value it masked.
function secretControls(parts, service, spec, options) {
  const input = parts.input;
  input.type = "password";
  input.autocomplete = "off";
  const show = button("Show", `Show ${spec.name}`, async () => {
    if (input.type === "text") {
      input.type = "password";
      show.textContent = "Show";
      return;
    }
    if (input.value === MASK) {
      const saved = await options.reveal(service.name);
      if (saved && saved[spec.name] !== undefined) {
        input.value = String(saved[spec.name]);
        service.settings[spec.name] = input.value;
      }
    }
    input.type = "text";
    show.textContent = "Hide";
  }, "secondary show-secret");
  const row = element("span", "secret-row");
  input.replaceWith(row);
  row.append(input, show);
}
