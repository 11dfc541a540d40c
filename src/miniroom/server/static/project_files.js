// Project settings: every `.miniroom/` file and config.yaml as text, saved through the same validation as
// the forms. Secrets show masked (a masked value saved as it is keeps the secret saved at its place) unless
// shown, which needs the API token.
import { friendly } from "./api.js";
import { button, element, notice, toast } from "./dom.js";
import { frame, onSave, problemLines } from "./dialog.js";
import { SettingsFile, listFiles } from "./settings_api.js";

export async function open(view) {
  const files = await listFiles();
  const tabs = element("nav", "tabs file-tabs");
  const panel = element("div", "tab-panel");
  view.body.append(tabs, panel);
  const show = async (name) => {
    for (const tab of tabs.children) tab.classList.toggle("active", tab.dataset.name === name);
    panel.replaceChildren();
    delete panel.dataset.ready;
    await openFile({ ...view, body: panel }, files.find((file) => file.name === name));
    panel.dataset.ready = "1"; // read: what the person types from now on is theirs
  };
  for (const file of files) {
    const tab = button(file.name, file.location, () => show(file.name), "tab");
    tab.dataset.name = file.name;
    if (!file.exists) tab.classList.add("missing");
    tabs.append(tab);
  }
  await show(files[0].name);
}

async function openFile(view, listed) {
  const file = new SettingsFile(listed.name);
  const page = frame(view, listed.location);
  const editor = element("textarea", "file-text");
  editor.spellcheck = false;
  editor.rows = 22;
  editor.setAttribute("aria-label", listed.location);
  const problems = element("ul", "problems");
  const showSecrets = async () => {
    try {
      await load(true);
    } catch (error) {
      notice(page.top, "error", friendly(error, "show the secrets"));
    }
  };
  const reveal = button("Show secrets", "Show keys and passwords as saved (needs the API token)", showSecrets, "secondary");
  page.content.append(editor, problems);
  page.footer.prepend(reveal);

  const showProblems = (list) => {
    problems.replaceChildren(...(list || []).map((problem) => element("li", problem.severity, problem.text)));
  };
  const load = async (revealed = false) => {
    await file.load(revealed);
    editor.value = file.file.text;
    showProblems(file.file.problems);
    const secrets = file.file.masked ? `${file.file.masked} secret value(s) show masked; saved masked, they keep their value.` : "";
    notice(page.top, "info", file.file.exists ? secrets : `${listed.location} does not exist yet; saving creates it.`);
  };
  const saved = (result) => {
    showProblems(result.problems);
    notice(page.top, "info", `Saved ${listed.location}: ${result.applied}. ${problemLines(result.problems)}`);
    toast(`${listed.name} saved`);
    if (listed.name === "config.yaml") document.dispatchEvent(new CustomEvent("miniroom:rooms-changed"));
  };
  onSave(page, file, () => ({ text: editor.value }), saved, () => load(false), showProblems);
  page.cancel.onclick = () => view.close();
  await load();
}
