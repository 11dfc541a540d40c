// The Fetch services and Search services tabs of the MiniAgent dialog: `.miniroom/fetch.yml` or
// `.miniroom/search.yml` as a list in priority order beside the selected service's form. Each tab reads, saves
// and conflicts on its own file only. Test runs the saved file, so it warns when the form has unsaved edits.
import { api, friendly } from "./api.js";
import { button, checkbox, element, notice, select, textInput, toast } from "./dom.js";
import { frame, onSave, problemLines } from "./dialog.js";
import { SettingsFile } from "./settings_api.js";
import { serviceForm, uniqueName } from "./service_form.js";

const PRIORITY_HINT = "A lower number is tried first";
const NEW_HINT = "A new service's priority is one above the current maximum, so it is tried last.";
const ENTRY = /^services\[(\d+)\](?:\.(\w+))?(?:\.(.+))?$/;

export async function open(view, name) {
  const kind = name === "search.yml" ? "search" : "fetch";
  const catalogue = await api("/api/settings/services");
  const known = { ...catalogue[kind], models: catalogue.models || [] };
  const page = frame(view, known.location);
  const tab = new ServicesTab(page, new SettingsFile(name), known, kind);
  onSave(page, tab.file, () => tab.collect(), (result) => tab.saved(result), () => tab.load(), (problems) => tab.refused(problems));
  page.cancel.onclick = () => view.close();
  await tab.load();
}

// A service as the file holds it, with `settings` always a mapping to edit in place.
function normalized(item) {
  const service = { ...item };
  service.settings = { ...(item.settings && typeof item.settings === "object" ? item.settings : {}) };
  return service;
}

// A service as it is saved: no empty settings mapping.
function saved(service) {
  const copy = { ...service, settings: { ...service.settings } };
  if (!Object.keys(copy.settings).length) delete copy.settings;
  return copy;
}

// The services pasted as JSON: one ({name, type, ...}) or the whole set ([...] or {services: [...]}).
function pasted(text) {
  const value = JSON.parse(text);
  const set = Array.isArray(value) ? value : value && Array.isArray(value.services) ? value.services : null;
  const items = set || [value];
  for (const item of items) {
    if (!item || typeof item !== "object" || typeof item.name !== "string" || typeof item.type !== "string") {
      throw new Error('each service needs at least "name" and "type" (text)');
    }
  }
  return { whole: set !== null, services: items.map(normalized) };
}

class ServicesTab {
  constructor(page, file, known, kind) {
    Object.assign(this, { page, file, known, kind });
    this.services = [];
    this.selected = null; // the service object shown in the form
    this.problems = new Map(); // service object -> {field: message}, from the last refused save
    this.savedJson = "[]";
    page.content.classList.add("entries", "services");
    this.list = element("ul", "entry-list service-list");
    this.editor = element("div", "entry-editor");
    const side = element("div", "entry-side");
    const add = button("New service", `Add a ${kind} service`, () => this.add(), "secondary new-entry");
    const copyAll = button("Copy all as JSON", "Copy every service of this file as JSON", () => this.copy(this.services.map(saved), "all services"), "secondary");
    side.append(this.list, element("p", "hint", `${PRIORITY_HINT}. ${NEW_HINT}`), add, copyAll, this.pasteBox());
    page.content.append(side, this.editor);
  }

  async load() {
    await this.file.load();
    const data = this.file.file.data;
    const items = data && Array.isArray(data.services) ? data.services : [];
    this.services = items.filter((item) => item && typeof item === "object").map(normalized);
    this.savedJson = this.json();
    this.problems.clear();
    this.selected = this.ordered()[0] || null;
    this.render();
    const broken = this.file.errors();
    const absent = `${this.known.location} does not exist yet: add a service and save to create it.`;
    if (broken.length) notice(this.page.top, "warning", `${this.known.file} has errors: ${problemLines(broken)}`);
    else notice(this.page.top, "info", this.file.file.exists ? "" : absent);
  }

  json() {
    return JSON.stringify(this.services.map(saved));
  }

  // The services in the order they are tried: by priority, then as the file lists them.
  ordered() {
    const rank = (service) => (Number.isInteger(service.priority) ? service.priority : this.known.defaultPriority);
    return this.services.map((service, index) => [service, index]).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([service]) => service);
  }

  nextPriority() {
    const numbers = this.services.map((service) => service.priority).filter(Number.isInteger);
    return numbers.length ? Math.max(...numbers) + 1 : this.known.defaultPriority;
  }

  insert(service) {
    service.priority = this.nextPriority();
    service.name = uniqueName(service.name, this.services);
    this.services.push(service);
    this.selected = service;
    this.render();
  }

  add() {
    const type = this.known.types[0];
    this.insert({ name: type.name, type: type.name, enabled: true, priority: 0, settings: {} });
    this.editor.querySelector("[data-key=type] select").focus();
  }

  duplicate(service) {
    this.insert(normalized(JSON.parse(JSON.stringify(service))));
  }

  remove(service) {
    this.services = this.services.filter((item) => item !== service);
    this.problems.delete(service);
    this.selected = this.ordered()[0] || null;
    this.render();
  }

  render() {
    this.renderList();
    this.editor.replaceChildren();
    if (!this.selected) {
      this.editor.append(element("p", "muted", `No ${this.kind} services yet: add one with New service.`));
      return;
    }
    this.editor.append(this.head(this.selected), serviceForm(this.selected, {
      types: this.known.types,
      services: this.services,
      errors: this.problems.get(this.selected) || {},
      // Only the list: the form stays, so a click that moved focus out of the name lands where aimed.
      changed: () => this.renderList(),
      reveal: (name) => this.reveal(name),
    }), this.testBox(this.selected));
  }

  renderList() {
    this.list.replaceChildren(...this.ordered().map((service) => this.row(service)));
  }

  // One line of the list: the enable switch, the name (selects it) and the priority.
  row(service) {
    const item = element("li", "service-row");
    const enabled = checkbox(service.enabled !== false, "");
    enabled.input.title = `Enable ${service.name}`;
    enabled.input.setAttribute("aria-label", `Enable ${service.name}`);
    enabled.input.addEventListener("change", () => (service.enabled = enabled.input.checked));
    const pick = button(service.name, `Edit ${service.name}`, () => {
      this.selected = service;
      this.render();
    }, "entry");
    pick.classList.toggle("active", service === this.selected);
    const problems = this.problems.get(service);
    if (problems && Object.keys(problems).length) pick.classList.add("has-problem");
    const priority = textInput(String(service.priority ?? ""), this.known.defaultPriority);
    priority.className = "priority";
    priority.inputMode = "numeric";
    priority.title = PRIORITY_HINT;
    priority.setAttribute("aria-label", `Priority of ${service.name}`);
    priority.addEventListener("change", () => {
      const text = priority.value.trim();
      if (!text) delete service.priority;
      else service.priority = /^-?\d+$/.test(text) ? Number(text) : text; // the save says what is wrong
      this.renderList();
    });
    item.append(enabled.row, pick, priority);
    return item;
  }

  head(service) {
    const row = element("div", "entry-head service-actions");
    row.append(
      button("Duplicate", `Duplicate ${service.name}`, () => this.duplicate(service), "secondary"),
      button("Copy as JSON", `Copy ${service.name} as JSON`, () => this.copy(saved(service), service.name), "secondary"),
      button("Delete service", `Delete ${service.name}`, () => this.remove(service), "danger"),
    );
    return row;
  }

  // The saved values of service `name`, secrets unmasked, for Show; null (and why, in a notice) when the
  // server shows no secrets (no API token set).
  async reveal(name) {
    let shown;
    try {
      shown = await new SettingsFile(this.file.name).load(true);
    } catch (error) {
      notice(this.page.top, "error", friendly(error, "show the secret"));
      return null;
    }
    const items = (shown.data && shown.data.services) || [];
    const found = items.find((item) => item && item.name === name);
    return found ? found.settings || {} : null;
  }

  testBox(service) {
    const box = element("fieldset", "service-test");
    const label = this.kind === "fetch" ? "Test page" : "Test query";
    const target = textInput("", this.known.testTarget);
    target.setAttribute("aria-label", label);
    const result = element("div", "test-result");
    result.hidden = true;
    // $VAR in the settings expands with a model's variables: as the agents on that model would run it.
    const model = select([["", "No model's variables"], ...this.known.models.map((alias) => [alias, `Variables of ${alias}`])], "");
    model.setAttribute("aria-label", "Expand $VAR with");
    model.hidden = !this.known.models.length;
    const run = button("Test", `Run ${service.name} once, as saved`, () => this.test(service, target.value.trim(), result, run, model.value), "secondary");
    box.append(element("legend", "", "Test the saved service"), target, model, run, result);
    return box;
  }

  async test(service, target, result, run, model) {
    result.hidden = false;
    result.className = "test-result";
    const unsaved = this.json() !== this.savedJson;
    const warning = unsaved ? element("p", "notice warning", `You have unsaved edits: Test runs ${this.known.location} as saved, not the form. Save first to test them.`) : "";
    result.replaceChildren(warning, element("p", "muted", `Testing ${service.name}…`));
    run.disabled = true;
    try {
      const body = { name: service.name, ...(target ? { target } : {}), ...(model ? { model } : {}) };
      const answer = await api(`/api/settings/services/${this.kind}/test`, { method: "POST", body: JSON.stringify(body) });
      result.classList.add(answer.ok ? "ok" : "failed");
      const status = element("p", "test-status");
      status.append(element("strong", "", answer.ok ? "Success" : "Failed"), ` · ${answer.latency_ms} ms`);
      const parts = [warning, status, element("p", "test-explanation", answer.explanation)];
      if (answer.sample) parts.push(element("pre", "test-sample", answer.sample));
      result.replaceChildren(...parts);
    } catch (error) {
      result.classList.add("failed");
      result.replaceChildren(warning, element("p", "test-explanation", friendly(error, `test ${service.name}`)));
    } finally {
      run.disabled = false;
    }
  }

  pasteBox() {
    const box = element("details", "service-json");
    this.jsonText = element("textarea");
    this.jsonText.rows = 6;
    this.jsonText.setAttribute("aria-label", "Service JSON");
    this.jsonText.placeholder = '{"name": "...", "type": "...", "settings": {...}} or a list of them';
    const fromBox = button("Add from JSON", "Add the service (or replace the list with the set) in the box", () => this.paste(this.jsonText.value), "secondary");
    const fromClipboard = button("Paste from clipboard", "Add the service JSON on the clipboard", async () => {
      try {
        this.jsonText.value = await navigator.clipboard.readText();
      } catch (error) {
        notice(this.page.top, "warning", "The clipboard cannot be read here: paste the JSON into the box, then Add from JSON.");
        box.open = true;
        return;
      }
      this.paste(this.jsonText.value);
    }, "secondary");
    box.append(element("summary", "", "JSON"), this.jsonText, fromBox, fromClipboard);
    this.jsonBox = box;
    return box;
  }

  async copy(value, what) {
    const text = JSON.stringify(value, null, 2);
    this.jsonText.value = text;
    try {
      await navigator.clipboard.writeText(text);
      toast(`Copied ${what} as JSON`);
    } catch (error) {
      this.jsonBox.open = true;
      notice(this.page.top, "warning", "The clipboard cannot be written here: the JSON is in the box below, copy it from there.");
    }
  }

  paste(text) {
    let found;
    try {
      found = pasted(text);
    } catch (error) {
      notice(this.page.top, "error", `Not service JSON: ${error.message}`);
      return;
    }
    if (found.whole) {
      this.services = found.services;
      this.problems.clear();
      this.selected = this.ordered()[0] || null;
      this.render();
      notice(this.page.top, "info", `The list is now the ${found.services.length} pasted services; Save Changes to keep them.`);
      return;
    }
    this.insert(found.services[0]);
    notice(this.page.top, "info", `Added ${this.selected.name} from JSON; Save Changes to keep it.`);
  }

  collect() {
    return { data: { ...(this.file.file.data || {}), services: this.services.map(saved) } };
  }

  saved(result) {
    this.savedJson = this.json();
    this.problems.clear();
    this.render();
    const warnings = problemLines(result.problems);
    notice(this.page.top, warnings ? "warning" : "info", `Saved ${this.known.location}: ${result.applied}. ${warnings}`);
  }

  // A refused save: each error beside its service and field, and the notice naming both.
  refused(problems) {
    this.problems.clear();
    const lines = [];
    for (const problem of problems.filter((item) => item.severity === "error")) {
      const match = ENTRY.exec(problem.key);
      const service = match ? this.services[Number(match[1])] : null;
      if (!service) {
        lines.push(problem.text);
        continue;
      }
      const required = /^(\w+) is required by /.exec(problem.message);
      const key = match[2] === "settings" ? match[3] || (required ? required[1] : "") : match[2] || "";
      this.problems.set(service, { ...(this.problems.get(service) || {}), [key]: problem.message });
      lines.push(`Service "${service.name}", ${key || "entry"}: ${problem.message}`);
    }
    const first = this.services.find((service) => this.problems.has(service));
    if (first) this.selected = first;
    this.render();
    notice(this.page.top, "error", `Not saved: ${lines.join("\n")}`);
  }
}
