"""Run the rule text: parse it back (as `treegen parse` does) and predict with the model it describes,
printing what a generated program prints. What is checked is that the text holds the model exactly."""
from __future__ import annotations

from typing import Sequence

from ..data import parse_csv, rows_for_model
from ..parse.rule_text import parse
from ..walk import predict_rows
from .protocol import write_output


def run(source: str, csv_text: str, args: Sequence[str] = (), **context) -> str:
    """The output of the model that the rule text ``source`` describes, over ``csv_text``."""
    return run_each(source, csv_text, [args], **context)[0]


def run_each(source: str, csv_text: str, each_args: Sequence[Sequence[str]], rows: Sequence[dict] | None = None,
             source_name: str = "<exported rules>", **_context) -> list[str]:
    """The outputs of the model that the rule text ``source`` (from ``source_name``) describes, over ``csv_text``
    (``rows``: the same rows already read, when the caller has them), for each list of arguments: read and run
    once."""
    model = parse(source, source_name)
    answers = predict_rows(model, rows if rows is not None else rows_for_model(parse_csv(csv_text, "<rows>"), model))
    labels, scores = [label for label, _ in answers], [scores for _, scores in answers]
    return [write_output(model, labels, scores, args=args) for args in each_args]
