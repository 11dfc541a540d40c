// Retry Settings: the pause before a retry and the attempts in all, in `.miniroom/retry.yml`. An empty field
// means the default; a broken file shows the defaults and is replaced by the next save.
import { field, notice, showError, textInput, toast } from "./dom.js";
import { frame, onSave, problemLines } from "./dialog.js";
import { SettingsFile, defaults } from "./settings_api.js";

const WHOLE = /^\d+$/;
const FIELDS = [
  ["retryIntervalSeconds", "Retry interval", "Seconds to wait before retrying a failed request"],
  ["maxAttempts", "Max attempts", "Requests in all, the first included, before the error fails the chat"],
];

export async function open(view) {
  const known = (await defaults()).retry;
  const file = new SettingsFile("retry.yml");
  const page = frame(view, known.location);
  const inputs = {};
  page.content.classList.add("retry-fields");
  for (const [key, label, hint] of FIELDS) {
    inputs[key] = field(label, textInput("", known.defaults[key]), `${hint}. Default: ${known.defaults[key]}`);
    inputs[key].input.inputMode = "numeric";
    page.content.append(inputs[key].row);
  }

  const load = async () => {
    await file.load();
    const broken = file.errors();
    const values = broken.length ? {} : file.file.data || {};
    for (const [key] of FIELDS) {
      inputs[key].input.value = values[key] ?? "";
      showError(inputs[key], "");
    }
    const why = `retry.yml is not valid (${problemLines(broken)}), so the defaults apply. Saving replaces the broken file.`;
    notice(page.top, "warning", broken.length ? why : "");
  };

  const collect = () => {
    const data = {};
    let ok = true;
    for (const [key] of FIELDS) {
      const text = inputs[key].input.value.trim();
      const valid = !text || (WHOLE.test(text) && Number(text) > 0);
      showError(inputs[key], valid ? "" : "Enter a whole number greater than zero, or leave it empty for the default");
      ok = ok && valid;
      if (text && valid) data[key] = Number(text);
    }
    return ok ? { data } : null;
  };

  const saved = () => {
    toast("Retry settings saved");
    view.back();
  };
  const refused = (problems) => {
    for (const problem of problems) if (inputs[problem.key]) showError(inputs[problem.key], problem.message);
  };
  onSave(page, file, collect, saved, load, refused);
  await load();
}
