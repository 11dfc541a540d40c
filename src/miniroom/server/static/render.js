// Message bodies as people see them: Markdown rendered and sanitised, an agent's retry, tool and failure lines
// set apart. marked (Markdown) and DOMPurify (sanitiser) are vendored in ./vendor/ and loaded before this.

const TOOL_MARK = "🔧 ";
const WARNING_MARK = "⚠ ";
// Markdown output only: no forms, media, frames, styles or scripts; links to the web and mail only.
const ALLOWED_TAGS = [
  "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "del", "s", "code", "pre",
  "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
];
const ALLOWED_ATTR = ["href", "title", "align", "start"];
// Checked against ALLOWED_URI like a link unless named here as no URL (a table cell's alignment, a list's start).
const NOT_URLS = ["align", "start"];
const ALLOWED_URI = /^(?:https?:|mailto:)/i;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;
// A tool line may end with a link to its subagent's thread: `🔧 Agent review → https://matrix.to/#/… (done)`.
const THREAD_LINK = /(https:\/\/matrix\.to\/#\/\S+)/;

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

const markdown = new marked.Marked({
  gfm: true,
  breaks: true, // a line break typed in the chat stays a line break
  renderer: {
    // HTML typed in a message is shown as the text it is, not interpreted.
    html: ({ text }) => escapeHtml(text),
    // An image would load from anywhere the sender chose; it is shown as a link to it instead.
    image: ({ href, text }) => `<a href="${escapeHtml(href)}">${escapeHtml(text || href)}</a>`,
  },
});

const purifier = DOMPurify(window);
purifier.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

// Set once: a config passed to each sanitize() call is parsed again every time, the page's costliest step.
purifier.setConfig({
  ALLOWED_TAGS,
  ALLOWED_ATTR,
  ALLOWED_URI_REGEXP: ALLOWED_URI,
  ADD_URI_SAFE_ATTR: NOT_URLS,
  RETURN_DOM_FRAGMENT: true,
});

// Text in which Markdown sees no syntax: words, digits and plain punctuation, no line that starts a list or a
// code block, no `www.` that GitHub's flavour would link. Most of what people type in a chat is such text.
const PLAIN = /^[\p{L}\p{N}\p{M} ,.?!'’"()\n-]*$/u;
const NOT_PLAIN = /^[ -]|^\d+[.)]| $|www\./imu;

// The sanitised DOM of `text` rendered as Markdown.
export function renderMarkdown(text) {
  return isPlain(text) ? plainParagraphs(text) : parsedMarkdown(text);
}

export function isPlain(text) {
  return text.trim() === text && PLAIN.test(text) && !NOT_PLAIN.test(text);
}

export function parsedMarkdown(text) {
  return purifier.sanitize(markdown.parse(text));
}

// Plain text as marked renders it, without parsing and sanitising it (half a millisecond or more a message):
// a paragraph between blank lines, a <br> at each line break.
function plainParagraphs(text) {
  const fragment = document.createDocumentFragment();
  for (const paragraph of text.split(/\n{2,}/)) {
    if (!paragraph) continue;
    const p = document.createElement("p");
    paragraph.split("\n").forEach((line, index) => {
      if (index) p.append(document.createElement("br"));
      p.append(line);
    });
    fragment.append(p, "\n");
  }
  return fragment;
}

// The parts of a body, in order: {kind: "markdown" | "retry" | "tool" | "failure" | "form", text}. Only an
// agent's reply has the other kinds: retry lines are those its `io.miniroom.turn` lists, a tool line carries
// the call the turn lists for it (`tool`), a form the description of the numbered text it replaces (`form`),
// and the failure line is the last line of a failed or interrupted turn. Lines inside a code block stay code.
export function bodySegments(body, turn, fromAgent) {
  if (!fromAgent) return [{ kind: "markdown", text: body }];
  const retries = new Set(((turn && turn.retries) || []).map((retry) => retry && retry.line));
  const tools = [...((turn && turn.tools) || [])];
  const lines = body.split("\n");
  const forms = formStarts(lines, (turn && turn.forms) || []);
  const failure = failureLine(lines, turn, retries);
  const segments = [];
  let text = [];
  let fence = null;
  const flush = () => {
    if (text.join("").trim()) segments.push({ kind: "markdown", text: text.join("\n") });
    text = [];
  };
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index];
    const form = fence ? null : forms.get(index);
    if (form) {
      flush();
      segments.push({ kind: "form", text: form.text, form, index: [...forms.values()].indexOf(form) });
      index += form.text.split("\n").length - 1;
      continue;
    }
    const kind = fence ? null : lineKind(line, index === failure, retries);
    if (kind) {
      flush();
      const listed = kind === "tool" && tools.length && line.startsWith(`${TOOL_MARK}${tools[0].summary}`);
      segments.push({ kind, text: line, tool: listed ? tools.shift() : null });
      continue;
    }
    fence = nextFence(fence, line);
    text.push(line);
  }
  flush();
  return segments;
}

// Where each form's numbered text starts in the body's lines (line index -> form), in order.
function formStarts(lines, forms) {
  const starts = new Map();
  let from = 0;
  for (const form of forms) {
    const wanted = String(form.text || "").split("\n");
    for (let index = from; index + wanted.length <= lines.length; index += 1) {
      if (wanted.every((line, offset) => lines[index + offset] === line)) {
        starts.set(index, form);
        from = index + wanted.length;
        break;
      }
    }
  }
  return starts;
}

function lineKind(line, isFailure, retries) {
  if (isFailure) return "failure";
  if (retries.has(line)) return "retry";
  return line.startsWith(TOOL_MARK) ? "tool" : null;
}

function failureLine(lines, turn, retries) {
  if (!turn || (turn.state !== "failed" && turn.state !== "interrupted")) return -1;
  let index = lines.length - 1;
  while (index >= 0 && !lines[index].trim()) index -= 1;
  return index >= 0 && lines[index].startsWith(WARNING_MARK) && !retries.has(lines[index]) ? index : -1;
}

// The open code fence after `line`: a fence opens with three or more ` or ~ and closes with as many.
function nextFence(fence, line) {
  const match = line.match(FENCE);
  if (!match) return fence;
  if (!fence) return match[1];
  return match[1][0] === fence[0] && match[1].length >= fence.length ? null : fence;
}

// A tool line as text, its thread link (if any) a link named "thread" that the chat opens in place.
export function toolLine(text) {
  const [before, url, after] = text.split(THREAD_LINK);
  if (url === undefined) return [text];
  const link = document.createElement("a");
  link.href = url;
  link.target = "_blank"; // as every link in a message: the chat opens a thread of its own room in place
  link.rel = "noopener noreferrer nofollow";
  link.className = "thread-open";
  link.textContent = "thread";
  return [before, link, after];
}

// A card's form names who may answer as its text above says it (`who`, e.g. "@ann:example.org or a room admin"):
// that text reads as `words(form)` gives it for the reader ("You or a room admin").
function readerWords(segments, words) {
  segments.forEach((segment, index) => {
    const above = segments[index - 1];
    if (!segment.form || !segment.form.who || !above || above.kind !== "markdown") return;
    const at = above.text.lastIndexOf(segment.form.who);
    if (at < 0) return;
    above.text = above.text.slice(0, at) + words(segment.form) + above.text.slice(at + segment.form.who.length);
  });
}

// Fill `container` with a message's body: its segments, or a note that it was deleted. `hooks` may draw a tool
// line as a card (`tool(segment)`) and a form (`form(segment)`), and word a card's "who may answer" for its
// reader (`who(form)`); without them all show as written.
export function renderBody(container, body, turn, fromAgent, hooks = {}) {
  if (typeof body !== "string") {
    const note = document.createElement("em");
    note.className = "deleted";
    note.textContent = "Message deleted";
    container.replaceChildren(note);
    return;
  }
  const segments = bodySegments(body, turn, fromAgent);
  if (hooks.who) readerWords(segments, hooks.who);
  container.replaceChildren(
    ...segments.map((segment) => {
      const drawn = hooks[segment.kind] && (segment.tool || segment.form) ? hooks[segment.kind](segment) : null;
      if (drawn) return drawn;
      const part = document.createElement("div");
      part.className = ["markdown", "form"].includes(segment.kind) ? "markdown" : `line ${segment.kind}`;
      if (segment.kind === "markdown" || segment.kind === "form") part.append(renderMarkdown(segment.text));
      else if (segment.kind === "tool") part.append(...toolLine(segment.text));
      else part.textContent = segment.text;
      return part;
    }),
  );
}
