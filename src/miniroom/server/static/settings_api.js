// Settings files through the API: each read with its md5, each save based on it. A save of a file that changed
// since fails with a Conflict; one the validators refuse, with an Invalid carrying each problem.
import { ApiError, api } from "./api.js";

export class Conflict extends Error {}
export class Invalid extends Error {
  constructor(message, problems) {
    super(message);
    this.problems = problems || [];
  }
}

export async function defaults() {
  return api("/api/settings/defaults");
}

export async function listFiles() {
  return (await api("/api/settings")).files;
}

// One settings file: `load` reads it (secrets masked unless `reveal`), `save` writes text or values.
export class SettingsFile {
  constructor(name) {
    this.name = name;
    this.md5 = null;
    this.file = null;
  }

  async load(reveal = false) {
    this.file = await api(`/api/settings/files/${encodeURIComponent(this.name)}${reveal ? "?reveal=true" : ""}`);
    this.md5 = this.file.md5;
    return this.file;
  }

  // The file's errors (a broken file), not its warnings.
  errors() {
    return ((this.file && this.file.problems) || []).filter((problem) => problem.severity === "error");
  }

  async save(change) {
    try {
      const saved = await api(`/api/settings/files/${encodeURIComponent(this.name)}`, {
        method: "PUT",
        body: JSON.stringify({ md5: this.md5, ...change }),
      });
      this.md5 = saved.md5;
      return saved;
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) throw new Conflict(error.message);
      if (error instanceof ApiError && error.status === 422) throw new Invalid(error.message, error.details.problems);
      throw error;
    }
  }
}

// The problems of one entry, by its field: `profiles.safe.maxAttempts` -> {maxAttempts: "message"}.
export function problemsOf(problems, prefix) {
  const found = {};
  for (const problem of problems || []) {
    if (problem.severity !== "error") continue;
    if (problem.key === prefix) found[""] = problem.message;
    else if (problem.key.startsWith(`${prefix}.`)) found[problem.key.slice(prefix.length + 1).split(/[.[]/)[0]] = problem.message;
  }
  return found;
}
