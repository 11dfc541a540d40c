// The settings hub behind the gear: cards in groups, each opening its page in the hub's body. Each page is
// a module loaded when first opened, so the chat itself loads none of them.
import { $, element } from "./dom.js";

const CARDS = [
  ["Configuration", "MiniAgent", "Profiles, fetch and search services", "./profiles.js", null],
  ["Configuration", "Retry", "The pause and the attempts for failed requests", "./retry.js", null, "Retry Settings"],
  ["Configuration", "Agents", "Who answers, where and with which model", "./config_pages.js", "agents"],
  ["Configuration", "Models", "Model names and their variables", "./config_pages.js", "models"],
  ["Configuration", "Rooms", "The rooms the agents live in", "./config_pages.js", "rooms"],
  ["Configuration", "Project settings", "Every settings file as text", "./project_files.js", null],
  ["Activity", "Usage", "Tokens and cost by agent, model and day", "./usage.js", null],
];

// What a page gets: its body to fill, and how to leave (`close` the hub, `back` to the cards).
function view(title) {
  $("settings-title").textContent = title;
  $("settings-back").hidden = false;
  const body = $("settings-body");
  body.replaceChildren();
  delete body.dataset.ready;
  return { body, close: closeHub, back: showCards };
}

function showCards() {
  $("settings-title").textContent = "Settings";
  $("settings-back").hidden = true;
  const groups = new Map();
  for (const [group, title, text, module, page, heading] of CARDS) {
    if (!groups.has(group)) groups.set(group, element("div", "cards"));
    const card = element("button", "card");
    card.type = "button";
    card.append(element("strong", "", title), element("span", "muted", text));
    card.addEventListener("click", () => openPage(heading || title, module, page));
    groups.get(group).append(card);
  }
  $("settings-body").replaceChildren(
    ...[...groups].flatMap(([group, cards]) => [element("h3", "group", group), cards]),
  );
}

// `page` tells a module that serves several pages which one (config_pages.js).
export async function openPage(title, module, page) {
  const target = view(title);
  try {
    const loaded = await import(module);
    await loaded.open(target, page);
    target.body.dataset.ready = "1"; // the page shows what it read: edits from now on are the person's
  } catch (error) {
    target.body.replaceChildren(element("p", "notice error", `Could not open ${title}: ${error.message}`));
  }
}

// The hub's styles load with its first opening: the chat alone needs none of them.
let styles = null;
function hubStyles() {
  styles ||= new Promise((resolve) => {
    const link = element("link");
    link.rel = "stylesheet";
    link.href = "/static/settings.css";
    link.onload = link.onerror = resolve;
    document.head.append(link);
  });
  return styles;
}

export async function openHub() {
  await hubStyles();
  $("settings").hidden = false;
  showCards();
  $("settings-close").focus();
}

export function closeHub() {
  $("settings").hidden = true;
  $("settings-body").replaceChildren();
}

export function wireHub() {
  $("settings-open").addEventListener("click", openHub);
  $("settings-close").addEventListener("click", closeHub);
  $("settings-back").addEventListener("click", showCards);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !$("settings").hidden) closeHub();
  });
}
