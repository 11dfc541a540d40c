"""llm layer: the message model, both wire protocols with streaming, models and their names, cost tables.

The layer's one public face: other layers import from here, never from its modules (the architecture test
holds them to it); the modules themselves import one another directly.
"""

from miniroom.llm.errors import ErrorKind, ProviderFailure
from miniroom.llm.events import StreamDone, StreamEvent, TextDelta, ThinkingDelta
from miniroom.llm.http import make_client
from miniroom.llm.http_values import base_url_problem
from miniroom.llm.messages import (
    AssistantMessage,
    Context,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    ToolSpec,
    Usage,
    UserContent,
    UserMessage,
)
from miniroom.llm.model import DEFAULT_THINKING_LEVEL, THINKING_LEVELS, Model, ThinkingLevel
from miniroom.llm.model_name import (
    DEFAULT_MODEL_NAME,
    NAME_EXAMPLE,
    MissingApiKeyError,
    ModelConfigError,
    parse_model_name,
)
from miniroom.llm.models_json import MODELS_JSON, check_models_file, env_value
from miniroom.llm.provider_modes import native_tools
from miniroom.llm.providers import TEMPLATES
from miniroom.llm.registry import agent_dir_from_env, known_providers, resolve_model
from miniroom.llm.serialize import (
    MessageFormatError,
    message_from_dict,
    message_to_dict,
    usage_from_dict,
    usage_to_dict,
)
from miniroom.llm.stream import RequestOptions, stream_response
from miniroom.llm.wire import INVALID_ARGUMENTS_KEY, INVALID_REASON_KEY, MAX_ARGUMENT_DEPTH, nests_deeper

__all__ = [
    "DEFAULT_MODEL_NAME",
    "DEFAULT_THINKING_LEVEL",
    "INVALID_ARGUMENTS_KEY",
    "INVALID_REASON_KEY",
    "MAX_ARGUMENT_DEPTH",
    "MODELS_JSON",
    "NAME_EXAMPLE",
    "TEMPLATES",
    "THINKING_LEVELS",
    "AssistantMessage",
    "Context",
    "ErrorKind",
    "ImageContent",
    "Message",
    "MessageFormatError",
    "MissingApiKeyError",
    "Model",
    "ModelConfigError",
    "ProviderFailure",
    "RequestOptions",
    "StreamDone",
    "StreamEvent",
    "TextContent",
    "TextDelta",
    "ThinkingContent",
    "ThinkingDelta",
    "ThinkingLevel",
    "ToolCall",
    "ToolResultMessage",
    "ToolSpec",
    "Usage",
    "UserContent",
    "UserMessage",
    "agent_dir_from_env",
    "base_url_problem",
    "check_models_file",
    "env_value",
    "known_providers",
    "make_client",
    "message_from_dict",
    "message_to_dict",
    "native_tools",
    "nests_deeper",
    "parse_model_name",
    "resolve_model",
    "stream_response",
    "usage_from_dict",
    "usage_to_dict",
]
