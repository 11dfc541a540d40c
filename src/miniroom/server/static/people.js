// Who the page posts as: the local user ("You"), or a person named in the sidebar's "Posting as", so one
// browser can play several people in a room (and see the agents' rules for threads with two people). The
// choice and the names used are remembered in localStorage; every post, edit and reaction carries `as`.
import { $, element } from "./dom.js";
import { state } from "./model.js";

const CURRENT = "miniroomPostingAs";
const NAMES = "miniroomPeople";
const NAME = /^[a-z0-9][a-z0-9._-]{0,31}$/;
const OTHER = "\u0000other"; // the option that asks for a new name
const LOCAL = { userId: document.body.dataset.userId, name: document.body.dataset.userName };
const SERVER = LOCAL.userId.slice(LOCAL.userId.indexOf(":") + 1);

let person = null; // the short name posted as, or null for the local user
let onSwitch = () => {};

// The fields a request adds to post as the chosen person: `as`, or nothing for the local user.
export function postingAs() {
  return person ? { as: person } : {};
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
  const fallback = person ? person.charAt(0).toUpperCase() + person.slice(1) : LOCAL.name;
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
    ...remembered().map((name) => option(name, name)),
    option(OTHER, "Someone else…"),
  );
  choice.value = person || "";
}

function use(name) {
  person = name || null;
  state.userId = person ? personId(person) : LOCAL.userId;
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
    const name = $("posting-as-name").value.trim().toLowerCase();
    if (name === "" || personId(name) === LOCAL.userId) {
      askForName(false);
      use(null);
      return onSwitch();
    }
    if (!NAME.test(name)) {
      $("posting-as-error").textContent =
        'Use 1 to 32 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit.';
      $("posting-as-error").hidden = false;
      return;
    }
    askForName(false);
    use(name);
    onSwitch();
  });
  $("posting-as-name").addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    askForName(false);
    fillChoices();
  });
}
