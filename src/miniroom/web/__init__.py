"""web layer: the `fetch` and `search` services, their catalogues (`fetch.yml`, `search.yml`) and the chain
that tries them by priority. Below `agent/`, above `tools/`; it knows nothing of the loop.

Import from the module that owns a name; this package re-exports nothing.
"""
