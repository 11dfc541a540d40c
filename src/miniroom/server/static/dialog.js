// The frame every settings page shares: a notice line, the page's own body, and a footer with the file's
// location and Cancel / Save Changes. Conflicts and refusals are shown the same way everywhere.
import { button, element, notice } from "./dom.js";
import { Conflict, Invalid } from "./settings_api.js";
import { friendly } from "./api.js";

export function frame(view, location) {
  const top = element("div", "notice");
  top.hidden = true;
  const content = element("div", "page-body");
  const footer = element("footer", "page-footer");
  const save = button("Save Changes", "Save to the file", () => {}, "primary");
  const cancel = button("Cancel", "Close without saving", () => view.back(), "secondary");
  const where = element("span", "location muted");
  where.append("Config location: ", element("code", "", location));
  footer.append(where, cancel, save);
  view.body.append(top, content, footer);
  return { top, content, footer, save, cancel };
}

// Show why a save failed: an outside change (with Reload), the validators' refusal, or anything else.
export function showSaveError(page, error, fileName, reload) {
  if (error instanceof Conflict) {
    const again = button("Reload", `Load ${fileName} as it is now`, reload, "secondary");
    notice(page.top, "warning", `${fileName} changed outside this dialog. Your edits were not saved.`, again);
  } else if (error instanceof Invalid) {
    notice(page.top, "error", `Not saved: ${error.message}`);
  } else {
    notice(page.top, "error", friendly(error, `save ${fileName}`));
  }
}

// Wire Save: `collect` returns the change to send (or null when the form shows its own errors); `refused`
// gets the validators' problems, to show each beside its field.
export function onSave(page, file, collect, saved, reload, refused = () => {}) {
  page.save.onclick = async () => {
    const change = collect();
    if (!change) return;
    page.save.disabled = true;
    try {
      saved(await file.save(change));
    } catch (error) {
      showSaveError(page, error, file.name, reload);
      if (error instanceof Invalid) refused(error.problems);
    } finally {
      page.save.disabled = false;
    }
  };
}

// The problems a file has, as one line each, for a notice.
export function problemLines(problems) {
  return (problems || []).map((problem) => problem.text).join("\n");
}
