"""A base for built-in tools whose parameters are a pydantic model: the schema and validation come from it."""

from __future__ import annotations

from functools import cached_property
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.llm import ToolSpec

P = TypeVar("P", bound=BaseModel)


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _clean_schema(schema: Any, definitions: dict[str, Any] | None = None) -> Any:
    """Inline `$ref`s and drop pydantic's `title`s and null defaults: they cost tokens (an optional field
    needs no default to say so), and some endpoints mishandle `$ref`."""
    if isinstance(schema, list):
        return [_clean_schema(item, definitions) for item in schema]
    if not isinstance(schema, dict):
        return schema
    definitions = {**(definitions or {}), **schema.get("$defs", {})}
    reference = schema.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        return _clean_schema(definitions[reference.removeprefix("#/$defs/")], definitions)
    cleaned = {}
    for key, value in schema.items():
        if key in ("title", "$defs") or (key == "default" and value is None):
            continue
        if key == "properties":
            cleaned[key] = {name: _clean_schema(prop, definitions) for name, prop in value.items()}
        else:
            cleaned[key] = _clean_schema(value, definitions)
    return cleaned


def format_validation_error(tool: str, error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
    return f"Invalid arguments for {tool}: " + "; ".join(problems)


class BuiltinTool(Generic[P]):
    """Subclasses set `name`, `description`, `params_model` and implement `run` and `summary`."""

    name: ClassVar[str]
    description: ClassVar[str]
    params_model: type[P]

    @classmethod
    def class_spec(cls) -> ToolSpec:
        schema: dict[str, Any] = _clean_schema(cls.params_model.model_json_schema())
        return ToolSpec(cls.name, cls.description, schema)

    @cached_property
    def spec(self) -> ToolSpec:
        return self.class_spec()

    def validate(self, arguments: dict[str, Any]) -> P:
        try:
            return self.params_model.model_validate(arguments)
        except ValidationError as error:
            raise ToolError(format_validation_error(self.name, error)) from None

    async def execute(self, params: P, ctx: ToolContext) -> ToolResult:
        return await self.run(params, ctx)

    async def run(self, params: P, ctx: ToolContext) -> ToolResult:
        raise NotImplementedError

    def summary(self, arguments: dict[str, Any]) -> str:
        return self.name
