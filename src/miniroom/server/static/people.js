// Who the page posts as: the local user ("You"), or a person named in the sidebar's "Posting as", so one
// browser can play several people in a room (and see the agents' rules for threads with two people). The
// choice and the names used are remembered in localStorage; every post, edit and reaction carries `as`, and the
// name as typed (`display_name`) when it is more than the short name: "Bob Builder" posts as @bob-builder.
import { $, element } from "./dom.js";
import { state } from "./model.js";

const CURRENT = "miniroomPostingAs";
const NAMES = "miniroomPeople";
const SHOWN = "miniroomPeopleShown"; // short name -> the name as typed, where they differ
const MAX_SHOWN = 64; // as the API's display_name
const NAME = /^[a-z0-9][a-z0-9._-]{0,31}$/;
const OTHER = "\u0000other"; // the option that asks for a new name
const LOCAL = { userId: document.body.dataset.userId, name: document.body.dataset.userName };
const SERVER = LOCAL.userId.slice(LOCAL.userId.indexOf(":") + 1);

let person = null; // the short name posted as, or null for the local user
let shown = null; // that person's name as typed, when it is more than the short name
let onSwitch = () => {};

// The fields a request adds to post as the chosen person: `as`, or nothing for the local user.
export function postingAs() {
  if (!person) return {};
  return shown ? { as: person, display_name: shown } : { as: person };
}

// The short name of a typed name: "Bob Builder" -> "bob-builder", "Jürgen" -> "jurgen".
function shortName(typed) {
  return typed
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/\s+/g, "-")
    .replace(/[^a-z0-9._-]/g, "")
    .replace(/^[._-]+/, "");
}

// Why a typed name cannot be posted as, or "": the account is its short name (the server's rule for "as").
function nameProblem(typed, name) {
  const rule = "an account name is made of the letters a to z, digits 0 to 9 and . _ - (accents are dropped)";
  if (!name) {
    return `"${typed}" has no letter a to z or digit 0 to 9; a name needs at least one, as ${rule}. ` +
      "Type it in Latin letters, e.g. Tokyo or Bob Builder.";
  }
  if (!NAME.test(name)) return `"${typed}" gives the account name "${name}", longer than 32 characters: type a shorter name.`;
  if (typed.length > MAX_SHOWN) return `A name has at most ${MAX_SHOWN} characters; this one has ${typed.length}.`;
  return "";
}

function shownNames() {
  try {
    const names = JSON.parse(localStorage.getItem(SHOWN) || "{}");
    return names && typeof names === "object" && !Array.isArray(names) ? names : {};
  } catch {
    return {};
  }
}

export function personId(name) {
  return `@${name}:${SERVER}`;
}

function remembered() {
  try {
    const names = JSON.parse(localStorage.getItem(NAMES) || "[]");
    return Array.isArray(names) ? names.filter((name) => typeof name === "string" && NAME.test(name)) : [];
  } catch {
    return [];
  }
}

function displayName(userId, fallback) {
  const member = state.room && state.room.members.find((m) => m.user_id === userId);
  return member ? member.display_name : fallback;
}

// The sidebar's line under the rooms: who posts now, by name and id.
export function showPerson() {
  const fallback = person ? shown || person.charAt(0).toUpperCase() + person.slice(1) : LOCAL.name;
  $("me-name").textContent = displayName(state.userId, fallback);
  $("me-id").textContent = state.userId;
}

function fillChoices() {
  const choice = $("posting-as");
  const option = (value, label) => {
    const node = element("option", "", label);
    node.value = value;
    return node;
  };
  choice.replaceChildren(
    option("", LOCAL.name),
    ...remembered().map((name) => option(name, shownNames()[name] || name)),
    option(OTHER, "Someone else…"),
  );
  choice.value = person || "";
}

function use(name, typed = null) {
  person = name || null;
  state.userId = person ? personId(person) : LOCAL.userId;
  const names = shownNames();
  if (person && typed !== null) {
    if (typed === person) delete names[person];
    else names[person] = typed;
    localStorage.setItem(SHOWN, JSON.stringify(names));
  }
  shown = person && typeof names[person] === "string" ? names[person] : null;
  if (person) {
    const names = remembered().filter((known) => known !== person);
    localStorage.setItem(NAMES, JSON.stringify([person, ...names].slice(0, 20)));
    localStorage.setItem(CURRENT, person);
  } else {
    localStorage.removeItem(CURRENT);
  }
  for (const known of remembered()) state.people.add(personId(known));
  fillChoices();
  showPerson();
}

function askForName(show) {
  const form = $("posting-as-other");
  form.hidden = !show;
  $("posting-as-error").hidden = true;
  if (show) {
    $("posting-as-name").value = "";
    $("posting-as-name").focus();
  }
}

// Wire the sidebar's control; `changed` runs after each switch (the page shows which messages are mine).
export function wirePeople(changed) {
  onSwitch = changed;
  const saved = localStorage.getItem(CURRENT);
  use(saved && NAME.test(saved) ? saved : null);
  $("posting-as").addEventListener("change", (event) => {
    if (event.target.value === OTHER) return askForName(true);
    askForName(false);
    use(event.target.value);
    onSwitch();
  });
  $("posting-as-other").addEventListener("submit", (event) => {
    event.preventDefault();
    const typed = $("posting-as-name").value.trim().replace(/\s+/g, " ");
    const name = shortName(typed);
    if (typed === "" || personId(name) === LOCAL.userId) {
      askForName(false);
      use(null);
      return onSwitch();
    }
    const problem = nameProblem(typed, name);
    if (problem) {
      $("posting-as-error").textContent = problem;
      $("posting-as-error").hidden = false;
      return;
    }
    askForName(false);
    use(name, NAME.test(typed) ? name : typed);
    onSwitch();
  });
  $("posting-as-name").addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    askForName(false);
    fillChoices();
  });
}
