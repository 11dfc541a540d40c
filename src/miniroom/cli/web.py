"""`miniroom web test fetch|search NAME`: run one saved service once and say how it did."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os

from miniroom.cli.common import CommandError, fail, working_folder
from miniroom.cli.settings import model_variables
from miniroom.llm import agent_dir_from_env
from miniroom.web import ServiceKind, run_service_test


def web_test_command(args: argparse.Namespace) -> int:
    """Exit 0 when the service answered, 1 when it did not, 2 for a usage problem."""
    try:
        folder = working_folder(args)
        variables = model_variables(args.model, folder) if args.model else {}
    except CommandError as error:
        return fail(str(error))
    kind = ServiceKind(args.kind)
    result = asyncio.run(
        run_service_test(
            folder,
            kind,
            args.name,
            target=args.target,
            variables=variables,
            environ=os.environ,
            data_dir=agent_dir_from_env(os.environ),
        )
    )
    if args.json:
        print(json.dumps(dataclasses.asdict(result), ensure_ascii=False))
    else:
        status = "ok" if result.ok else "failed"
        print(f"{status} · {result.latency_ms} ms · {args.kind} service {args.name!r}: {result.explanation}")
        if result.sample:
            print(result.sample)
    return 0 if result.ok else 1
