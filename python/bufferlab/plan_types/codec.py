"""Plan dict <-> plan types, driven by the types' annotations: ``from_dict`` refuses a key the
type does not have and reports a missing one, each at its key path (``links[0].forward.queue``);
``to_dict`` writes the keys the plan gave and any that differ from their default."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import types
import typing
from collections.abc import Mapping
from typing import Any, Literal, TypeVar, Union, overload

from .base import PlanObject

T = TypeVar("T", bound=PlanObject)
_MISSING = dataclasses.MISSING


class PlanTypeError(ValueError):
    """A plan that does not fit its types; ``path`` is the key path of the first misfit."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path or 'plan'}: {message}")
        self.path = path
        self.message = message


@dataclasses.dataclass(frozen=True)
class _Field:
    name: str
    type: Any
    default: Any  # _MISSING for a required key
    # A one-value Literal (``kind``, ``dist``): names the variant, so it is always written.
    is_tag: bool = False


_FIELDS: dict[type[PlanObject], dict[str, _Field]] = {}


def _fields(cls: type[PlanObject]) -> dict[str, _Field]:
    if cls in _FIELDS:
        return _FIELDS[cls]
    hints = typing.get_type_hints(cls)
    out = {}
    for f in dataclasses.fields(cls):
        if f.name == "given":
            continue
        default = f.default_factory() if f.default_factory is not _MISSING else f.default
        tp = hints[f.name]
        is_tag = typing.get_origin(tp) is Literal and len(typing.get_args(tp)) == 1
        out[f.name] = _Field(f.name, tp, default, is_tag)
    _FIELDS[cls] = out
    return out


def from_dict(cls: type[T], data: Any, path: str = "") -> T:
    """``data`` (a plan or part of one) as ``cls``; :class:`PlanTypeError` at the first key that
    does not fit."""
    return typing.cast(T, _read(cls, data, path))


def _read(tp: Any, value: Any, path: str) -> Any:
    origin = typing.get_origin(tp)
    if isinstance(tp, type) and issubclass(tp, PlanObject):
        return _read_object(tp, value, path)
    if origin in (Union, types.UnionType):
        return _read_union(typing.get_args(tp), value, path)
    if origin is Literal:
        if value not in typing.get_args(tp) or isinstance(value, bool):
            raise PlanTypeError(path, f"{value!r} is not one of {', '.join(map(repr, typing.get_args(tp)))}")
        return value
    if origin is tuple:
        return _read_tuple(typing.get_args(tp), value, path)
    return _read_scalar(tp, value, path)


def _read_object(cls: type[PlanObject], value: Any, path: str) -> PlanObject:
    if not isinstance(value, Mapping):
        raise PlanTypeError(path, f"expected a table ({cls.__name__}), got {value!r}")
    fields = _fields(cls)
    for key in value:
        if key not in fields:
            near = difflib.get_close_matches(str(key), fields, n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else f" ({cls.__name__} has {', '.join(fields)})"
            raise PlanTypeError(_join(path, key), f"unknown key{hint}")
    kwargs = {}
    for name, f in fields.items():
        if name in value:
            kwargs[name] = _read(f.type, value[name], _join(path, name))
        elif f.default is _MISSING:
            raise PlanTypeError(_join(path, name), f"missing (required by {cls.__name__})")
    return cls(**kwargs, given=tuple(value))


# A union's options without None, split into plan objects and the rest, worked out once per union.
@functools.cache
def _split(options: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[type[PlanObject], ...], tuple[Any, ...]]:
    kept = tuple(o for o in options if o is not type(None))
    classes = tuple(o for o in kept if isinstance(o, type) and issubclass(o, PlanObject))
    return kept, classes, tuple(o for o in kept if o not in classes)


def _read_union(options: tuple[Any, ...], value: Any, path: str) -> Any:
    if value is None and type(None) in options:
        return None
    options, classes, others = _split(options)
    if isinstance(value, Mapping) and classes:
        return _read_object(_variant(classes, value, path), value, path)
    for o in others:
        try:
            return _read(o, value, path)
        except PlanTypeError:
            pass
    if len(options) == 1:
        return _read(options[0], value, path)
    raise PlanTypeError(path, f"{value!r} fits none of {', '.join(_name(o) for o in options)}")


# A union's variants by their tags, and the tags' keys in order, worked out once per union (a plan
# of 10,000 flows reads a union 40,000 times: working this out each time was most of its reading).
@functools.cache
def _tags(classes: tuple[type[PlanObject], ...]) -> tuple[dict[tuple[str, Any], type[PlanObject]], list[str]]:
    by_tag = {(f.name, typing.get_args(f.type)[0]): c for c in classes for f in _fields(c).values() if f.is_tag}
    return by_tag, sorted({k for k, _ in by_tag})


def _variant(classes: tuple[type[PlanObject], ...], value: Mapping[str, Any], path: str) -> type[PlanObject]:
    """The variant a table names by its tag (``kind``, ``dist``), or the only one there is."""
    if len(classes) == 1:
        return classes[0]
    by_tag, tag_keys = _tags(classes)
    for key in tag_keys:
        if key in value:
            chosen = by_tag.get((key, value[key]))
            if chosen is None:
                known = ", ".join(repr(v) for k, v in by_tag if k == key)
                raise PlanTypeError(_join(path, key), f"{value[key]!r} is not one of {known}")
            return chosen
    raise PlanTypeError(_join(path, tag_keys[0] if tag_keys else "?"), "missing (it names the variant)")


def _read_tuple(args: tuple[Any, ...], value: Any, path: str) -> tuple[Any, ...]:
    if not isinstance(value, (list, tuple)):
        raise PlanTypeError(path, f"expected a list, got {value!r}")
    if len(args) == 2 and args[1] is Ellipsis:
        return tuple(_read(args[0], v, f"{path}[{i}]") for i, v in enumerate(value))
    if len(value) != len(args):
        raise PlanTypeError(path, f"expected {len(args)} items, got {len(value)}")
    return tuple(_read(a, v, f"{path}[{i}]") for i, (a, v) in enumerate(zip(args, value)))


def _read_scalar(tp: Any, value: Any, path: str) -> Any:
    ok = {
        bool: isinstance(value, bool),
        int: isinstance(value, int) and not isinstance(value, bool),
        float: isinstance(value, (int, float)) and not isinstance(value, bool),
        str: isinstance(value, str),
    }.get(tp)
    if ok is None:
        raise TypeError(f"plan types: no reader for {tp!r} at {path}")
    if not ok:
        raise PlanTypeError(path, f"expected {tp.__name__}, got {value!r}")
    return float(value) if tp is float else value


@overload
def to_dict(obj: PlanObject, *, defaults: bool = False) -> dict[str, Any]: ...


@overload
def to_dict(obj: Any, *, defaults: bool = False) -> Any: ...


def to_dict(obj: Any, *, defaults: bool = False) -> Any:
    """The plan dict of a plan object (lists for tuples). Keys the plan gave, tags, required keys
    and keys that differ from their default are written; ``defaults=True`` writes every key."""
    if isinstance(obj, PlanObject):
        fields = _fields(type(obj))
        out = {}
        # The plan's own key order first, so a plan read and written again is the same JSON.
        for name in dict.fromkeys([*obj.given, *fields]):
            f, v = fields[name], getattr(obj, name)
            if defaults or f.is_tag or f.default is _MISSING or name in obj.given or v != f.default:
                out[name] = to_dict(v, defaults=defaults)
        return out
    if isinstance(obj, tuple):
        return [to_dict(v, defaults=defaults) for v in obj]
    return obj


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def _name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp)
