"""The exceptions of rocketmq_rebalance: one base class, and subclasses that are also the
built-in exception a Python user would expect (ValueError for bad arguments, RuntimeError for a
callback that failed). ``java_exception`` names what the Java client throws for the same input."""

from __future__ import annotations


class RebalanceError(Exception):
    """Base class of every error this package raises."""

    java_exception: str = ""


class IllegalArgumentError(RebalanceError, ValueError):
    """Where Java throws IllegalArgumentException: an empty current id, queue list or id list, a
    negative virtual node count, a queue or client without a machine room."""


class MissingConfigurationError(RebalanceError, ValueError):
    """Where Java throws NullPointerException for something left unset: ByMachineRoom without
    idcs meeting an ``idc@name`` broker, a MachineRoomNearby inner strategy returning null."""


class UnknownStrategyError(RebalanceError, ValueError):
    """A strategy name that no strategy answers to."""


class InvalidParametersError(RebalanceError, ValueError):
    """A strategy or rebalancer parameter that is missing, of the wrong type, or out of range."""


class InputTooLargeError(RebalanceError, ValueError):
    """An input larger than the library will process (where Java would run out of memory)."""


class CallbackError(RebalanceError, RuntimeError):
    """A callback supplied by the caller failed."""


class ShutDownError(RebalanceError, RuntimeError):
    """The rebalancer was shut down: every call but ``shutdown`` (and, in safe mode, ``lock_all``,
    which renews what shutdown left) is refused."""


class ReentrantError(RebalanceError, RuntimeError):
    """A Rebalancer method was called from inside one of the same rebalancer's host callbacks, on
    the same thread: it would wait for itself. ``is_consumable``, ``record_pull`` and
    ``generation`` are the exception: they never wait and may be called from anywhere."""


__all__ = [
    "CallbackError",
    "IllegalArgumentError",
    "InputTooLargeError",
    "InvalidParametersError",
    "MissingConfigurationError",
    "RebalanceError",
    "ReentrantError",
    "ShutDownError",
    "UnknownStrategyError",
]
