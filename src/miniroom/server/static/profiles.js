// The MiniAgent dialog: profiles of `.miniroom/miniagent.yml` (list, toggles, tools, numbers with their
// defaults, the system prompt), beside the Fetch services and Search services tabs when the project has them.
import { button, checkbox, element, field, notice, select, showError, textInput } from "./dom.js";
import { frame, onSave, problemLines } from "./dialog.js";
import { Entries } from "./entries.js";
import { SettingsFile, defaults, listFiles, problemsOf } from "./settings_api.js";

const WHOLE = /^\d+$/;
const NUMBERS = [
  ["toolCallTimeout", "Tool call timeout", "Seconds one tool call may run"],
  ["firstByteTimeout", "First byte timeout", "Seconds for a provider's response to start"],
  ["idleTimeout", "Idle timeout", "Seconds a reply may bring no text, thinking or tool calls"],
  ["maxModelRequests", "Max model requests", "Model requests one turn may make"],
  ["maxOutputTokens", "Max output tokens", "The output-token ceiling of a request"],
  ["thinkingBudget", "Thinking budget", "Thinking tokens for every level but off"],
  ["parallelBashThreads", "Parallel bash threads", "Commands of one parallel_bash call running at once"],
  ["readMaxLines", "Read max lines", "Lines one read call returns"],
  ["maxParallelAgents", "Max parallel agents", "Subagents of one chat running at once; extras queue"],
  ["answerTimeout", "Answer timeout", "Seconds one answer from the provider may take in all"],
  ["maxAnswerBytes", "Max answer bytes", "Bytes one answer from the provider may bring"],
  ["approvalTimeout", "Approval timeout", "Seconds a call waits for a person's approval before it is denied"],
];
const SERVICE_TABS = [
  ["fetch.yml", "Fetch services"],
  ["search.yml", "Search services"],
];

export async function open(view) {
  const [known, files] = await Promise.all([defaults(), listFiles()]);
  const tabs = element("nav", "tabs");
  const panel = element("div", "tab-panel");
  view.body.append(tabs, panel);
  const show = async (label, opener) => {
    for (const tab of tabs.children) tab.classList.toggle("active", tab.textContent === label);
    panel.replaceChildren();
    delete panel.dataset.ready;
    try {
      await opener({ ...view, body: panel });
    } catch (error) {
      panel.replaceChildren(element("p", "notice error", `Could not open ${label}: ${error.message}`));
    }
    panel.dataset.ready = "1"; // read: what the person types from now on is theirs
  };
  const present = new Set(files.map((file) => file.name));
  if (present.has("hooks.yml")) view.body.append(await approvalsNote());
  const openers = [["Profiles", (target) => openProfiles(target, known.profile)]];
  for (const [name, label] of SERVICE_TABS) {
    if (present.has(name)) openers.push([label, async (target) => (await import("./services.js")).open(target, name)]);
  }
  for (const [label, opener] of openers) tabs.append(button(label, `Show ${label}`, () => show(label, opener), "tab"));
  await show("Profiles", openers[0][1]);
}

// The calls that wait for a person's approval (`ask:` in hooks.yml), for every profile of the project.
async function approvalsNote() {
  const file = new SettingsFile("hooks.yml");
  await file.load();
  const rules = ((file.file.data && file.file.data.ask) || []).map(String);
  const text = rules.length
    ? `Calls that wait for a person's approval (ask: in .miniroom/hooks.yml): ${rules.join(", ")}`
    : "No call waits for approval (no ask: rules in .miniroom/hooks.yml)";
  return element("p", "approvals-note muted", text);
}

async function openProfiles(view, known) {
  const file = new SettingsFile("miniagent.yml");
  const page = frame(view, ".miniroom/miniagent.yml");
  page.content.classList.add("entries");
  const invalid = new Set(); // "profile.field" of numbers that cannot be saved as typed
  const entries = new Entries(page.content, {
    noun: "profile",
    mask: new RegExp(known.nameMask),
    maskHint: "Lowercase letters, digits, - and _, starting with a letter or digit; it is the mini:name suffix",
    blank: () => ({}),
    form: (name, value, errors) => profileForm(name, value, errors, known, invalid),
    aside: defaultsSummary(known),
  });

  const load = async () => {
    await file.load();
    invalid.clear();
    const data = file.file.data;
    entries.problems = {};
    entries.set((data && data.profiles) || {});
    const broken = file.errors();
    const unreadable = `miniagent.yml has errors: ${problemLines(broken)}`;
    notice(page.top, broken.length ? "warning" : "info", broken.length ? unreadable : "");
  };
  const collect = () => {
    if (invalid.size || !entries.valid()) {
      notice(page.top, "error", "Fix the fields marked in red first.");
      return null;
    }
    return { data: { ...(file.file.data || {}), profiles: entries.entries } };
  };
  const saved = (result) => {
    entries.problems = {};
    entries.render();
    const warnings = problemLines(result.problems);
    notice(page.top, warnings ? "warning" : "info", `Saved .miniroom/miniagent.yml: ${result.applied}. ${warnings}`);
  };
  const refused = (problems) => {
    for (const name of Object.keys(entries.entries)) entries.problems[name] = problemsOf(problems, `profiles.${name}`);
    entries.render();
  };
  onSave(page, file, collect, saved, load, refused);
  page.cancel.onclick = () => view.close();
  await load();
}

function profileForm(name, value, errors, known, invalid) {
  const form = element("div", "profile-form");
  const defaultsOf = known.defaults;
  const toggles = element("div", "toggles");
  for (const [key, label] of [["loadClaudeMd", "Load CLAUDE.md"], ["loadAgentsMd", "Load AGENTS.md"]]) {
    const box = checkbox(value[key] ?? defaultsOf[key], label);
    box.input.addEventListener("change", () => {
      if (box.input.checked === defaultsOf[key]) delete value[key];
      else value[key] = box.input.checked;
    });
    toggles.append(box.row);
  }
  form.append(toggles, toolToggles(value, known), element("h4", "", "Limits"));
  const numbers = element("div", "numbers");
  for (const [key, label, hint] of NUMBERS) numbers.append(numberField(name, key, label, hint, value, errors, known, invalid));
  const levels = [["", "Default (the model name's level, else medium)"], ...known.thinkingLevels.map((level) => [level, level])];
  const level = field("Thinking level", select(levels, value.thinkingLevel ?? ""), "One level for every session of the profile");
  level.input.addEventListener("change", () => {
    if (level.input.value) value.thinkingLevel = level.input.value;
    else delete value.thinkingLevel;
  });
  form.append(numbers, level.row, promptEditor(value, known, errors));
  return form;
}

function numberField(name, key, label, hint, value, errors, known, invalid) {
  const fallback = known.defaults[key] ?? "the model's own";
  const parts = field(label, textInput(value[key] ?? "", fallback), `${hint}. Default: ${fallback}`);
  parts.input.inputMode = "numeric";
  parts.row.dataset.key = key;
  showError(parts, errors[key] || "");
  parts.input.addEventListener("input", () => {
    const text = parts.input.value.trim();
    const ok = !text || (WHOLE.test(text) && Number(text) > 0);
    showError(parts, ok ? "" : "Enter a whole number greater than zero, or leave it empty for the default");
    if (ok) invalid.delete(`${name}.${key}`);
    else invalid.add(`${name}.${key}`);
    if (ok && text) value[key] = Number(text);
    else if (ok) delete value[key];
  });
  return parts.row;
}

// The tool toggles edit `disabledTools` (an allowlist becomes the equivalent denylist when first toggled).
function toolToggles(value, known) {
  const box = element("fieldset", "tools");
  const readout = element("legend");
  const enabled = (tool) =>
    value.enabledTools ? value.enabledTools.includes(tool) : !(value.disabledTools || []).includes(tool);
  const effective = (tool) => enabled(tool) && (!known.toolRequires[tool] || enabled(known.toolRequires[tool]));
  const count = () => {
    const on = known.tools.filter(effective).length;
    readout.textContent = `${on} of ${known.tools.length} tools enabled`;
  };
  box.append(readout);
  for (const tool of known.tools) {
    const toggle = checkbox(enabled(tool), tool);
    toggle.input.dataset.tool = tool;
    toggle.input.addEventListener("change", () => {
      const off = known.tools.filter((name) => (name === tool ? !toggle.input.checked : !enabled(name)));
      delete value.enabledTools;
      if (off.length) value.disabledTools = off;
      else delete value.disabledTools;
      count();
    });
    box.append(toggle.row);
  }
  count();
  return box;
}

function promptEditor(value, known, errors) {
  const wrap = element("div", "prompt-editor");
  const text = element("textarea");
  text.rows = 6;
  text.value = value.systemPrompt ?? "";
  text.placeholder = "Empty: the built-in prompt";
  const parts = field("System prompt", text, "Replaces the built-in prompt; empty means built-in");
  showError(parts, errors.systemPrompt || "");
  text.addEventListener("input", () => {
    if (text.value.trim()) value.systemPrompt = text.value;
    else delete value.systemPrompt;
  });
  const reset = button("Reset to default", "Use the built-in prompt", () => {
    text.value = "";
    delete value.systemPrompt;
  }, "secondary");
  const preview = element("details", "builtin-prompt");
  preview.append(element("summary", "", "Built-in prompt"), element("pre", "", known.basePrompt));
  wrap.append(parts.row, reset, preview);
  return wrap;
}

function defaultsSummary(known) {
  const box = element("div", "defaults-summary");
  box.append(element("h4", "", "Built-in defaults"));
  const list = element("dl");
  for (const [key, label] of [["loadClaudeMd", "Load CLAUDE.md"], ["loadAgentsMd", "Load AGENTS.md"], ...NUMBERS]) {
    const shown = known.defaults[key];
    list.append(element("dt", "", label), element("dd", "", String(shown ?? "the model's own")));
  }
  list.append(element("dt", "", "Tools"), element("dd", "", `all ${known.tools.length}`));
  box.append(list);
  return box;
}
