// Downloading the open thread as Markdown or JSON (GET /api/rooms/{room}/threads/{root}/export), with the
// token the rest of the API gets: a plain link could not carry it.
import { ApiError, token } from "./api.js";
import { roomPath } from "./actions.js";

const REVOKE_AFTER_MS = 60_000; // the browser has taken the file by then

export async function exportThread(rootId, format) {
  const headers = {};
  const secret = token();
  if (secret) headers.Authorization = `Bearer ${secret}`;
  const response = await fetch(roomPath(`/threads/${encodeURIComponent(rootId)}/export?format=${format}`), { headers });
  if (!response.ok) {
    const data = await response.json().catch(() => ({}));
    throw new ApiError(response.status, data.errcode || "", data.error || "", data);
  }
  const named = (response.headers.get("Content-Disposition") || "").match(/filename="([^"]+)"/);
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = named ? named[1] : `thread.${format === "json" ? "json" : "md"}`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), REVOKE_AFTER_MS);
}
