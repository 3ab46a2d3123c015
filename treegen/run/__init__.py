"""Runners: start generated programs for real (a Python subprocess, javac + java, SQL engines) and
return what they print. ``treegen verify`` and the tests use them."""


def compiler_errors(output: str, limit: int = 5000) -> str:
    """What a failed compiler said, for a message that may be cut to its start: its lines that say
    ``error:`` or ``warning:`` (under -Werror a warning is why), else its last lines; each line cut short,
    since a line of source it quotes may hold a whole long string literal."""
    lines = [line if len(line) <= 300 else line[:300] + "..." for line in output.splitlines()]
    said = [line for line in lines if "error:" in line or "warning:" in line]
    return "\n".join(said or lines[-20:])[-limit:]
