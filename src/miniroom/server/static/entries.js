// A mapping of named entries (profiles, agents, models, rooms) edited as a list beside the selected entry's
// form, with New, rename and Delete. The working copy is a plain object in file order; a rename keeps the
// entry's place. Nothing is written until the page saves the whole file.
import { button, element, field, showError, textInput } from "./dom.js";

export class Entries {
  // options: noun ("profile"), mask (RegExp), maskHint, blank() -> a new entry's value,
  // form(name, value, errors) -> the entry's form (it edits `value` in place), renamed(old, new), aside.
  constructor(container, options) {
    this.options = options;
    this.entries = {};
    this.selected = null;
    this.problems = {}; // entry name -> {field: message}, from the validators
    this.list = element("ul", "entry-list");
    this.editor = element("div", "entry-editor");
    const side = element("div", "entry-side");
    const add = button(`New ${options.noun}`, `Add a ${options.noun}`, () => this.add(), "secondary new-entry");
    side.append(this.list, add);
    if (options.aside) side.append(options.aside);
    container.append(side, this.editor);
  }

  set(entries) {
    this.entries = { ...(entries || {}) };
    if (!(this.selected in this.entries)) this.selected = Object.keys(this.entries)[0] ?? null;
    this.render();
  }

  select(name) {
    this.selected = name;
    this.render();
  }

  add() {
    let name = `new-${this.options.noun}`;
    for (let n = 2; name in this.entries; n += 1) name = `new-${this.options.noun}-${n}`;
    this.entries[name] = this.options.blank();
    this.select(name);
    const input = this.editor.querySelector(".entry-name input");
    input.focus();
    input.select();
  }

  // The name's problem, or "" when it can be used.
  nameProblem(name, old) {
    if (!this.options.mask.test(name)) return this.options.maskHint;
    if (name !== old && name in this.entries) return `There is already a ${this.options.noun} named ${name}`;
    return "";
  }

  rename(old, name) {
    this.entries = Object.fromEntries(
      Object.entries(this.entries).map(([key, value]) => [key === old ? name : key, value]),
    );
    if (this.problems[old]) this.problems[name] = this.problems[old];
    this.selected = name;
    if (this.options.renamed) this.options.renamed(old, name);
    // Only the list is drawn again: the form stays in place, so a click that moved focus out of the name
    // (into Display name, onto a checkbox) lands, and what is typed next goes where it was aimed.
    this.renderList();
  }

  remove(name) {
    delete this.entries[name];
    this.selected = Object.keys(this.entries)[0] ?? null;
    this.render();
  }

  // Whether every name follows the rules; marks the first one that does not.
  valid() {
    const input = this.editor.querySelector(".entry-name input");
    return !input || !input.classList.contains("invalid");
  }

  render() {
    this.renderList();
    this.editor.replaceChildren();
    if (this.selected === null) {
      this.editor.append(element("p", "muted", `No ${this.options.noun}s yet: add one with New ${this.options.noun}.`));
      return;
    }
    this.editor.append(this.nameRow(), this.options.form(this.selected, this.entries[this.selected], this.problems[this.selected] || {}));
  }

  renderList() {
    this.list.replaceChildren(
      ...Object.keys(this.entries).map((name) => {
        const item = element("li");
        const pick = button(name, `Edit ${name}`, () => this.select(name), "entry");
        pick.classList.toggle("active", name === this.selected);
        if (this.problems[name] && Object.keys(this.problems[name]).length) pick.classList.add("has-problem");
        item.append(pick);
        return item;
      }),
    );
  }

  // The selected entry's name, which a rename changes under the same row (`this.selected` follows it).
  nameRow() {
    const parts = field("Name", textInput(this.selected), this.options.maskHint);
    parts.row.classList.add("entry-name");
    const remove = button(`Delete ${this.options.noun}`, `Delete ${this.selected}`, () => this.remove(this.selected), "danger");
    parts.input.addEventListener("change", () => {
      const name = this.selected;
      const wanted = parts.input.value.trim();
      const problem = wanted === name ? "" : this.nameProblem(wanted, name);
      showError(parts, problem);
      if (problem || wanted === name) return;
      this.rename(name, wanted);
      remove.title = `Delete ${wanted}`;
    });
    const row = element("div", "entry-head");
    row.append(parts.row, remove);
    return row;
  }
}
