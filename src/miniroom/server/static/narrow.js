// On a narrow screen the room list is folded away behind the header's "Rooms" button (app.css shows the
// button only there); picking a room, a click beside the list or Escape folds it away again.
import { $ } from "./dom.js";

function showRooms(open) {
  document.body.classList.toggle("rooms-open", open);
  $("rooms-toggle").setAttribute("aria-expanded", String(open));
}

export function wireNarrow() {
  $("rooms-toggle").addEventListener("click", () => showRooms(!document.body.classList.contains("rooms-open")));
  $("room-list").addEventListener("click", (event) => {
    if (event.target.closest(".room-link")) showRooms(false);
  });
  // Beside the open list is the dimmed layer app.css draws over the page: a click there lands on the layout.
  const layout = document.querySelector(".layout");
  layout.addEventListener("click", (event) => {
    if (event.target === layout) showRooms(false);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && document.body.classList.contains("rooms-open")) showRooms(false);
  });
}
