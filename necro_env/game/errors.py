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
