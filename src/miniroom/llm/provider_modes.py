"""Provider modes that add tools no request can turn off: such a model cannot give a plain judgment."""

from __future__ import annotations

from miniroom.llm.model_name import ModelName

_SEARCH_ONLY = ("search-preview", "search-api")


def native_tools(name: ModelName) -> str | None:
    """What the model always brings along (web search, code execution, a cached setup), or None."""
    provider, model_id = name.provider.lower(), name.model_id.lower()
    if provider == "groq" and model_id.removeprefix("groq/").startswith("compound"):
        return "Groq Compound systems search the web and run code on their own"
    if model_id.endswith(":online") or (provider == "openrouter" and "web-search" in model_id):
        return "OpenRouter's automatic web search (:online) always searches"
    if any(marker in model_id for marker in _SEARCH_ONLY):
        return "OpenAI Chat search-only models always search the web"
    if "cachedcontents/" in model_id:
        return "a Gemini explicit context cache fixes the request's tools and prompt"
    return None
