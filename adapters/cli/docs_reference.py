"""The documentation's reference pages, generated from the code: every command from the `memactors` parser and
every setting from the Settings model (plus the variables read without it).

`python -m memactors.adapters.cli.docs_reference` (from the root of a checkout) writes docs/reference/commands.md
and docs/reference/settings.md; `--check` writes nothing and exits 1 when either differs from the code.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic.fields import FieldInfo

from memactors.adapters.cli.dispatch import build_parser
from memactors.adapters.runtime.settings import READ_ELSEWHERE, Settings

#: The command that rewrites the pages, as every message about a stale page names it.
REGENERATE = "python -m memactors.adapters.cli.docs_reference"
#: Where the pages go, relative to the root of a checkout.
OUT = Path("docs") / "reference"
#: Fixed, so the pages do not depend on the terminal the generator ran in.
USAGE_WIDTH = 80
_BANNER = f"<!-- Generated from the code by `{REGENERATE}`; edit the code, not this page. -->\n"


def _text(value: str) -> str:
    """Plain prose as Markdown: code spans kept, characters Markdown would read as markup escaped, one line."""
    parts = re.split(r"(`[^`]*`)", " ".join(value.split()))
    return "".join(part if part.startswith("`") else
                   re.sub(r"([\\*\[\]_])", r"\\\1", part).replace("<", "&lt;").replace(">", "&gt;")
                   for part in parts)


def _cell(value: str) -> str:
    """`_text` for a table cell: a pipe escaped, and a code span holding one split around it (GitHub would end
    the cell at that pipe, and mkdocs shows an escaped one with its backslash)."""
    parts = re.split(r"(`[^`]*`)", _text(value))
    return "".join(r" \| ".join(f"`{piece.strip()}`" for piece in part.strip("`").split("|"))
                   if part.startswith("`") else part.replace("|", r"\|") for part in parts)


def _code(value: str) -> str:
    return f"`{value}`" if "`" not in value else f"`` {value} ``"


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = _formatter(parser)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)  # noqa: SLF001
    return formatter.format_help().strip()


def _default(action: argparse.Action) -> str:
    default = action.default
    if action.option_strings and (default is None or default is False or default == argparse.SUPPRESS
                                  or isinstance(action, (argparse._StoreTrueAction, argparse._VersionAction,  # noqa: SLF001
                                                         argparse._HelpAction))):  # noqa: SLF001
        return ""
    if default is None or default == argparse.SUPPRESS:
        return ""
    if isinstance(default, (list, tuple)):
        return " ".join(map(str, default)) if default else ""
    return str(default)


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    formatter = _formatter(parser)
    rows = ["| argument | default | meaning |", "|---|---|---|"]
    for action in parser._actions:  # noqa: SLF001 - argparse keeps no public list of its arguments
        if isinstance(action, argparse._HelpAction) or action.help == argparse.SUPPRESS:  # noqa: SLF001
            continue
        invocation = formatter._format_action_invocation(action)  # noqa: SLF001
        meaning = formatter._expand_help(action) if action.help else ""  # noqa: SLF001
        default = _default(action)
        rows.append(f"| {_cell(_code(invocation))} | {_cell(_code(default)) if default else ''} | {_cell(meaning)} |")
    return rows if len(rows) > 2 else []


def _commands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line help, parser) per command, in the order `memactors --help` lists them."""
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    helps = {choice.dest: choice.help or "" for choice in sub._choices_actions}  # noqa: SLF001
    return [(name, helps.get(name, ""), command) for name, command in sub.choices.items()]


def commands_page() -> str:
    """docs/reference/commands.md: every command with its usage, description and arguments."""
    parser, _ = build_parser()
    commands = _commands(parser)
    lines = [_BANNER, "# Command reference", "", _text(parser.description or ""), "", "```text",
             _usage(parser), "```", "", _text(parser.epilog or ""), "", "| command | what it does |", "|---|---|"]
    lines += [f"| [{_code('memactors ' + name)}](#{name}) | {_cell(help_)} |" for name, help_, _ in commands]
    lines += ["", "Before the command:", "", "| argument | meaning |", "|---|---|"]
    top = _formatter(parser)
    lines += [f"| {_cell(_code(top._format_action_invocation(a)))} | {_cell(top._expand_help(a))} |"  # noqa: SLF001
              for a in parser._actions  # noqa: SLF001
              if a.option_strings and not isinstance(a, argparse._HelpAction)]  # noqa: SLF001
    for name, help_, command in commands:
        lines += ["", f"## memactors {name} {{#{name}}}", "", _text(help_[:1].upper() + help_[1:]) + ".", ""]
        if command.description:
            lines += [_text(command.description), ""]
        lines += ["```text", _usage(command), "```", ""]
        lines += _arguments(command)
    return "\n".join(lines).rstrip() + "\n"


def _type(field: FieldInfo) -> str:
    annotation = field.annotation
    args = get_args(annotation)
    if get_origin(annotation) is Literal:
        return " | ".join(map(str, args))
    if type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return " or ".join(getattr(a, "__name__", str(a)) for a in rest) + " or none"
    if get_origin(annotation) is dict:
        return f"JSON object of {args[1].__name__}"
    for meta in field.metadata:
        choices = re.fullmatch(r"\^\(([\w|-]+)\)\$", str(getattr(meta, "pattern", "") or ""))
        if choices:
            return " | ".join(choices.group(1).split("|"))
    return getattr(annotation, "__name__", str(annotation))


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _bounds(field: FieldInfo) -> str:
    signs = {"gt": ">", "ge": "≥", "lt": "<", "le": "≤"}
    return ", ".join(f"{signs[name]} {_number(getattr(meta, name))}" for meta in field.metadata
                     for name in signs if getattr(meta, name, None) is not None)


def _field_default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        return _code(repr(field.default_factory()).replace("'", '"'))
    value = field.default
    if value is None:
        return "none"
    if isinstance(value, bool):
        return _code(str(value).lower())
    return _code(_number(value))


def _names(name: str, field: FieldInfo, prefix: str) -> list[str]:
    alias = field.validation_alias
    choices = getattr(alias, "choices", None)
    if choices:
        return [str(choice) for choice in choices]
    return [str(alias) if alias else f"{prefix}{name}".upper()]


def settings_rows() -> Iterable[tuple[list[str], str, str, str, str]]:
    """(variable names, type, default, bounds, meaning) for every setting, Settings' fields first."""
    prefix = str(Settings.model_config.get("env_prefix", ""))
    for name, field in Settings.model_fields.items():
        yield _names(name, field, prefix), _type(field), _field_default(field), _bounds(field), field.description or ""
    settings_read = {name for field_name, field in Settings.model_fields.items()
                     for name in _names(field_name, field, prefix)}
    for variable in READ_ELSEWHERE:
        if variable.name not in settings_read:  # a hook's own reading of a variable Settings reads too
            yield [variable.name], variable.type, variable.default, "", variable.meaning


def settings_page() -> str:
    """docs/reference/settings.md: one table of every setting; the configuration page includes the part between
    the `table` markers, and the page hides its empty table of contents to give the table the width."""
    lines = ["---", "hide:", "  - toc", "---", "", _BANNER, "# Settings", "", "<!-- --8<-- [start:table] -->",
             "Every variable is read from the environment; a value outside its bounds stops a command with "
             "one line naming it (exit 2). JSON objects are written as JSON, e.g. "
             "`MEMACTORS_IMPORTANCE='{\"progress\": 0.3}'`.", "",
             "| variable | type | default | bounds | meaning |", "|---|---|---|---|---|"]
    for names, type_, default, bounds, meaning in settings_rows():
        variable = " or ".join(_code(n) for n in names)
        lines.append(f"| {_cell(variable)} | {_cell(type_)} | {_cell(default)} | {bounds} | {_cell(meaning)} |")
    lines.append("<!-- --8<-- [end:table] -->")
    return "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    """File name under docs/reference -> its text, as the code generates it now."""
    return {"commands.md": commands_page(), "settings.md": settings_page()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {__spec__.name if __spec__ else __name__}",
                                     description="Write docs/reference/commands.md and settings.md from the code.")
    parser.add_argument("--out", type=Path, default=OUT, help="the folder to write (default: docs/reference)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 when a page differs")
    args = parser.parse_args(argv)
    if not args.out.is_dir():
        print(f"docs_reference: no folder {args.out}; run it from the root of a memactors checkout, or pass --out",
              file=sys.stderr)
        return 2
    stale = []
    for name, text in pages().items():
        path = args.out / name
        if (path.read_text(encoding="utf-8") if path.exists() else None) == text:
            continue
        stale.append(str(path))
        if not args.check:
            path.write_text(text, encoding="utf-8")
    if args.check and stale:
        print(f"docs_reference: out of date: {', '.join(stale)}; run {REGENERATE}", file=sys.stderr)
        return 1
    for path in stale:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
