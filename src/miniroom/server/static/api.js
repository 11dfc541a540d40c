// The embedded rooms API as the page uses it, and its errors as people should read them.

// Event, room and user ids (`$…`, `!…:server`, `@…:server`) mean nothing to a person reading an error.
const INTERNAL_ID = /[$!][\w.=+/-]{6,}|@[\w.=+/-]+:[\w.-]+/;
const NEXT_STEP = {
  M_NOT_FOUND: "it is no longer there; reload the page",
  M_FORBIDDEN: "you may not do that here",
};

export class ApiError extends Error {
  constructor(status, errcode, message, details = {}) {
    super(message);
    this.status = status;
    this.errcode = errcode;
    this.details = details; // the whole answer, e.g. each settings problem
  }
}

export function token() {
  const match = location.hash.match(/token=([^&]+)/);
  if (match) {
    sessionStorage.setItem("miniroomToken", decodeURIComponent(match[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("miniroomToken");
}

// The answer boot.js read at the page's start for `path`, taken once; null if it did not read it.
function earlyAnswer(path, options) {
  const early = window.miniroomEarly;
  if (options.method || !early || !Object.hasOwn(early, path)) return null;
  const answer = early[path];
  delete early[path];
  return answer;
}

// The first reads the page carries ({rooms, page}, see first_reads.py), taken once; null if it carries none.
export function carriedReads() {
  const block = document.getElementById("first-reads");
  if (!block) return null;
  block.remove(); // taken once: a later read asks the server
  return JSON.parse(block.textContent);
}

// The page has made its first reads: answers boot.js read and nobody took are stale from now on.
export function endEarlyReads() {
  window.miniroomEarly = null;
}

export async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json" };
  const secret = token();
  if (secret) headers.Authorization = `Bearer ${secret}`;
  const response = await (earlyAnswer(path, options) || fetch(path, { ...options, headers }));
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, data.errcode || "", data.error || "", data);
  return data;
}

// What to tell the person when `action` (e.g. "send the message") failed: what they can do about it, never
// internal ids or server internals.
export function friendly(error, action) {
  if (!(error instanceof ApiError)) return `Could not ${action}: miniroom is not reachable. Is it running?`;
  if (error.status === 401) {
    return `Could not ${action}: ${error.message} Open this page as /#token=<your MINIROOM_API_TOKEN>.`;
  }
  if (error.status >= 500 || !error.message) {
    return `Could not ${action}: miniroom failed (HTTP ${error.status}); its log says why.`;
  }
  if (INTERNAL_ID.test(error.message)) {
    return `Could not ${action}: ${NEXT_STEP[error.errcode] || "reload the page and try again"}.`;
  }
  return `Could not ${action}: ${error.message}`;
}
