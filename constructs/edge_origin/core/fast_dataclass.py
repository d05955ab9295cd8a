"""``dataclass``: the class ``dataclasses.dataclass`` makes, for about half its cost to create (issue 53).

Python 3.11's ``dataclasses`` compiles every method it writes (an ``exec`` of generated source, about
0.1 ms each: six for a frozen class), and a check creates some 70 dataclasses before it reads its
input. Here ``dataclasses`` still makes the class and writes ``__init__`` (and, frozen, ``__setattr__``
and ``__delattr__``: its frozen ``__init__`` assigns through ``object.__setattr__``), while ``__repr__``,
``__eq__``, ``__hash__`` and (``order``) ``__lt__``/``__le__``/``__gt__``/``__ge__`` are closures over the
field names, compiled once with this module: the same text (``"..."`` for a recursive repr), the same
field tuples compared and hashed, ``NotImplemented`` for another class, ``__hash__ = None`` for a
mutable class with ``eq``. ``fields``, ``replace``, ``asdict`` and ``__dataclass_params__`` see the
options as written. Any option besides ``kw_only`` and ``match_args`` (``unsafe_hash``, ``slots``,
``init=False``...) or a class that writes one of those methods itself: ``dataclasses.dataclass`` as is.
tests/core/test_fast_dataclass.py holds every class of the package made here to the one
``dataclasses`` makes from the same fields and options.
"""

from __future__ import annotations

import dataclasses
import operator
import types
from _thread import get_ident
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T", bound=type)

_OWN = ("__repr__", "__eq__", "__hash__")
_ORDER: dict[str, Callable[[Any, Any], Any]] = {
    "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge,
}


#: Options that shape only what ``dataclasses`` still writes here (``__init__``, ``__match_args__``).
_PASSED = frozenset({"kw_only", "match_args"})


def dataclass(cls: T | None = None, /, *, init: bool = True, repr: bool = True, eq: bool = True,
              order: bool = False, frozen: bool = False, **options: Any) -> Any:
    """``dataclasses.dataclass(cls, init=..., repr=..., eq=..., order=..., frozen=..., **options)``, made
    cheaper unless ``options`` holds more than ``kw_only`` / ``match_args`` (see the module's docstring)."""

    def wrap(c: T) -> T:
        if (not init or not _PASSED.issuperset(options) or (order and not eq)
                or any(name in c.__dict__ for name in (*_OWN, *_ORDER))):
            return dataclasses.dataclass(c, init=init, repr=repr, eq=eq, order=order, frozen=frozen, **options)
        return _make(c, repr, eq, order, frozen, options)

    return wrap if cls is None else wrap(cls)


def _make(cls: T, repr: bool, eq: bool, order: bool, frozen: bool, options: dict[str, Any]) -> T:
    if frozen and _plain(cls, options):
        made = _frozen_plain(cls, options)
    else:
        made = dataclasses.dataclass(cls, repr=False, eq=False, frozen=frozen, **options)
    params = made.__dataclass_params__  # type: ignore[attr-defined]
    params.repr, params.eq, params.order = repr, eq, order
    fields = dataclasses.fields(made)
    if repr:
        _set(made, _repr_fn([f.name for f in fields if f.repr]))
    if eq:
        compared = _key([f.name for f in fields if f.compare])
        _set(made, _eq_fn(compared))
        for name in _ORDER if order else ():
            _set(made, _order_fn(name, compared))
        if frozen:  # dataclasses' hash table: (eq, frozen) -> a hash of the fields; (eq, mutable) -> None
            _set(made, _hash_fn(_key([f.name for f in fields if (f.compare if f.hash is None else f.hash)])))
        else:
            made.__hash__ = None  # type: ignore[assignment]
    return made


def _plain(cls: type, options: dict[str, Any]) -> bool:
    """A frozen class whose ``__init__`` only stores its arguments: no base class, no ``__slots__``, no
    ``kw_only``, every field positional with no default or a plain one (``field(...)`` without a
    default factory, ``init=False`` or ``kw_only``; no ClassVar, InitVar or KW_ONLY; no descriptor as a
    default), no field named ``self`` or ``__...``."""
    if cls.__bases__ != (object,) or "__slots__" in cls.__dict__ or options.get("kw_only"):
        return False
    for name, kind in cls.__dict__.get("__annotations__", {}).items():
        if not isinstance(kind, str) or any(word in kind for word in ("ClassVar", "InitVar", "KW_ONLY")):
            return False
        if name == "self" or name.startswith("__"):
            return False
        default = cls.__dict__.get(name, dataclasses.MISSING)
        if isinstance(default, dataclasses.Field):  # field(default=..., repr/compare/hash=...) only
            if default.default_factory is not dataclasses.MISSING or not default.init or default.kw_only is True:
                return False
            default = default.default
        if hasattr(type(default), "__set__") or hasattr(type(default), "__delete__"):
            return False
    return True


def _frozen_plain(cls: T, options: dict[str, Any]) -> T:
    """``dataclasses.dataclass(cls, frozen=True)`` for a ``_plain`` class, compiling nothing of its own:
    ``__init__`` stores each argument in the instance's ``__dict__`` (what the frozen one's
    ``object.__setattr__`` does for a plain attribute, at a third of the cost a field), then calls
    ``__post_init__`` when there is one; ``__setattr__``/``__delattr__`` are closures that refuse a
    field, or any name on an instance of ``cls`` itself, with ``FrozenInstanceError``, as dataclasses'."""
    undocumented = not cls.__doc__
    if undocumented:  # set below; dataclasses would read object.__init__'s signature (tokenize: ~4 ms once)
        cls.__doc__ = cls.__name__
    made = dataclasses.dataclass(cls, init=False, repr=False, eq=False, frozen=False, **options)
    fields = dataclasses.fields(made)
    names = tuple(f.name for f in fields)
    defaults = tuple(f.default for f in fields if f.default is not dataclasses.MISSING)
    for before, after in zip(fields, fields[1:], strict=False):  # dataclasses' own check (its __init__ would not compile)
        if before.default is not dataclasses.MISSING and after.default is dataclasses.MISSING:
            raise TypeError(f"non-default argument {after.name!r} follows default argument")
    init = types.FunctionType(_init_code(names, hasattr(made, "__post_init__")), {"__name__": made.__module__},
                              "__init__", defaults or None)
    init.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}
    _set(made, init)
    _set(made, _frozen_fn("__setattr__", made, names))
    _set(made, _frozen_fn("__delattr__", made, names))
    made.__dataclass_params__.init = True  # type: ignore[attr-defined]
    made.__dataclass_params__.frozen = True  # type: ignore[attr-defined]
    if undocumented:  # dataclasses' docstring for a class without one: its name and __init__'s signature
        import inspect

        try:
            made.__doc__ = made.__name__ + str(inspect.signature(made)).replace(" -> None", "")
        except (TypeError, ValueError):
            made.__doc__ = made.__name__
    return made


#: Compiled ``__init__`` bodies by (number of fields, calls __post_init__), parameters ``a0``... and keys
#: ``"\x00" + i``: a class's own is this code with its field names put in (``CodeType.replace``).
_INIT_CODE: dict[tuple[int, bool], types.CodeType] = {}


def _init_code(names: tuple[str, ...], post_init: bool) -> types.CodeType:
    """``def __init__(self, <names>): d = self.__dict__; d[<name>] = <name>...; self.__post_init__()``."""
    template = _INIT_CODE.get((len(names), post_init))
    if template is None:
        params = "".join(f", a{i}" for i in range(len(names)))
        body = "".join(f"    __dataclass_dict__['\\x00{i}'] = a{i}\n" for i in range(len(names)))
        post = "    self.__post_init__()\n" if post_init else ""
        namespace: dict[str, Any] = {}
        exec(f"def __init__(self{params}):\n    __dataclass_dict__ = self.__dict__\n{body}{post}", namespace)
        template = _INIT_CODE[(len(names), post_init)] = namespace["__init__"].__code__
    keys = {f"\x00{i}": name for i, name in enumerate(names)}
    return template.replace(co_varnames=("self", *names, "__dataclass_dict__"),
                            co_consts=tuple(keys.get(c, c) if isinstance(c, str) else c for c in template.co_consts))


def _frozen_fn(which: str, cls: type, fields: tuple[str, ...]) -> Callable[..., None]:
    if which == "__setattr__":
        def __setattr__(self: Any, name: str, value: Any) -> None:
            if type(self) is cls or name in fields:
                raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
            super(cls, self).__setattr__(name, value)

        return __setattr__

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in fields:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


def _set(cls: type, fn: Callable[..., Any]) -> None:
    fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
    setattr(cls, fn.__name__, fn)


def _key(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of ``names``' values, as the generated ``(self.a,self.b,)`` is."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _repr_fn(names: list[str]) -> Callable[[Any], str]:
    running: set[tuple[int, int]] = set()  # dataclasses' _recursive_repr: "..." for a repr within itself

    def __repr__(self: Any) -> str:
        key = id(self), get_ident()
        if key in running:
            return "..."
        running.add(key)
        try:
            return self.__class__.__qualname__ + "(" + ", ".join([f"{n}={getattr(self, n)!r}" for n in names]) + ")"
        finally:
            running.discard(key)

    return __repr__


def _eq_fn(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    return __eq__


def _order_fn(name: str, key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    """``__lt__`` ... ``__ge__``: the fields' tuples compared, as dataclasses writes them."""
    compare = _ORDER[name]

    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(key(self), key(other))
        return NotImplemented

    method.__name__ = name
    return method


def _hash_fn(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__
