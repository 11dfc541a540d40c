// Read first, while the page's other scripts load and run: the list of rooms and the newest events of the room
// the address asks for. api.js takes each answer in place of the same read, once; once the page has made its
// first reads (this ran too late), nothing is read here.
(() => {
  if ("miniroomEarly" in window) return;
  const match = location.hash.match(/token=([^&]+)/);
  const secret = match ? decodeURIComponent(match[1]) : sessionStorage.getItem("miniroomToken");
  const headers = { "Content-Type": "application/json" };
  if (secret) headers.Authorization = `Bearer ${secret}`;
  const read = (path) => fetch(path, { headers });
  const early = { "/api/rooms": read("/api/rooms") };
  const wanted = new URLSearchParams(location.search).get("room");
  if (wanted) {
    const path = `/api/rooms/${encodeURIComponent(wanted)}/events?bundled=true&limit=200`;
    early[path] = read(path);
  }
  for (const answer of Object.values(early)) answer.catch(() => {}); // a failed read is reported when taken
  window.miniroomEarly = early;
})();
