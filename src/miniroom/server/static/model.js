// The open room as the page knows it: messages with their edits, reactions and turn state, and each
// conversation's newest message. No DOM here; app.js shows it.

// An agent reply's content says how its turn goes (streaming, done, failed, interrupted) and lists retries.
const TURN = "io.miniroom.turn";
// A reply without that field shows as "writing" until no edit has come for this long (the room runtime
// edits a streaming reply about every 0.7 s).
const STREAM_QUIET_MS = 3000;
export const ROOM_LEVEL = ""; // the conversation of a room's own timeline; a thread's is its root's event id

export const state = {
  userId: document.body.dataset.userId, // who the page posts as (people.js switches it)
  people: new Set([document.body.dataset.userId]), // user ids the page knows are people, not agents
  rooms: new Map(), // room_id -> room (with members)
  room: null, // the open room
  messages: new Map(), // event_id -> message model of the open room
  reactions: new Map(), // reaction event_id -> {message, key}, to apply redactions
  newest: new Map(), // conversation -> its newest message
  threadRoot: null, // event_id of the open thread
  roomLatest: 0, // stream position the open room's page was read at; older stream events are in it
  pending: null, // stream events that arrive while the open room's page loads
  unshown: null, // the top-level messages of a page being opened, drawn once it is read
  latest: 0,
};

export function relation(event) {
  return (event.content && event.content["m.relates_to"]) || {};
}

export function position(event) {
  return (event.unsigned && event.unsigned.stream_position) || 0;
}

export function redacted(event) {
  return Boolean(event.unsigned && event.unsigned.redacted_because);
}

export function newMessage(event) {
  const rel = relation(event);
  const message = {
    event,
    body: redacted(event) ? undefined : event.content.body,
    turn: event.content[TURN],
    editedAt: 0,
    edited: false, // shows "(edited)"
    threadRoot: rel.rel_type === "m.thread" ? rel.event_id : null,
    replies: 0,
    reactions: new Map(), // key -> Map(reaction event_id -> sender)
    views: [],
    streaming: false,
    streamTimer: null,
  };
  const bundled = (event.unsigned && event.unsigned["m.relations"]) || {};
  if (bundled["m.replace"]) applyEdit(message, bundled["m.replace"]);
  if (bundled["m.thread"]) message.replies = bundled["m.thread"].count;
  for (const chunk of (bundled["m.annotation"] || {}).chunk || []) {
    for (const reaction of chunk["io.miniroom.events"] || []) {
      addReaction(message, chunk.key, reaction.event_id, reaction.sender);
    }
  }
  return message;
}

// Take a new message of the open room into the model, as its conversation's newest if it is.
export function track(event) {
  const message = newMessage(event);
  state.messages.set(event.event_id, message);
  const conversation = message.threadRoot || ROOM_LEVEL;
  const newest = state.newest.get(conversation);
  if (!newest || position(newest.event) < position(event)) state.newest.set(conversation, message);
  followTurn(message, false, null);
  return message;
}

export function applyEdit(message, edit) {
  const newContent = edit.content["m.new_content"];
  if (!newContent || position(edit) <= message.editedAt || message.body === undefined) return;
  // An agent's reply is edited in place while its turn streams and once as it ends: only an edit after
  // that (or one without a turn, a person's) shows "(edited)".
  const streamed = message.turn && message.turn.state === "streaming" && newContent[TURN];
  if (!streamed) message.edited = true;
  message.body = newContent.body;
  message.turn = newContent[TURN];
  message.editedAt = position(edit);
}

export function fromAgent(message) {
  return !state.people.has(message.event.sender);
}

// "writing…" follows the reply's turn state; a reply without one is "writing" while live edits keep coming,
// and `onQuiet` is called when they have stopped.
export function followTurn(message, liveEdit, onQuiet) {
  if (!fromAgent(message)) return;
  clearTimeout(message.streamTimer);
  if (message.turn) {
    message.streaming = message.turn.state === "streaming";
    return;
  }
  if (!liveEdit) return;
  message.streaming = true;
  message.streamTimer = setTimeout(() => {
    message.streaming = false;
    onQuiet(message);
  }, STREAM_QUIET_MS);
}

// The failed turn a conversation ends with: its newest message is an agent reply whose turn failed.
export function failedTurn(conversation) {
  const newest = state.newest.get(conversation);
  if (!newest || !fromAgent(newest) || !newest.turn || newest.turn.state !== "failed") return null;
  return newest.turn;
}

export function addReaction(message, key, eventId, sender) {
  if (!message.reactions.has(key)) message.reactions.set(key, new Map());
  message.reactions.get(key).set(eventId, sender);
  state.reactions.set(eventId, { message, key });
}

export function myReaction(message, key) {
  const mine = [...(message.reactions.get(key) || [])].find(([, sender]) => sender === state.userId);
  return mine ? mine[0] : null;
}

// Forget a redacted reaction; returns the message it was on, or null when it is not a known reaction.
export function removeReaction(eventId) {
  const reaction = state.reactions.get(eventId);
  if (!reaction) return null;
  state.reactions.delete(eventId);
  const senders = reaction.message.reactions.get(reaction.key);
  senders.delete(eventId);
  if (!senders.size) reaction.message.reactions.delete(reaction.key);
  return reaction.message;
}

// A redacted message keeps its place; its text, turn and reactions are gone.
export function deleteMessage(message) {
  Object.assign(message, { body: undefined, turn: undefined, streaming: false });
  message.reactions.clear();
}

// Start over with `room`: nothing of another room is kept.
export function enterRoom(room) {
  Object.assign(state, { room, messages: new Map(), reactions: new Map(), newest: new Map() });
}

// What a conversation's agent replies have spent so far, failed attempts included: {cost, tokens}; the
// room's (ROOM_LEVEL) counts its threads too. A reply regenerated in place counts its earlier answers too
// (`earlier_usage`): what was spent is spent, as the usage page counts it.
export function spend(conversation) {
  let cost = 0;
  let tokens = 0;
  for (const message of state.messages.values()) {
    const turn = message.turn;
    const outside = conversation !== ROOM_LEVEL && message.threadRoot !== conversation;
    if (!turn || !fromAgent(message) || outside) continue;
    for (const usage of [turn.usage, turn.earlier_usage]) {
      if (!usage) continue;
      cost += Number(usage.cost && usage.cost.total) || 0;
      tokens += usage.totalTokens || 0;
    }
  }
  return { cost, tokens };
}
