// The Agents, Models and Rooms pages: sections of config.yaml edited as lists. A save goes through the same
// validation as `miniroom config check`, and the running server applies it (or says to restart).
import { friendly } from "./api.js";
import { button, checkbox, element, field, notice, select, textInput } from "./dom.js";
import { frame, onSave, problemLines } from "./dialog.js";
import { Entries } from "./entries.js";
import { SettingsFile, defaults, problemsOf } from "./settings_api.js";

const MASK = "••••••••";
const NAME = /^[A-Za-z0-9._=+-]+$/;
const NAME_HINT = "Letters, digits and . _ = + -";
const PAGES = {
  agents: { noun: "agent", blank: () => ({ rooms: [] }), form: agentForm },
  models: { noun: "model", blank: () => ({ model: "", variables: [] }), form: modelForm },
  rooms: { noun: "room", blank: () => ({}), form: roomForm },
};

export async function open(view, section) {
  const spec = PAGES[section];
  const file = new SettingsFile("config.yaml");
  const profiles = new SettingsFile("miniagent.yml");
  const known = (await defaults()).profile;
  const page = frame(view, "config.yaml");
  page.content.classList.add("entries");
  let data = {};
  const context = { known, profileNames: [], data: () => data, file, page };
  const entries = new Entries(page.content, {
    noun: spec.noun,
    mask: NAME,
    maskHint: NAME_HINT,
    blank: spec.blank,
    form: (name, value, errors) => spec.form(name, value, errors, context),
    renamed: (old, name) => renameReferences(data, section, old, name),
  });
  context.entries = entries;

  const load = async () => {
    await Promise.all([file.load(), profiles.load().catch(() => null)]);
    data = file.file.data || {};
    context.profileNames = Object.keys((profiles.file && profiles.file.data && profiles.file.data.profiles) || {});
    entries.problems = {};
    entries.set(data[section] || {});
    notice(page.top, "warning", file.errors().length ? `config.yaml has errors: ${problemLines(file.errors())}` : "");
  };
  const collect = () => (entries.valid() ? { data: { ...data, [section]: entries.entries } } : null);
  const saved = (result) => {
    data = { ...data, [section]: entries.entries };
    entries.problems = {};
    entries.render();
    const unusable = (result.model_problems || []).join("\n");
    const said = `Saved config.yaml: ${result.applied}. ${problemLines(result.problems)}`;
    notice(page.top, unusable ? "warning" : "info", unusable ? `${said}\n${unusable}` : said);
    document.dispatchEvent(new CustomEvent("miniroom:rooms-changed"));
  };
  const refused = (problems) => {
    for (const name of Object.keys(entries.entries)) entries.problems[name] = problemsOf(problems, `${section}.${name}`);
    entries.render();
  };
  onSave(page, file, collect, saved, load, refused);
  page.cancel.onclick = () => view.close();
  await load();
}

// A renamed room or model keeps the agents (and router) that name it.
function renameReferences(data, section, old, name) {
  for (const agent of Object.values(data.agents || {})) {
    if (section === "rooms" && agent.rooms) agent.rooms = agent.rooms.map((room) => (room === old ? name : room));
    if (section === "models" && agent.model === old) agent.model = name;
  }
  for (const part of ["router", "defaults"]) {
    if (section === "models" && data[part] && data[part].model === old) data[part].model = name;
  }
}

function text(value, key, label, hint, errors) {
  const parts = field(label, textInput(value[key] ?? ""), hint);
  if (errors[key]) parts.error.textContent = errors[key];
  parts.error.hidden = !errors[key];
  parts.input.addEventListener("input", () => {
    if (parts.input.value.trim()) value[key] = parts.input.value;
    else delete value[key];
  });
  return parts.row;
}

// Checkboxes editing a list value: `names` are the choices.
function listToggles(value, key, legend, names) {
  const box = element("fieldset", "choices");
  box.append(element("legend", "", legend));
  for (const name of names) {
    const toggle = checkbox((value[key] || []).includes(name), name);
    toggle.input.addEventListener("change", () => {
      const chosen = new Set(value[key] || []);
      if (toggle.input.checked) chosen.add(name);
      else chosen.delete(name);
      value[key] = names.filter((item) => chosen.has(item));
    });
    box.append(toggle.row);
  }
  return box;
}

function agentForm(name, value, errors, context) {
  const form = element("div", "agent-settings");
  const data = context.data();
  const models = [["", "The default model"], ...Object.keys(data.models || {}).map((alias) => [alias, alias])];
  const model = field("Model", select(models, value.model ?? ""), "An alias under Models");
  model.input.addEventListener("change", () => {
    if (model.input.value) value.model = model.input.value;
    else delete value.model;
  });
  const instructions = element("textarea");
  instructions.rows = 3;
  instructions.value = [].concat(value.instructions || []).join("\n");
  instructions.addEventListener("input", () => {
    value.instructions = instructions.value.split("\n").filter((line) => line.trim());
  });
  const mode = field("Thread mode", select([["thread", "thread"], ["room", "room"]], value.thread_mode ?? "thread"));
  mode.input.addEventListener("change", () => (value.thread_mode = mode.input.value));
  const memoryChoices = [["none", "None"], ["file", "File: MEMORY.md and memory/ in its working folder"]];
  const memory = field("Memory", select(memoryChoices, value.memory ?? "none"), "Kept across conversations");
  memory.input.addEventListener("change", () => {
    if (memory.input.value === "file") value.memory = "file";
    else delete value.memory;
  });
  form.append(
    text(value, "display_name", "Display name", "How the agent is named in the rooms", errors),
    text(value, "role", "Role", "The router reads roles to pick one agent", errors),
    field("Instructions", instructions, "One per line").row,
    model.row,
    listToggles(value, "rooms", "Rooms it joins and answers in", Object.keys(data.rooms || {})),
    listToggles(value, "tools", "Tools (none checked: all its profile allows)", context.known.tools),
    mode.row,
    memory.row,
  );
  return form;
}

function modelForm(name, value, errors, context) {
  const form = element("div", "model-form");
  value.variables = value.variables || [];
  const backend = () => value.variables.find((line) => line.startsWith("AGENT_BACKEND="));
  const choices = [["", "Built-in defaults"], ...context.profileNames.map((profile) => [`mini:${profile}`, `Profile ${profile}`])];
  const current = (backend() || "").slice("AGENT_BACKEND=".length);
  const profile = field("MiniAgent profile", select(choices, current), "Sets AGENT_BACKEND=mini:<profile>");
  const rows = element("div", "variables");
  const drawRows = () => rows.replaceChildren(...value.variables.map((line, index) => variableRow(value, index, drawRows)));
  profile.input.addEventListener("change", () => {
    value.variables = value.variables.filter((line) => !line.startsWith("AGENT_BACKEND="));
    if (profile.input.value) value.variables.unshift(`AGENT_BACKEND=${profile.input.value}`);
    drawRows();
  });
  const add = button("Add variable", "Add a NAME=value line", () => {
    value.variables.push("NAME=");
    drawRows();
  }, "secondary");
  const reveal = button("Show", "Show the secret values (needs the API token)", async () => {
    let shown;
    try {
      shown = await new SettingsFile("config.yaml").load(true);
    } catch (error) {
      notice(context.page.top, "error", friendly(error, "show the secrets"));
      return;
    }
    const saved = ((shown.data.models || {})[name] || {}).variables || [];
    value.variables = value.variables.map((line, index) => (line.includes(MASK) ? savedLine(line, index, saved) : line));
    drawRows();
  }, "secondary");
  drawRows();
  const hint = "provider/model:thinking, e.g. anthropic/claude-sonnet-5:medium";
  const variables = element("fieldset", "variable-list");
  variables.append(element("legend", "", "Variables (NAME=value)"), rows, add, reveal);
  if (errors.variables) variables.append(element("span", "field-error", errors.variables));
  form.append(text(value, "model", "Model", hint, errors), profile.row, variables);
  return form;
}

// The saved line a masked `line` stands for, as the server maps it back: the same NAME at the same place,
// else the only saved line of that NAME.
function savedLine(line, index, saved) {
  const name = line.split("=")[0];
  if ((saved[index] || "").split("=")[0] === name) return saved[index];
  const same = saved.filter((other) => other.split("=")[0] === name);
  return same.length === 1 ? same[0] : line;
}

function variableRow(value, index, redraw) {
  const [key, ...rest] = value.variables[index].split("=");
  const row = element("div", "variable");
  const nameInput = textInput(key, "NAME");
  const valueInput = textInput(rest.join("="), "value");
  nameInput.setAttribute("aria-label", "Variable name");
  valueInput.setAttribute("aria-label", `Value of ${key}`);
  const update = () => (value.variables[index] = `${nameInput.value.trim()}=${valueInput.value}`);
  nameInput.addEventListener("input", update);
  valueInput.addEventListener("input", update);
  const remove = button("×", "Remove this variable", () => {
    value.variables.splice(index, 1);
    redraw();
  }, "icon");
  remove.setAttribute("aria-label", `Remove ${key}`);
  row.append(nameInput, element("span", "", "="), valueInput, remove);
  return row;
}

function roomForm(name, value, errors) {
  const form = element("div", "room-form");
  form.append(
    text(value, "display_name", "Display name", "The room's name on the page", errors),
    text(value, "alias", "Alias", "The room's address name, e.g. lobby", errors),
  );
  return form;
}
