"""The `ask_user` tool: a question to the person in the conversation, with up to four options; they may
answer anything. Offered only where someone can answer (rooms and `miniroom chat`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, WithJsonSchema

from miniroom.engine import Question, ToolContext, ToolResult, timed_answer
from miniroom.tools.base import BuiltinTool, Params

ASK_USER_TOOL_NAME = "ask_user"
MAX_OPTIONS = 4
MAX_CHARS = 2000  # of the question, and of each option
# Checked here rather than in the schema: every schema keyword costs prompt tokens.
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_CHARS)]


class AskUserParams(Params):
    question: Annotated[Text, WithJsonSchema({"type": "string"})]
    options: Annotated[list[Text], WithJsonSchema({"type": "array", "items": {"type": "string"}})] = Field(
        default_factory=list, max_length=MAX_OPTIONS
    )


class AskUserTool(BuiltinTool[AskUserParams]):
    name = ASK_USER_TOOL_NAME
    description = "Ask the user a question (up to 4 options) and wait for the answer."
    params_model = AskUserParams
    untimed: Literal[True] = True  # waits for the person, as long as the profile's approvalTimeout

    async def run(self, params: AskUserParams, ctx: ToolContext) -> ToolResult:
        question = Question(ctx.call_id, params.question, tuple(params.options))
        answer = await timed_answer(ctx.person, question, ctx.settings.approval_timeout)
        if answer is None:
            return ToolResult.text(
                "No answer came in time (or no one can answer here). Go on with your best judgment and say "
                "what you assumed.",
                is_error=True,
            )
        who = f"{answer.by} answered" if answer.by else "The answer"
        return ToolResult.text(f"{who}: {answer.text}", answer=answer.text)

    def summary(self, arguments: dict[str, Any]) -> str:
        question = arguments.get("question")
        return f"Ask {question}" if isinstance(question, str) else "Ask"
