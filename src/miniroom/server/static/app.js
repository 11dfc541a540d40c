// miniroom web chat: rooms, timeline, threads, streaming edits and reactions over the embedded rooms API.
// User text is only ever set with textContent, never parsed as HTML.
"use strict";

const REACTIONS = ["👍", "❤️", "😄", "🎉", "👀"];
const PAGE_SIZE = 200;
// An agent's reply is posted, then edited in place as it streams: it shows as "writing" until no edit has
// come for this long (the room runtime edits a streaming reply about every 0.7 s).
const STREAM_QUIET_MS = 3000;

const state = {
  userId: document.body.dataset.userId,
  rooms: new Map(), // room_id -> room (with members)
  room: null, // the open room
  messages: new Map(), // event_id -> message model of the open room
  threadRoot: null, // event_id of the open thread
  roomLatest: 0, // stream position the open room's page was read at; older stream events are in it
  pending: null, // stream events that arrive while the open room's page loads
  latest: 0,
};

const $ = (id) => document.getElementById(id);

// --- API -------------------------------------------------------------------------------------------

function token() {
  const match = location.hash.match(/token=([^&]+)/);
  if (match) {
    sessionStorage.setItem("miniroomToken", decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("miniroomToken");
}

async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json" };
  const secret = token();
  if (secret) headers.Authorization = `Bearer ${secret}`;
  const response = await fetch(path, { ...options, headers });
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const hint = response.status === 401 ? " Open this page as /#token=<your MINIROOM_API_TOKEN>." : "";
    throw new Error((data.error || `${response.status} ${response.statusText}`) + hint);
  }
  return data;
}

function showStatus(text) {
  const status = $("status");
  status.textContent = text;
  status.hidden = !text;
}

function roomPath(suffix = "") {
  return `/api/rooms/${encodeURIComponent(state.room.room_id)}${suffix}`;
}

// --- Messages --------------------------------------------------------------------------------------

function relation(event) {
  return (event.content && event.content["m.relates_to"]) || {};
}

function position(event) {
  return (event.unsigned && event.unsigned.stream_position) || 0;
}

function newMessage(event) {
  const rel = relation(event);
  const message = {
    event,
    body: event.content.body,
    editedAt: 0,
    threadRoot: rel.rel_type === "m.thread" ? rel.event_id : null,
    replies: 0,
    reactions: new Map(),
    views: [],
    streaming: false,
    streamTimer: null,
  };
  const bundled = (event.unsigned && event.unsigned["m.relations"]) || {};
  if (bundled["m.replace"]) applyEdit(message, bundled["m.replace"]);
  if (bundled["m.thread"]) message.replies = bundled["m.thread"].count;
  for (const chunk of (bundled["m.annotation"] || {}).chunk || []) message.reactions.set(chunk.key, chunk.count);
  return message;
}

function applyEdit(message, edit) {
  const newContent = edit.content["m.new_content"];
  if (!newContent || position(edit) <= message.editedAt) return;
  message.body = newContent.body;
  message.editedAt = position(edit);
}

function senderName(userId) {
  const member = state.room && state.room.members.find((m) => m.user_id === userId);
  return member ? member.display_name : userId;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function button(label, title, onClick) {
  const node = element("button", "action", label);
  node.type = "button";
  node.title = title;
  node.addEventListener("click", onClick);
  return node;
}

function renderMessage(message, inThread) {
  const item = element("li", "message");
  item.dataset.eventId = message.event.event_id;
  if (message.event.sender === state.userId) item.classList.add("mine");
  const meta = element("div", "meta");
  meta.append(element("span", "sender", senderName(message.event.sender)));
  const time = new Date(message.event.origin_server_ts);
  meta.append(element("time", "muted", time.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })));
  item.append(meta, element("div", "body"), element("div", "reactions"), actions(message, inThread));
  if (!inThread) item.append(element("button", "thread-link"));
  message.views.push(item);
  refresh(message);
  return item;
}

function actions(message, inThread) {
  const bar = element("div", "actions");
  for (const key of REACTIONS) bar.append(button(key, `React ${key}`, () => react(message, key)));
  if (!inThread) bar.append(button("Reply in thread", "Open the thread", () => openThread(message.event.event_id)));
  if (message.event.sender === state.userId) {
    bar.append(button("Edit", "Edit your message", (event) => startEdit(message, event.target.closest(".message"))));
  }
  return bar;
}

function refresh(message) {
  message.views = message.views.filter((view) => view.isConnected || !view.dataset.rendered);
  for (const view of message.views) {
    view.dataset.rendered = "1";
    if (!view.querySelector(".editor")) view.querySelector(".body").textContent = message.body;
    view.classList.toggle("edited", message.editedAt > 0);
    view.classList.toggle("streaming", message.streaming);
    const chips = view.querySelector(".reactions");
    chips.replaceChildren();
    for (const [key, count] of message.reactions) {
      const chip = button(`${key} ${count}`, `React ${key}`, () => react(message, key));
      chip.className = "chip";
      chips.append(chip);
    }
    const link = view.querySelector(".thread-link");
    if (link) {
      link.hidden = message.replies === 0;
      link.textContent = `${message.replies} ${message.replies === 1 ? "reply" : "replies"}`;
      link.onclick = () => openThread(message.event.event_id);
    }
  }
}

// Live edits of someone else's message (an agent streaming its reply): "writing" until the edits stop.
// A message posted once and never edited (a short reply, a failure notice) is never marked.
function markStreaming(message) {
  if (message.event.sender === state.userId) return;
  clearTimeout(message.streamTimer);
  message.streaming = true;
  message.streamTimer = setTimeout(() => {
    message.streaming = false;
    refresh(message);
  }, STREAM_QUIET_MS);
}

function append(list, item) {
  const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  list.append(item);
  if (atBottom) list.scrollTop = list.scrollHeight;
}

// Apply one event of the open room: from its page (with edits, reactions and reply counts bundled),
// from the stream (each event once, as its position is past the page's), or as the answer to a post.
function receive(event, fromPage) {
  if (event.type === "m.reaction") {
    const target = state.messages.get(relation(event).event_id);
    if (!target) return;
    const key = relation(event).key;
    target.reactions.set(key, (target.reactions.get(key) || 0) + 1);
    return refresh(target);
  }
  if (event.type !== "m.room.message" || state.messages.has(event.event_id)) return;
  if (relation(event).rel_type === "m.replace") {
    const target = state.messages.get(relation(event).event_id);
    if (!target) return;
    applyEdit(target, event);
    if (!fromPage && event.sender === target.event.sender) markStreaming(target);
    return refresh(target);
  }
  const message = newMessage(event);
  state.messages.set(event.event_id, message);
  if (message.threadRoot) {
    const root = state.messages.get(message.threadRoot);
    if (root && !fromPage) root.replies += 1, refresh(root);
    if (state.threadRoot === message.threadRoot) append($("thread-timeline"), renderMessage(message, true));
  } else {
    append($("timeline"), renderMessage(message, false));
  }
}

// --- Actions ---------------------------------------------------------------------------------------

// A transaction id per message: sending it again (after an answer was lost) returns the stored message.
function newTxnId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function send(body, threadRoot, txnId) {
  const payload = threadRoot ? { body, thread_root: threadRoot, txn_id: txnId } : { body, txn_id: txnId };
  const sent = await api(roomPath("/messages"), { method: "POST", body: JSON.stringify(payload) });
  receive(sent.event, false);
}

async function react(message, key) {
  try {
    await api(roomPath(`/messages/${encodeURIComponent(message.event.event_id)}/reactions`), {
      method: "POST",
      body: JSON.stringify({ key }),
    });
  } catch (error) {
    showStatus(error.message);
  }
}

function startEdit(message, view) {
  if (!view || view.querySelector(".editor")) return;
  const editor = element("textarea", "editor");
  editor.value = message.body;
  const body = view.querySelector(".body");
  body.replaceChildren(editor);
  editor.focus();
  const finish = () => {
    body.replaceChildren();
    refresh(message);
  };
  editor.addEventListener("keydown", async (event) => {
    if (event.key === "Escape") return finish();
    if (event.key !== "Enter" || event.shiftKey) return;
    event.preventDefault();
    try {
      const path = roomPath(`/messages/${encodeURIComponent(message.event.event_id)}`);
      const sent = await api(path, { method: "PUT", body: JSON.stringify({ body: editor.value }) });
      finish();
      receive(sent.event, false);
    } catch (error) {
      showStatus(error.message);
    }
  });
}

function wireComposer(form, input, threadRoot) {
  let unsent = null; // a send that failed: the same text sent again to the same place reuses its id
  const submit = async () => {
    const body = input.value;
    const root = threadRoot();
    if (!body.trim()) return;
    if (!unsent || unsent.body !== body || unsent.root !== root) unsent = { body, root, txnId: newTxnId() };
    try {
      await send(body, root, unsent.txnId);
      unsent = null;
      input.value = "";
      showStatus("");
    } catch (error) {
      showStatus(error.message);
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
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
      openRoom(room);
    });
    item.append(link);
    list.append(item);
  }
}

async function openRoom(room) {
  state.room = room;
  state.messages = new Map();
  closeThread();
  history.replaceState(null, "", `?room=${encodeURIComponent(room.key)}`);
  $("room-name").textContent = room.name;
  $("room-topic").textContent = `${room.alias} · ${room.members.length} members`;
  $("timeline").replaceChildren();
  renderRooms();
  state.pending = [];
  const page = await api(roomPath(`/events?bundled=true&limit=${PAGE_SIZE}`));
  if (state.room !== room) return;
  for (const event of page.events) receive(event, true);
  state.roomLatest = page.latest;
  const pending = state.pending;
  state.pending = null;
  for (const event of pending) fromStream(event);
  $("timeline").scrollTop = $("timeline").scrollHeight;
  for (const control of $("composer").elements) control.disabled = false;
  $("composer-input").placeholder = `Message ${room.name} (Enter sends, Shift+Enter adds a line)`;
  $("composer-input").focus();
}

async function openThread(rootId) {
  state.threadRoot = rootId;
  $("thread").hidden = false;
  const list = $("thread-timeline");
  list.replaceChildren();
  const page = await api(roomPath(`/events?bundled=true&limit=500&thread=${encodeURIComponent(rootId)}`));
  if (state.threadRoot !== rootId) return; // another thread was opened meanwhile
  const views = page.events.map((event) => {
    let message = state.messages.get(event.event_id);
    if (!message) state.messages.set(event.event_id, (message = newMessage(event)));
    return renderMessage(message, true);
  });
  // Replies the stream delivered while the page was loading are already shown: keep them, once, after it.
  const onPage = new Set(page.events.map((event) => event.event_id));
  const arrived = [...list.children].filter((item) => !onPage.has(item.dataset.eventId));
  list.replaceChildren(...views, ...arrived);
  list.scrollTop = list.scrollHeight;
  $("thread-input").focus();
}

function closeThread() {
  state.threadRoot = null;
  $("thread").hidden = true;
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
    if (!state.room || event.room_id !== state.room.room_id) return;
    if (state.pending) state.pending.push(event);
    else fromStream(event);
  };
  state.stream.onerror = () => showStatus("Connection lost; reconnecting…");
  state.stream.onopen = () => showStatus("");
}

async function start() {
  wireComposer($("composer"), $("composer-input"), () => null);
  wireComposer($("thread-composer"), $("thread-input"), () => state.threadRoot);
  $("thread-close").addEventListener("click", closeThread);
  try {
    const data = await api("/api/rooms");
    state.latest = data.latest;
    for (const room of data.rooms) state.rooms.set(room.room_id, room);
    connectStream();
    const wanted = new URLSearchParams(location.search).get("room");
    const room = data.rooms.find((r) => r.key === wanted || r.room_id === wanted);
    renderRooms();
    if (room) await openRoom(room);
    else if (!data.rooms.length) showStatus("No rooms yet: add rooms to config.yaml and start miniroom.");
  } catch (error) {
    showStatus(error.message);
  }
}

start();
