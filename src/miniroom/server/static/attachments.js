// Files in the chat: an attach button and drag-and-drop on each composer post a file (or a screenshot) as
// its own message; messages carrying a file show the image, or a link that downloads it.
import { ApiError, friendly, token } from "./api.js";
import { newTxnId, roomPath } from "./actions.js";
import { element, showStatus } from "./dom.js";
import { postingAs } from "./people.js";
import { state } from "./model.js";

const MEDIA = new Set(["m.image", "m.file", "m.audio", "m.video"]);
const SHOWN = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
const loaded = new Map(); // media id -> a promise of its data: URL or object URL, read once per page

function authorized(headers = {}) {
  const secret = token();
  return secret ? { ...headers, Authorization: `Bearer ${secret}` } : headers;
}

// Post `file` in the open room (in the thread `threadRoot` gives, if any); the sent event goes to `receive`.
export async function attach(file, threadRoot, receive) {
  const query = new URLSearchParams({ filename: file.name || "pasted-image.png", txn_id: newTxnId() });
  if (file.type) query.set("mimetype", file.type);
  if (threadRoot) query.set("thread_root", threadRoot);
  for (const [key, value] of Object.entries(postingAs())) query.set(key, value);
  try {
    const response = await fetch(roomPath(`/attachments?${query}`), {
      method: "POST",
      headers: authorized({ "Content-Type": "application/octet-stream" }),
      body: file,
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new ApiError(response.status, data.errcode || "", data.error || "", data);
    receive(data.event, false);
    showStatus("");
  } catch (error) {
    showStatus(friendly(error, `send ${file.name || "the file"}`));
  }
}

// A file dropped beside the room and the thread is not opened in place of the chat.
function keepThePage(event) {
  if (event.dataTransfer && [...event.dataTransfer.types].includes("Files")) event.preventDefault();
}

// An attach button beside `form`'s send button, and files dropped on (or pasted into) `area` sent too.
export function wireAttachments(form, area, threadRoot, receive) {
  document.addEventListener("dragover", keepThePage);
  document.addEventListener("drop", keepThePage);
  const picker = element("input", "attach-picker");
  picker.type = "file";
  picker.multiple = true;
  picker.hidden = true;
  const open = element("button", "attach", "📎");
  open.type = "button";
  open.title = "Attach a file";
  open.setAttribute("aria-label", "Attach a file");
  open.addEventListener("click", () => picker.click());
  const sendAll = (files) => {
    if (!state.room) return showStatus("Pick a room first, then attach the file.");
    for (const file of files) attach(file, threadRoot(), receive);
  };
  picker.addEventListener("change", () => {
    sendAll([...picker.files]);
    picker.value = "";
  });
  form.querySelector("button[type=submit]").before(open, picker);
  area.addEventListener("dragover", (event) => {
    if (![...event.dataTransfer.types].includes("Files")) return;
    event.preventDefault();
    area.classList.add("dropping");
  });
  area.addEventListener("dragleave", () => area.classList.remove("dropping"));
  area.addEventListener("drop", (event) => {
    area.classList.remove("dropping");
    if (!event.dataTransfer.files.length) return;
    event.preventDefault();
    sendAll([...event.dataTransfer.files]);
  });
  form.addEventListener("paste", (event) => {
    const files = [...(event.clipboardData?.files || [])];
    if (!files.length) return;
    event.preventDefault();
    sendAll(files);
  });
}

function mediaId(url) {
  const match = /^mxc:\/\/[^/]+\/([\w-]+)$/.exec(url || "");
  return match ? match[1] : null;
}

// The file's bytes as a URL the page may show (images: data: URLs, which its security policy allows).
function fetched(id, asImage) {
  if (!loaded.has(id)) {
    const read = fetch(`/api/media/${encodeURIComponent(id)}`, { headers: authorized() }).then(async (response) => {
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const blob = await response.blob();
      if (!asImage) return URL.createObjectURL(blob);
      return new Promise((resolve) => {
        const reader = new FileReader();
        reader.onload = () => resolve(reader.result);
        reader.readAsDataURL(blob);
      });
    });
    loaded.set(id, read);
  }
  return loaded.get(id);
}

// Under a message's text: its image, or a link to download its file; nothing for other messages.
export function showAttachment(container, event) {
  const content = event.content || {};
  const id = mediaId(content.url);
  if (!MEDIA.has(content.msgtype) || !id || !container) return;
  const name = content.filename || content.body || "file";
  const mimetype = (content.info && content.info.mimetype) || "";
  // A body that is only the file's name is no caption: the file's own line names it.
  if (!content.filename || content.filename === content.body) container.replaceChildren();
  const box = element("div", "attachment");
  if (content.msgtype === "m.image" && SHOWN.has(mimetype)) {
    const image = element("img", "attachment-image");
    image.alt = name;
    fetched(id, true).then((url) => (image.src = url)).catch(() => (image.alt = `${name} (could not be loaded)`));
    box.append(image);
  } else {
    const link = element("a", "attachment-link", `📄 ${name}`);
    link.href = "#";
    link.addEventListener("click", async (click) => {
      click.preventDefault();
      try {
        link.href = await fetched(id, false);
        link.download = name;
        link.click();
      } catch (error) {
        showStatus(`Could not download ${name}: ${error.message}`);
      }
    }, { once: true });
    box.append(link);
  }
  container.append(box);
}
