"""A fake LLM server on loopback for tests and benchmarks: it fakes only the network boundary.

It speaks the real wire protocols, byte for byte where a client could tell:

- Anthropic Messages, `POST {url}/v1/messages`: a message object (thinking blocks with a signature
  "sig-<n>", text, tool_use with ids "toolu_NN"), or with `"stream": true` the SSE sequence message_start,
  ping, content_block_start / content_block_delta (text_delta, thinking_delta, signature_delta,
  input_json_delta) / content_block_stop per block, message_delta (stop_reason, usage), message_stop.
  Errors: `{"type": "error", "error": {"type", "message"}}`; mid-stream: `event: error`.
- OpenAI Chat Completions, `POST {openai_base_url}/chat/completions`: a chat.completion (message.content,
  reasoning_content, tool_calls with ids "call_NN"), or chat.completion.chunk events (delta.content,
  delta.reasoning_content, delta.tool_calls fragments by index), a finish_reason chunk, a usage chunk when
  `stream_options.include_usage` is set, then `data: [DONE]`. Errors: `{"error": {"message", "type", ...}}`.

Usage `(input, output, cache_read, cache_write)` maps to Anthropic's input_tokens, output_tokens,
cache_read_input_tokens, cache_creation_input_tokens, and to OpenAI's prompt_tokens = input + cache_read,
completion_tokens = output, prompt_tokens_details.cached_tokens = cache_read (OpenAI has no field for
cache writes).

Tokens are counted as a provider counts them: a reply without a scripted `usage` reports the request's size
(bytes / 4) as input, minus what the prompt cache serves: Anthropic reads the longest prefix an earlier
request wrote at a `cache_control` breakpoint (20 blocks of lookback), OpenAI any earlier prefix of 1,024
tokens or more, in steps of 128. A request over `context_window` (200,000 unless given; None for no limit) is
refused with status 400 in the vendor's words: Anthropic's `invalid_request_error` "prompt is too long: N
tokens > M maximum", OpenAI's `context_length_exceeded`; it is recorded and takes no scripted reply.

Failures a test can script (see `Reply`): any status with its error body and extra headers (`retry-after`),
an error mid-stream, a dropped connection, slow events (`delay`), a server that accepts and stays silent
(`silent`), a stream of nothing but keep-alive pings (`ping_every`), a stream of text that never ends
(`endless`), and the size of the streamed pieces (`fragment`).

    with ScriptedProvider() as provider:
        provider.script(Reply(text="hi"), Reply(tool_calls=[("read", {"path": "a.txt"})]))
        provider.script_for("Summarize the session", Reply(text="## Goal ..."), repeat=True)
        ...  # point a client at provider.url or provider.openai_base_url
        assert provider.requests[0].body["model"] == "claude-x"

`python -m miniroom.testing.scripted_provider --port N --script replies.json` serves from the command line.
"""

from miniroom.testing.scripted_provider._model import RecordedRequest, Reply
from miniroom.testing.scripted_provider._server import ScriptedProvider

__all__ = ["RecordedRequest", "Reply", "ScriptedProvider"]
