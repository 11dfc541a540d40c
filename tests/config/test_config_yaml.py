"""config.yaml: the schema, its cross-checks, and error messages that name file, line, key and fix."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from miniroom.agent.config_yaml_check import load_config, validate_config
from miniroom.agent.variables import parse_variables
from miniroom.config.config_yaml import ConfigError, LlmJudgment, TypesafeJudgment

VALID = """\
agents:
  helper:
    display_name: Helper
    role: Answers questions
    instructions: Be brief.
    model: fast
    tools: [bash, read]
    rooms: [lobby]
    thread_mode: room
    room_thread_modes: {"!abc:example.org": thread, "#dev:example.org": room}
    participation:
      debounce_seconds: 2
      judgment: {provider: llm, model: fast, timeout_seconds: 5}
    mid_turn:
      instructions: Continue for acknowledgements.
      defer_reaction: "👀"
      judgment: {provider: typesafe, threshold: 0.7}
  coder:
    rooms: [lobby, dev]
teams:
  reviewers: {display_name: Reviewers, agents: [helper, coder], mode: collaborate, rooms: [lobby]}
rooms:
  lobby: {display_name: Lobby, alias: "#lobby:example.org"}
  dev: {}
models:
  fast: {model: "anthropic/claude-sonnet-5:high", variables: ["MINI_MAX_TOKENS=8000", "X=a=b"]}
router: {model: fast}
bot_accounts: ["@telegram:example.org"]
human_aliases:
  "@alice:example.org": ["@alice_tg:example.org", "@alice:work.example"]
  "@bob:example.org": "@bob_slack:example.org"
defaults: {model: fast}
matrix:
  homeserver: https://matrix.example.org/
  server_name: example.org
  registration: login
  invite_from: ["@alice:example.org"]
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_full_config_loads(tmp_path: Path) -> None:
    config = load_config(_write(tmp_path, VALID))
    helper = config.agents["helper"]
    assert (helper.thread_mode, helper.instructions, helper.rooms) == ("room", ["Be brief."], ["lobby"])
    assert config.agents["coder"].thread_mode == "thread"
    assert helper.participation is not None
    assert isinstance(helper.participation.judgment, LlmJudgment)
    assert helper.mid_turn is not None
    assert isinstance(helper.mid_turn.judgment, TypesafeJudgment)
    assert (helper.mid_turn.judgment.threshold, helper.mid_turn.judgment.timeout_seconds) == (0.7, 1.5)
    team = config.teams["reviewers"]
    assert (team.agents, team.mode, team.rooms, team.thread_mode) == (
        ["helper", "coder"],
        "collaborate",
        ["lobby"],
        None,
    )
    assert parse_variables(config.models["fast"].variables) == {"MINI_MAX_TOKENS": "8000", "X": "a=b"}
    assert config.matrix is not None
    assert config.matrix.homeserver == "https://matrix.example.org"
    assert config.human_aliases == {
        "@alice:example.org": ["@alice_tg:example.org", "@alice:work.example"],
        "@bob:example.org": ["@bob_slack:example.org"],
    }


def test_participation_and_mid_turn_are_off_when_absent_or_null_and_on_with_defaults_when_empty(
    tmp_path: Path,
) -> None:
    text = (
        "agents:\n  a: {}\n  b: {participation: null, mid_turn: null}\n"
        "  c: {participation: {}, mid_turn: {}}\n"
    )
    agents = load_config(_write(tmp_path, text)).agents
    assert [agents[name].participation for name in "ab"] == [None, None]
    assert [agents[name].mid_turn for name in "ab"] == [None, None]
    on = agents["c"].participation
    assert on is not None
    assert (on.debounce_seconds, on.decline_reaction, on.judgment) == (3.0, None, None)
    assert agents["c"].mid_turn is not None


@pytest.mark.parametrize("text", ["", "# only a comment\n"], ids=["empty", "comment_only"])
def test_an_empty_config_is_valid(tmp_path: Path, text: str) -> None:
    assert load_config(_write(tmp_path, text)).agents == {}


ERRORS = {
    "unknown_key_suggests_the_close_one": (
        "agents:\n  helper:\n    thread_mod: room\n",
        "config.yaml:3: agents.helper.thread_mod: unknown key (did you mean thread_mode?)",
    ),
    "unknown_key_lists_the_allowed_ones": (
        "rooms:\n  lobby:\n    colour: red\n",
        "config.yaml:3: rooms.lobby.colour: unknown key; the keys allowed here are: display_name, alias",
    ),
    "unknown_top_level_key": ("agentz: {}\n", "config.yaml:1: agentz: unknown key (did you mean agents?)"),
    "secret_in_config": (
        "matrix:\n  homeserver: https://m.org\n  server_name: m.org\n  password: hunter2\n",
        "config.yaml:4: matrix.password: unknown key: passwords and tokens do not belong in config.yaml; "
        "set them in the environment",
    ),
    "bad_thread_mode": (
        "agents:\n  helper:\n    thread_mode: rooms\n",
        """config.yaml:3: agents.helper.thread_mode: must be 'thread' or 'room' (got "rooms")""",
    ),
    "bad_memory": (
        "agents:\n  helper:\n    memory: files\n",
        """config.yaml:3: agents.helper.memory: must be 'none' or 'file' (got "files")""",
    ),
    "bad_room_thread_mode": (
        "agents:\n  helper:\n    room_thread_modes: {lobby: threads}\n",
        "config.yaml:3: agents.helper.room_thread_modes.lobby: must be 'thread' or 'room' (got \"threads\")",
    ),
    "missing_model_name": (
        "models:\n  fast:\n    variables: []\n",
        "config.yaml:3: models.fast.model: this key is required",
    ),
    "model_without_provider": (
        "models:\n  fast: {model: claude}\n",
        'config.yaml:2: models.fast.model: "claude" has no provider; write it as provider/model[:thinking]',
    ),
    "bad_variable_line": (
        "models:\n  fast:\n    model: a/b\n    variables:\n      - A=1\n      - MINI_MAX_TOKENS\n",
        'config.yaml:6: models.fast.variables[1]: "MINI_MAX_TOKENS" is not a NAME=value line',
    ),
    "tools_not_a_list": (
        "agents:\n  helper:\n    tools: bash\n",
        'config.yaml:3: agents.helper.tools: must be a list (lines starting with -) (got "bash")',
    ),
    "unknown_tool": (
        "agents:\n  helper:\n    tools: [read, raed]\n",
        'config.yaml:3: agents.helper.tools[1]: "raed" is not a built-in tool (did you mean read?)',
    ),
    "parallel_bash_without_bash": (
        "agents:\n  helper:\n    tools: [read, parallel_bash]\n",
        "config.yaml:3: agents.helper.tools: lists parallel_bash but not bash: parallel_bash runs bash "
        "commands, so it is off too; add bash to allow both, or remove parallel_bash",
    ),
    "agent_not_a_mapping": (
        "agents:\n  helper: yes\n",
        "config.yaml:2: agents.helper: must be a mapping (indented key: value lines) (got true)",
    ),
    "bot_account_not_a_user_id": (
        "bot_accounts: [telegram]\n",
        'config.yaml:1: bot_accounts[0]: "telegram" is not a Matrix user ID; write it as @name:server',
    ),
    "homeserver_not_a_url": (
        "matrix: {homeserver: matrix.org, server_name: matrix.org}\n",
        'config.yaml:1: matrix.homeserver: "matrix.org" is not a URL; write it as https://matrix.example.org',
    ),
    "bad_registration": (
        "matrix: {homeserver: https://m.org, server_name: m.org, registration: manual}\n",
        """config.yaml:1: matrix.registration: must be 'auto' or 'login' (got "manual")""",
    ),
    "unknown_judgment_provider": (
        "agents:\n  helper:\n    participation:\n      judgment: {provider: gpt}\n",
        "config.yaml:4: agents.helper.participation.judgment: "
        "provider must be one of 'llm', 'typesafe' (got 'gpt')",
    ),
    "unknown_key_inside_judgment": (
        "agents:\n  helper:\n    participation:\n      judgment:\n"
        "        provider: typesafe\n        treshold: 0.9\n",
        "config.yaml:6: agents.helper.participation.judgment.treshold: unknown key (did you mean threshold?)",
    ),
    "unknown_room": (
        "rooms: {lobby: {}}\nagents:\n  helper:\n    rooms: [lobby, loby]\n",
        'config.yaml:4: agents.helper.rooms[1]: agent "helper" names room "loby", but rooms: defines no such '
        "entry (did you mean lobby?)",
    ),
    "unknown_model_alias": (
        "models: {fast: {model: a/b}}\nagents:\n  helper:\n    model: smart\n",
        'config.yaml:4: agents.helper.model: agent "helper" names model alias "smart", '
        "but models: defines no such entry (defined: fast)",
    ),
    "unknown_router_model": (
        "router: {model: fast}\n",
        'config.yaml:1: router.model: the router names model alias "fast", but models: defines no such entry '
        "(defined: none yet)",
    ),
    "unknown_judgment_model": (
        "models: {fast: {model: a/b}}\nagents:\n  h:\n"
        "    participation: {judgment: {provider: llm, model: fats}}\n",
        'config.yaml:4: agents.h.participation.judgment.model: agent "h" names model alias "fats"',
    ),
    "unknown_key_inside_mid_turn": (
        "agents:\n  helper:\n    mid_turn:\n      defer_reactions: x\n",
        "config.yaml:4: agents.helper.mid_turn.defer_reactions: unknown key (did you mean defer_reaction?)",
    ),
    "unknown_key_inside_participation": (
        "agents:\n  helper:\n    participation: {debounce: 2}\n",
        "config.yaml:3: agents.helper.participation.debounce: unknown key (did you mean debounce_seconds?)",
    ),
    "negative_debounce": (
        "agents:\n  helper:\n    participation: {debounce_seconds: -1}\n",
        "config.yaml:3: agents.helper.participation.debounce_seconds: must be greater than or equal to 0 "
        "(got -1)",
    ),
    "endless_debounce": (
        "agents:\n  helper:\n    participation: {debounce_seconds: .inf}\n",
        "config.yaml:3: agents.helper.participation.debounce_seconds: must be a finite number (got Infinity)",
    ),
    "endless_judgment_timeout": (
        "models: {fast: {model: a/b}}\nagents:\n  h:\n"
        "    mid_turn: {judgment: {provider: typesafe, timeout_seconds: .inf}}\n",
        "config.yaml:4: agents.h.mid_turn.judgment.timeout_seconds: must be a finite number (got Infinity)",
    ),
    "threshold_above_one": (
        "agents:\n  h:\n    mid_turn: {judgment: {provider: typesafe, threshold: 1.5}}\n",
        "config.yaml:3: agents.h.mid_turn.judgment.threshold: must be less than or equal to 1 (got 1.5)",
    ),
    "unknown_mid_turn_judgment_model": (
        "models: {fast: {model: a/b}}\nagents:\n  h:\n"
        "    mid_turn: {judgment: {provider: llm, model: fats}}\n",
        'config.yaml:4: agents.h.mid_turn.judgment.model: agent "h" names model alias "fats", but models: '
        "defines no such entry (did you mean fast?)",
    ),
    "judgment_model_with_tools_it_cannot_drop": (
        "models: {compound: {model: groq/compound-mini}}\nagents:\n  h:\n"
        "    participation: {judgment: {provider: llm, model: compound}}\n",
        'config.yaml:4: agents.h.participation.judgment.model: model alias "compound" (groq/compound-mini) '
        "cannot judge: Groq Compound systems search the web and run code on their own, and a judgment "
        "runs with no tools; choose an alias of a plain model",
    ),
    "team_member_unknown": (
        "agents: {helper: {}}\nteams:\n  crew: {agents: [helper, hepler]}\n",
        'config.yaml:3: teams.crew.agents[1]: team "crew" names agent "hepler", but agents: defines no such '
        "entry (did you mean helper?)",
    ),
    "team_without_agents": (
        "teams:\n  crew: {display_name: Crew}\n",
        "config.yaml:2: teams.crew.agents: a team needs at least one agent; list them here",
    ),
    "team_member_twice": (
        "agents: {helper: {}}\nteams:\n  crew: {agents: [helper, helper]}\n",
        'config.yaml:3: teams.crew.agents[1]: "helper" is listed twice; keep one',
    ),
    "team_named_like_an_agent": (
        "agents: {helper: {}}\nteams:\n  helper: {agents: [helper]}\n",
        "config.yaml:3: teams.helper: is also an agent's name; a team gets an account of its own "
        "(@miniroom_helper): rename it",
    ),
    "team_named_router": (
        "agents: {helper: {}}\nteams:\n  router: {agents: [helper]}\n",
        "config.yaml:3: teams.router: is also the router's account",
    ),
    "team_room_unknown": (
        "agents: {helper: {}}\nrooms: {lobby: {}}\nteams:\n  crew: {agents: [helper], rooms: [loby]}\n",
        'config.yaml:4: teams.crew.rooms[0]: team "crew" names room "loby", but rooms: defines no such entry',
    ),
    "team_mode_unknown": (
        "agents: {helper: {}}\nteams:\n  crew: {agents: [helper], mode: vote}\n",
        "config.yaml:3: teams.crew.mode: must be 'coordinate' or 'collaborate' (got \"vote\")",
    ),
    "unknown_key_inside_team": (
        "agents: {helper: {}}\nteams:\n  crew: {agents: [helper], members: [helper]}\n",
        "config.yaml:3: teams.crew.members: unknown key",
    ),
    "duplicate_key": (
        "rooms:\n  lobby: {}\n  lobby: {alias: x}\n",
        "config.yaml:3: rooms.lobby: appears twice (first on line 2); keep one",
    ),
    "invalid_yaml": ("agents:\n  helper: [unclosed\n", "config.yaml:3: not valid YAML:"),
    "alias_not_a_user_id": (
        'human_aliases:\n  "@alice:example.org": ["@alice_tg:example.org", alice_slack]\n',
        'config.yaml:2: human_aliases["@alice:example.org"][1]: "alice_slack" is not a Matrix user ID; '
        "write it as @name:server",
    ),
    "person_not_a_user_id": (
        'human_aliases:\n  alice: ["@alice_tg:example.org"]\n',
        'config.yaml:2: human_aliases.alice: "alice" is not a Matrix user ID; write it as @name:server',
    ),
    "aliases_not_a_list": (
        'human_aliases:\n  "@alice:example.org": {tg: "@alice_tg:example.org"}\n',
        'config.yaml:2: human_aliases["@alice:example.org"]: must be a list (lines starting with -)',
    ),
    "alias_of_two_people": (
        'human_aliases:\n  "@a:x.org": ["@shared:x.org"]\n  "@b:x.org": ["@shared:x.org"]\n',
        'config.yaml:3: human_aliases["@b:x.org"][0]: "@shared:x.org" is already an alias of "@a:x.org"; '
        "an account belongs to one person",
    ),
    "alias_with_aliases_of_its_own": (
        'human_aliases:\n  "@a:x.org": ["@b:x.org"]\n  "@b:x.org": ["@c:x.org"]\n',
        'config.yaml:2: human_aliases["@a:x.org"][0]: "@b:x.org" has aliases of its own under '
        "human_aliases; list all of a person's accounts under one id",
    ),
    "alias_is_the_person": (
        'human_aliases:\n  "@a:x.org": ["@a:x.org"]\n',
        'config.yaml:2: human_aliases["@a:x.org"][0]: "@a:x.org" is the person\'s own id; list only their '
        "other accounts",
    ),
    "alias_is_a_bot_account": (
        'bot_accounts: ["@bridge:x.org"]\nhuman_aliases:\n  "@a:x.org": ["@bridge:x.org"]\n',
        'config.yaml:3: human_aliases["@a:x.org"][0]: "@bridge:x.org" is in bot_accounts, which never '
        "count as people; remove it from one",
    ),
    "person_is_a_bot_account": (
        'bot_accounts: ["@a:x.org"]\nhuman_aliases:\n  "@a:x.org": ["@b:x.org"]\n',
        'config.yaml:3: human_aliases["@a:x.org"]: "@a:x.org" is in bot_accounts, which never count',
    ),
    "agent_name_with_a_space": (
        "agents:\n  Helper Bot: {}\n",
        'config.yaml:2: agents["Helper Bot"]: "Helper Bot" cannot name an account in a room: use only '
        'letters a-z, digits and . _ = - /; rename it (e.g. "helper-bot")',
    ),
    "team_name_not_latin": (
        "agents:\n  a: {}\nteams:\n  Bad Näme: {agents: [a]}\n",
        'config.yaml:4: teams["Bad Näme"]: "Bad Näme" cannot name an account in a room',
    ),
    "top_level_not_a_mapping": (
        "- agents\n",
        '(the top level): must be a mapping (indented key: value lines) (got ["agents"])',
    ),
}


@pytest.mark.parametrize(("text", "message"), ERRORS.values(), ids=ERRORS.keys())
def test_errors(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert message in str(caught.value).replace(str(tmp_path) + "/", "")


def test_every_problem_is_reported_in_line_order(tmp_path: Path) -> None:
    text = "agents:\n  a:\n    thread_mod: room\n  b:\n    tools: x\nbot_accounts: [nope]\n"
    with pytest.raises(ConfigError) as caught:
        load_config(_write(tmp_path, text))
    lines = str(caught.value).splitlines()
    assert [line.split(":")[1] for line in lines] == ["3", "5", "6"]


def test_a_missing_file_says_how_to_point_at_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such file; pass --config or set MINIROOM_CONFIG"):
        load_config(tmp_path / "nope.yaml")


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_bytes(b"agents: {\xff: 1}\n")
    with pytest.raises(
        ConfigError, match=r"config\.yaml:1: is not UTF-8 text \(byte 0xff\): save it as UTF-8$"
    ):
        load_config(path)


def test_validate_config_without_a_file_names_the_source() -> None:
    with pytest.raises(ConfigError, match=r"^web form: agents\.x\.rooms\[0\]: agent \"x\" names room \"r\""):
        validate_config({"agents": {"x": {"rooms": ["r"]}}}, source="web form")
