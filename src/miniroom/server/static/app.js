// miniroom web chat: rooms, timeline, threads, streaming edits, reactions and redactions over the embedded
// rooms API, shown from the model in model.js. Message text reaches the page only as sanitised Markdown
// (render.js) or as textContent.
import { api, carriedReads, endEarlyReads, friendly, token } from "./api.js";
import { bindActions, newTxnId, roomPath, send, startEdit, toggleReaction, wireComposer } from "./actions.js";
import { showAttachment, wireAttachments } from "./attachments.js";
import { toolCard, wireCompactToggle } from "./cards.js";
import { $, button, element, keepingEnds, showStatus } from "./dom.js";
import { exportThread } from "./export.js";
import { formWidget, refusal, whoMayAnswer } from "./forms.js";
import { wireHub } from "./hub.js";
import {
  ROOM_LEVEL,
  addReaction,
  applyEdit,
  deleteMessage,
  enterRoom,
  failedTurn,
  followTurn,
  fromAgent,
  myReaction,
  position,
  redacted,
  relation,
  removeReaction,
  spend,
  state,
  track,
} from "./model.js";
import { wireNarrow } from "./narrow.js";
import { showPerson, wirePeople } from "./people.js";
import { renderBody } from "./render.js";

// Each reaction's words, for a screen reader and for a browser without an emoji font.
const REACTIONS = { "👍": "thumbs up", "❤️": "heart", "😄": "smile", "🎉": "party", "👀": "eyes" };
// Written by hand, not by Intl.NumberFormat: a page's first formatter costs the browser tens of milliseconds
// to make (its locale data), more than drawing a screen of messages. Same text: 1234567 -> "1,234,567".
function groupDigits(count) {
  return String(Math.round(count)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
const EMPTY_ROOM = "No messages yet — write one below; mention an agent with @name to ask it.";
const PAGE_SIZE = 200; // boot.js reads the first page with the same size, and first_reads.py carries it

// --- Messages --------------------------------------------------------------------------------------

function setErrorLabel(label, turn) {
  label.hidden = !turn;
  label.title = turn ? turn.error || "The agent's turn failed" : "";
}

function showSpend(label, conversation) {
  const { cost, tokens } = spend(conversation);
  label.hidden = !tokens;
  label.textContent = `$${cost.toFixed(4)} · ${groupDigits(tokens)} tokens`;
  label.title = "What the agents' replies here have spent, failed attempts included";
}

// The error labels and spend of the open room and thread.
function showErrorLabels() {
  setErrorLabel($("room-error"), failedTurn(ROOM_LEVEL));
  setErrorLabel($("thread-error"), state.threadRoot ? failedTurn(state.threadRoot) : null);
  showSpend($("room-spend"), ROOM_LEVEL);
  if (state.threadRoot) showSpend($("thread-spend"), state.threadRoot);
}

function senderName(userId) {
  const member = state.room && state.room.members.find((m) => m.user_id === userId);
  if (!member) reloadMembers(userId);
  return member ? member.display_name : userId;
}

// A sender the open room's members do not list yet (a person's first post): read the members again, once
// per sender, and show the names they give.
const askedFor = new Set();
function reloadMembers(userId) {
  const room = state.room;
  if (!room || askedFor.has(userId)) return;
  askedFor.add(userId);
  loadRooms()
    .then(() => {
      const fresh = state.rooms.get(room.room_id);
      if (state.room !== room || !fresh) return;
      room.members = fresh.members;
      state.rooms.set(room.room_id, room);
      showRoomHeader(room);
      for (const view of document.querySelectorAll(".message[data-event-id]")) {
        const message = state.messages.get(view.dataset.eventId);
        if (message) view.querySelector(".sender").textContent = senderName(message.event.sender);
      }
      showPerson();
    })
    .catch(() => {});
}

// The clock of the messages' times, made once the room is first shown: the first clock of a page costs more than
// drawing a screen of messages (the browser loads its locale's data), and a time may follow its message by a frame.
let clock = null;

function showTime(label) {
  label.textContent = clock.format(new Date(label.dateTime));
}

function startClock() {
  clock = new Intl.DateTimeFormat([], { hour: "2-digit", minute: "2-digit" });
  for (const label of document.querySelectorAll(".message > .meta > time")) showTime(label);
}

function errorLabel() {
  const label = element("span", "label error", "error");
  label.hidden = true;
  return label;
}

function renderMessage(message, inThread) {
  const item = element("li", "message");
  item.tabIndex = 0; // reachable by Tab: its toolbar shows while it (or a button in it) has the focus
  item.dataset.eventId = message.event.event_id;
  if (message.event.sender === state.userId) item.classList.add("mine");
  const meta = element("div", "meta");
  meta.append(element("span", "sender", senderName(message.event.sender)));
  const time = element("time", "muted");
  time.dateTime = new Date(message.event.origin_server_ts).toISOString();
  if (clock) showTime(time);
  meta.append(time);
  meta.append(element("span", "spend muted"));
  item.append(meta, element("div", "body"), element("div", "reactions"), actions(message, inThread));
  if (!inThread) {
    const thread = element("div", "thread-summary");
    thread.append(element("button", "thread-link"), element("span", "writing muted"), errorLabel());
    item.append(thread);
  }
  message.views.push(item);
  refresh(message);
  return item;
}

function actions(message, inThread) {
  const bar = element("div", "actions");
  for (const [key, words] of Object.entries(REACTIONS)) {
    const react = button(key, `React ${key}: ${words}`, () => toggleReaction(message, key));
    react.setAttribute("aria-label", `React with ${words}`);
    bar.append(react);
  }
  if (!inThread) bar.append(button("Reply in thread", "Open the thread", () => openThread(message.event.event_id)));
  if (message.event.sender === state.userId) {
    bar.append(button("Edit", "Edit your message", (event) => startEdit(message, event.target.closest(".message"))));
  }
  return bar;
}

// How a reply draws its tool calls (as cards) and its forms (answered in its own conversation).
function bodyHooks(message) {
  const eventId = message.event.event_id;
  const submit = async (text) => {
    try {
      await send(text, message.threadRoot, newTxnId());
      return true;
    } catch (error) {
      showStatus(friendly(error, "send the answer"));
      return false;
    }
  };
  return {
    tool: (segment) => toolCard(state.room.room_id, eventId, segment.tool, segment.text),
    form: (segment) => formWidget(eventId, segment.index, segment.form, submit, refusal(segment.form)),
    who: whoMayAnswer,
  };
}

function refresh(message) {
  message.views = message.views.filter((view) => view.isConnected || !view.dataset.rendered);
  for (const view of message.views) {
    view.dataset.rendered = "1";
    if (!view.querySelector(".editor")) {
      const hooks = fromAgent(message) ? bodyHooks(message) : {};
      renderBody(view.querySelector(".body"), message.body, message.turn, fromAgent(message), hooks);
      if (message.body !== undefined) showAttachment(view.querySelector(".body"), message.event);
    }
    const usage = message.turn && message.turn.usage;
    view.querySelector(".spend").textContent = usage ? `$${(Number(usage.cost && usage.cost.total) || 0).toFixed(4)}` : "";
    view.classList.toggle("edited", message.edited);
    view.classList.toggle("streaming", message.streaming);
    view.classList.toggle("deleted", message.body === undefined);
    view.querySelector(".reactions").replaceChildren(...chips(message), ...stopButton(message));
    const link = view.querySelector(".thread-link");
    if (link) {
      link.textContent = `${message.replies} ${message.replies === 1 ? "reply" : "replies"}`;
      link.onclick = () => openThread(message.event.event_id);
      // The answer goes into the thread: the room shows that it is being thought over or written, without
      // opening it (before its first reply, the summary shows only that).
      const newest = state.newest.get(message.event.event_id);
      const streaming = newest && newest.streaming;
      const writing = streaming ? `${senderName(newest.event.sender)} is writing…` : thinking(message.event.event_id);
      link.hidden = message.replies === 0;
      link.parentElement.hidden = message.replies === 0 && !writing;
      view.querySelector(".thread-summary .writing").textContent = writing;
      setErrorLabel(view.querySelector(".thread-summary .error"), failedTurn(message.event.event_id));
    }
  }
}

// --- Who is thinking ---------------------------------------------------------------------------------
// An agent shows from the start of its turn until its reply appears: the stream's `m.typing` events say who,
// and where each writes (a thread root, or null for the room itself).
const typingByRoom = new Map(); // room id -> Map(user id -> [thread root or null])

// "Helper is thinking…" for those of the open room who will write at `where` (a thread root, or null).
function thinking(where) {
  const typists = (state.room && typingByRoom.get(state.room.room_id)) || new Map();
  const names = [...typists].filter(([, places]) => places.includes(where)).map(([user]) => senderName(user));
  return names.length ? `${names.join(", ")} ${names.length === 1 ? "is" : "are"} thinking…` : "";
}

function receiveTyping(event) {
  const before = typingByRoom.get(event.room_id) || new Map();
  const places = event.content["io.miniroom.threads"] || {};
  const typists = new Map((event.content.user_ids || []).map((user) => [user, places[user] || [null]]));
  typingByRoom.set(event.room_id, typists);
  if (state.room && event.room_id === state.room.room_id) showThinking([before, typists]);
}

// A reply has appeared: its sender no longer thinks there (the stream says so too, a moment later).
function replied(message) {
  const typists = state.room && typingByRoom.get(state.room.room_id);
  const places = typists && typists.get(message.event.sender);
  const where = message.threadRoot || null;
  if (!places || !places.includes(where)) return;
  typists.set(message.event.sender, places.filter((place) => place !== where));
  showThinking([new Map([[message.event.sender, [where]]])]);
}

// The lines under the room's and the open thread's timelines, and the summaries of the threads in `changed`
// (maps of typists whose threads to show again).
function showThinking(changed = []) {
  $("room-typing").textContent = thinking(null);
  $("thread-typing").textContent = state.threadRoot ? thinking(state.threadRoot) : "";
  for (const root of new Set(changed.flatMap((typists) => [...typists.values()].flat()))) {
    const message = root && state.messages.get(root);
    if (message) refresh(message);
  }
}

// A reply being written can be stopped: the button puts a stop sign on it, which miniroom obeys when it
// comes from the person who asked or a room admin (a Matrix user reacts with 🛑 the same way).
const STOP_SIGN = "🛑";
function stopButton(message) {
  if (!fromAgent(message) || !message.streaming || myReaction(message, STOP_SIGN)) return [];
  const stop = button("Stop", "Stop this reply: its request ends and its commands are killed", () =>
    toggleReaction(message, STOP_SIGN),
  );
  stop.className = "chip stop-reply";
  return [stop];
}

function chips(message) {
  return [...message.reactions].map(([key, senders]) => {
    const mine = [...senders.values()].includes(state.userId);
    const names = [...senders.values()].map(senderName).join(", ");
    const chip = button(`${key} ${senders.size}`, mine ? `${names}; click to remove yours` : names, () =>
      toggleReaction(message, key),
    );
    chip.setAttribute("aria-label", `${REACTIONS[key] || key}: ${senders.size}, from ${names}`);
    chip.className = mine ? "chip mine" : "chip";
    chip.setAttribute("aria-pressed", String(mine));
    return chip;
  });
}

// Refresh a message and what shows its conversation's state: its thread's root and the error labels.
function refreshConversation(message) {
  refresh(message);
  const root = message.threadRoot && state.messages.get(message.threadRoot);
  if (root) refresh(root);
  showErrorLabels();
}

// A new message follows the timeline's end if the person was reading there. A page of events is appended
// without measuring (each measure would lay the page out again): its loader scrolls once at the end.
function append(list, item, fromPage) {
  if (fromPage) list.append(item);
  else keepingEnds([list], () => list.append(item));
}

// Apply one event of the open room: from its page (with edits, reactions and reply counts bundled), from
// the stream (each event once, as its position is past the page's), or as the answer to a post. Applying
// the same event twice changes nothing.
function receive(event, fromPage) {
  if (event.type === "m.reaction") return receiveReaction(event);
  if (event.type === "m.room.redaction") return receiveRedaction(event);
  if (event.type !== "m.room.message" || state.messages.has(event.event_id)) return;
  if (relation(event).rel_type === "m.replace") return receiveEdit(event, fromPage);
  const message = track(event);
  if (!fromPage) replied(message);
  if (message.threadRoot) {
    const root = state.messages.get(message.threadRoot);
    if (root && !fromPage) root.replies += 1;
    if (state.threadRoot === message.threadRoot) append($("thread-timeline"), renderMessage(message, true), fromPage);
  } else if (state.unshown) {
    state.unshown.push(message); // a page being opened: drawn together once all of it is read
  } else {
    append($("timeline"), renderMessage(message, false), fromPage);
  }
  if (fromPage) refresh(state.messages.get(message.threadRoot) || message);
  else refreshConversation(message); // a page's loader shows the labels and spend once, at its end
}

function receiveEdit(event, fromPage) {
  const target = state.messages.get(relation(event).event_id);
  if (!target || redacted(event)) return;
  const show = () => {
    applyEdit(target, event);
    if (event.sender === target.event.sender) followTurn(target, !fromPage, refresh);
    refreshConversation(target);
  };
  if (fromPage) show(); // a page's loader scrolls once, at its end
  else keepingEnds([$("timeline"), $("thread-timeline")], show); // a reply growing as it streams
}

function receiveReaction(event) {
  const target = state.messages.get(relation(event).event_id);
  if (!target || redacted(event)) return;
  addReaction(target, relation(event).key, event.event_id, event.sender);
  refresh(target);
}

// A redaction removes a reaction, or deletes a message's text.
function receiveRedaction(event) {
  const reactedTo = removeReaction(event.content.redacts);
  if (reactedTo) return refresh(reactedTo);
  const message = state.messages.get(event.content.redacts);
  if (!message) return;
  deleteMessage(message);
  refreshConversation(message);
}

// --- Rooms and threads -----------------------------------------------------------------------------

function renderRooms() {
  const list = $("room-list");
  list.replaceChildren();
  for (const room of state.rooms.values()) {
    const item = element("li");
    const link = element("a", "room-link", room.name);
    link.href = `?room=${encodeURIComponent(room.key)}`;
    link.dataset.roomId = room.room_id;
    link.classList.toggle("active", state.room && state.room.room_id === room.room_id);
    link.addEventListener("click", (event) => {
      event.preventDefault();
      openRoom(room).catch((error) => showStatus(friendly(error, `open ${room.name}`)));
    });
    item.append(link);
    list.append(item);
  }
}

// A room renamed while the page is open (its display_name in config.yaml changed): its link and header follow.
function receiveRoomName(event) {
  const room = state.rooms.get(event.room_id);
  if (!room || typeof event.content.name !== "string") return;
  room.name = event.content.name;
  renderRooms();
  if (state.room && state.room.room_id === room.room_id) showRoomHeader(room);
}

function showRoomHeader(room) {
  $("room-name").textContent = room.name;
  $("composer-input").placeholder = `Message ${room.name} (Enter sends, Shift+Enter adds a line)`;
  $("room-topic").textContent = `${room.alias} · ${room.members.length} members`;
}

// Open `room`; `firstPage` is its newest events when they were asked for already (at start).
async function openRoom(room, firstPage = null) {
  enterRoom(room);
  closeThread(); // and the address names the room alone
  showRoomHeader(room);
  showPerson();
  $("timeline").replaceChildren();
  delete $("timeline").dataset.hint; // not while its page is read
  showErrorLabels();
  showThinking();
  renderRooms();
  state.pending = [];
  const page = await (firstPage || api(roomPath(`/events?bundled=true&limit=${PAGE_SIZE}`)));
  if (state.room !== room) return;
  // The page's messages are read first (edits, reactions and replies applied to them), then drawn once each.
  state.unshown = [];
  try {
    for (const event of page.events) receive(event, true);
  } finally {
    showPage(room, state.unshown);
    state.unshown = null;
  }
  showErrorLabels();
  $("timeline").dataset.hint = EMPTY_ROOM; // shown while the timeline has no message
  state.roomLatest = page.latest;
  const pending = state.pending;
  state.pending = null;
  for (const event of pending) fromStream(event);
  $("timeline").scrollTop = $("timeline").scrollHeight;
  for (const control of $("composer").elements) control.disabled = false;
  $("composer-input").focus();
}

// The open room drawn again (who posts has changed), with the thread that was open kept open.
async function showAgain() {
  const thread = state.threadRoot;
  await openRoom(state.room);
  if (thread) await openThread(thread);
}

// A page's messages are drawn the newest first: before the room is shown, until they fill its timeline; the
// older ones after, above them, a few at a time in the browser's idle moments, the reader's place in the
// timeline kept. Each run of idle drawing is short, so a click or a key never waits long behind it.
const FIRST_CHUNK = 4;
const IDLE_RUN_MS = 5;

function showPage(room, messages) {
  const list = $("timeline");
  let older = messages;
  let anchor = null; // the oldest message drawn so far
  const draw = (count, opening = false) => {
    const chunk = document.createDocumentFragment();
    for (const message of older.slice(-count)) {
      const item = renderMessage(message, false);
      if (opening) item.dataset.opening = "1";
      chunk.append(item);
    }
    older = older.slice(0, -count);
    const first = chunk.firstChild;
    list.insertBefore(chunk, anchor);
    anchor = first;
  };
  draw(FIRST_CHUNK, true);
  // Until the timeline overflows: its scrollHeight is never below its own height.
  while (older.length && list.scrollHeight <= list.clientHeight) draw(FIRST_CHUNK, true);
  const later = window.requestIdleCallback || ((callback) => setTimeout(callback, 0));
  const drawOlder = () => {
    if (state.room !== room || !older.length || !anchor || !anchor.isConnected) return;
    const fromBottom = list.scrollHeight - list.scrollTop;
    const started = performance.now();
    do draw(1);
    while (older.length && performance.now() - started < IDLE_RUN_MS);
    list.scrollTop = list.scrollHeight - fromBottom;
    if (older.length) later(drawOlder, { timeout: 100 });
  };
  // The older ones start after the first frame has shown the newest.
  if (older.length) requestAnimationFrame(() => setTimeout(() => later(drawOlder, { timeout: 100 }), 0));
}

// The address names the open room and thread, so that a reload (in the middle of a reply, say) reopens both.
function showAddress() {
  const thread = state.threadRoot ? `&thread=${encodeURIComponent(state.threadRoot)}` : "";
  history.replaceState(null, "", `?room=${encodeURIComponent(state.room.key)}${thread}`);
}

async function openThread(rootId) {
  state.threadRoot = rootId;
  showAddress();
  $("thread").hidden = false;
  showErrorLabels();
  const list = $("thread-timeline");
  list.replaceChildren();
  let page;
  try {
    page = await api(roomPath(`/events?bundled=true&limit=500&thread=${encodeURIComponent(rootId)}`));
  } catch (error) {
    return showStatus(friendly(error, "open the thread"));
  }
  if (state.threadRoot !== rootId) return; // another thread was opened meanwhile
  const views = page.events.map((event) => renderMessage(state.messages.get(event.event_id) || track(event), true));
  // Replies the stream delivered while the page was loading are already shown: keep them, once, after it.
  const onPage = new Set(page.events.map((event) => event.event_id));
  const arrived = [...list.children].filter((item) => !onPage.has(item.dataset.eventId));
  list.replaceChildren(...views, ...arrived);
  list.scrollTop = list.scrollHeight;
  showErrorLabels();
  showThinking();
  $("thread-input").focus();
}

// A matrix.to link to an event of the open room (a subagent's thread from its parent's tool line, or the
// parent's reply from the subagent's thread) opens the thread of that event here instead of leaving the page.
const PERMALINK = /^https:\/\/matrix\.to\/#\/([^/?]+)\/([^/?]+)/;

function openPermalink(event) {
  const link = event.target.closest && event.target.closest("a[href]");
  const match = link && PERMALINK.exec(link.getAttribute("href"));
  if (!match || !state.room || decodeURIComponent(match[1]) !== state.room.room_id) return;
  event.preventDefault();
  const target = state.messages.get(decodeURIComponent(match[2]));
  openThread((target && target.threadRoot) || decodeURIComponent(match[2]));
}

function closeThread() {
  state.threadRoot = null;
  $("thread").hidden = true;
  if (state.room) showAddress();
}

function fromStream(event) {
  if (position(event) <= state.roomLatest) return;
  state.roomLatest = position(event);
  receive(event, false);
}

function connectStream() {
  const params = new URLSearchParams({ after: String(state.latest) });
  const secret = token();
  if (secret) params.set("access_token", secret);
  // EventSource resends the last `id:` as Last-Event-ID when it reconnects, so nothing is missed.
  state.stream = new EventSource(`/api/stream?${params}`);
  state.stream.onmessage = (message) => {
    const event = JSON.parse(message.data);
    if (event.type === "m.room.name") return receiveRoomName(event); // any room's link follows
    if (event.type === "m.typing") return receiveTyping(event); // of any room, for when it opens
    if (!state.room || event.room_id !== state.room.room_id) return;
    if (state.pending) state.pending.push(event);
    else fromStream(event);
  };
  state.stream.onerror = () => showStatus("Connection lost; reconnecting…");
  state.stream.onopen = () => {
    showStatus("");
    // A stream tells every room's typists first: those of an earlier stream are old news.
    const before = [...typingByRoom.values()];
    typingByRoom.clear();
    showThinking(before);
  };
}

async function loadRooms() {
  return showRooms(await api("/api/rooms"));
}

function showRooms(data) {
  for (const room of data.rooms) state.rooms.set(room.room_id, room);
  renderRooms();
  return data;
}

// The list of rooms and the first page of the room the address asks for ({rooms, page}; page null if not
// read): carried by the page when it may carry them, else read (boot.js has started the same reads).
async function firstReads(wanted) {
  const carried = carriedReads();
  endEarlyReads();
  if (carried) return carried;
  const path = `/api/rooms/${encodeURIComponent(wanted)}/events?bundled=true&limit=${PAGE_SIZE}`;
  const [rooms, page] = await Promise.all([api("/api/rooms"), wanted ? api(path).catch(() => null) : null]);
  return { rooms, page };
}

async function start() {
  document.addEventListener("click", openPermalink);
  bindActions({ receive, refresh });
  // After a switch of who posts, the room is shown again: which messages are mine (to edit) has changed.
  wirePeople(() => state.room && showAgain().catch((error) => showStatus(friendly(error, "show the room"))));
  wireHub();
  wireNarrow();
  wireCompactToggle($("compact-toggle"));
  document.addEventListener("miniroom:rooms-changed", () => loadRooms().catch(() => {}));
  wireComposer($("composer"), $("composer-input"), () => null);
  wireComposer($("thread-composer"), $("thread-input"), () => state.threadRoot);
  wireAttachments($("composer"), $("room"), () => null, receive);
  wireAttachments($("thread-composer"), $("thread"), () => state.threadRoot, receive);
  for (const [id, format] of [["thread-export-md", "markdown"], ["thread-export-json", "json"]]) {
    const failed = (error) => showStatus(friendly(error, "export the thread"));
    $(id).addEventListener("click", () => exportThread(state.threadRoot, format).catch(failed));
  }
  $("thread-close").addEventListener("click", () => {
    closeThread();
    showErrorLabels();
  });
  try {
    const address = new URLSearchParams(location.search);
    const wanted = address.get("room");
    const { rooms: data, page: firstPage } = await firstReads(wanted);
    showRooms(data);
    // The stream starts where the earlier of the two reads stood, so nothing between them is missed.
    state.latest = firstPage ? Math.min(data.latest, firstPage.latest) : data.latest;
    connectStream();
    // The room asked for in the address; with only one room, that one (first_reads.py picks the same).
    const room =
      data.rooms.find((r) => r.key === wanted || r.room_id === wanted) ||
      (data.rooms.length === 1 ? data.rooms[0] : undefined);
    if (room) {
      await openRoom(room, firstPage && firstPage.room_id === room.room_id ? firstPage : null);
      if (address.get("thread")) await openThread(address.get("thread"));
    } else if (!data.rooms.length) showStatus("No rooms yet: add rooms to config.yaml and start miniroom.");
    document.body.dataset.ready = "1"; // the rooms (and the room asked for) are shown
    performance.mark("miniroom:ready"); // how long opening the page took, on the browser's own clock
  } catch (error) {
    showStatus(friendly(error, "load the rooms"));
  }
  // In an idle moment after the room is shown, not in the frame that shows it (a first click may follow).
  const idle = window.requestIdleCallback || ((callback) => setTimeout(callback, 0));
  requestAnimationFrame(() => idle(startClock, { timeout: 200 }));
}

start();
