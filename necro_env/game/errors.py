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
