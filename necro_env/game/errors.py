"""Exception hierarchy of necro_env; every error the package raises on purpose derives from NecroEnvError."""


class NecroEnvError(Exception):
    """Base class of the package's errors."""


class ConfigError(NecroEnvError, ValueError):
    """A GameConfig or CLI value is out of range."""


class UnknownOptionError(ConfigError, TypeError):
    """An option name that does not exist (a TypeError too, like an unexpected keyword argument)."""


class BoardDataError(NecroEnvError, ValueError):
    """The shipped board data failed validation."""


class IllegalActionError(NecroEnvError, ValueError):
    """apply() was given an action that is not legal now."""


class StateError(NecroEnvError, ValueError):
    """A saved state or record is corrupt or inconsistent."""


def short_repr(v: object, width: int = 80) -> str:
    """``repr(v)`` for an error message, cut to ``width`` characters: a hostile value may be huge,
    nested past the stack, or an int with more digits than ``repr`` will print."""
    try:
        text = repr(v)
    except (RecursionError, ValueError):
        bits = v.bit_length() if isinstance(v, int) else None
        text = f"<an int of {bits} bits>" if bits is not None else f"<a {type(v).__name__} too big to print>"
    return text if len(text) <= width else text[: width - 3] + "..."


#: The longest error message the package builds from data it was given (a file, a record, a state).
MAX_MESSAGE = 2000


def cap_message(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` cut to ``limit`` characters, saying how much was left out: an error message that quotes
    hostile data (a million dict keys, a huge list) stays readable and small."""
    if len(text) <= limit:
        return text
    keep = max(0, limit - 40)  # room for the note on what was cut
    return f"{text[:keep]}... ({len(text) - keep} more characters)"


def short_list(items, limit: int = 10) -> str:
    """The first ``limit`` items of ``items`` (any iterable, read lazily) as a list, each through
    ``short_repr``, and how many more there were: ``['a', 'b', ... and 999998 more]``."""
    shown, more = [], 0
    for i, x in enumerate(items):
        if i < limit:
            shown.append(short_repr(x))
        else:
            more += 1
    return "[" + ", ".join(shown) + (f", ... and {more} more" if more else "") + "]"
