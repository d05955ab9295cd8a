"""``dataclass``: the class ``dataclasses.dataclass`` makes, made without ``dataclasses`` (issue 53).

Python 3.11's ``dataclasses`` compiles every method it writes (an ``exec`` of generated source, about
0.1 ms each) and imports ``inspect`` (with ``ast``, ``dis``, ``tokenize``: ~5 ms); a check creates some 70
dataclasses before it reads its input. Here a class is made without either: its fields are read from its
annotations (``from __future__ import annotations``: strings) and class attributes as ``dataclasses``
reads them; ``__init__`` is a code object compiled once for each shape of class (how many fields, which
take a default factory, which are keyword-only, ``__post_init__``) with the class's names put in
(``CodeType.replace``); a frozen class's ``__init__`` stores each argument in the instance's ``__dict__``
(what its ``object.__setattr__`` does for a plain attribute, at a third of the cost), a mutable one's
assigns ``self.name = name`` as dataclasses' does. ``__repr__``, ``__eq__``, ``__hash__``, the order
methods and a frozen class's ``__setattr__``/``__delattr__`` are closures over the field names, compiled
once with this module: the same text (``"..."`` for a recursive repr), the same field tuples compared and
hashed, ``NotImplemented`` for another class, ``__hash__ = None`` for a mutable class with ``eq``, a class's
own ``__hash__`` kept, ``FrozenInstanceError``. ``__dataclass_fields__`` and ``__dataclass_params__``
(``dataclasses.Field`` objects, what ``dataclasses.fields``/``asdict``/``is_dataclass`` read) and the
docstring of a class without one (its signature, read by ``inspect``) are made on first use, importing
``dataclasses`` then. ``field`` (the same arguments as ``dataclasses.field``), ``replace``, ``fields`` and
``asdict`` go with it. Anything else (``unsafe_hash``, ``slots``, ``init=False``, ``ClassVar``/``InitVar``/
``KW_ONLY`` annotations, a base made by ``dataclasses``, a class that writes one of the methods itself, a
descriptor default, anything ``dataclasses`` would refuse): ``dataclasses.dataclass`` as is, which then
says what is wrong. tests/core/test_fast_dataclass.py holds every class of the package made here to the
one ``dataclasses`` makes from the same fields and options.
"""

from __future__ import annotations

import operator
import sys
import types
from _thread import get_ident
from collections.abc import Callable
from operator import attrgetter

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (issue 53)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T", bound=type)


_OWN = ("__init__", "__repr__", "__eq__", "__setattr__", "__delattr__", "__match_args__")
_ORDER: dict[str, Callable[[Any, Any], Any]] = {
    "__lt__": operator.lt, "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge,
}
#: Options that shape only what is written here (``__init__``, ``__match_args__``).
_PASSED = frozenset({"kw_only", "match_args"})
#: Words of an annotation that ``dataclasses`` may read as a pseudo-field (left to it).
_PSEUDO = ("ClassVar", "InitVar", "KW_ONLY")
#: The class attribute holding a class's ``_Spec`` (only classes made here have it in their ``__dict__``).
SPEC = "__fast_dataclass__"


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<MISSING>"


MISSING: Any = _Missing()


class _Factory:
    """What a default factory's parameter defaults to (``dataclasses._HAS_DEFAULT_FACTORY``'s repr)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"


_HAS_DEFAULT_FACTORY: Any = _Factory()


class Field:
    """``dataclasses.field(...)``'s arguments, until the class is made (then its ``Field`` on first use)."""

    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "hash", "compare", "metadata", "kw_only")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool, hash: bool | None,
                 compare: bool, metadata: Any, kw_only: Any) -> None:
        self.name: str = ""
        self.type: Any = None
        self.default, self.default_factory, self.init, self.repr = default, default_factory, init, repr
        self.hash, self.compare, self.metadata, self.kw_only = hash, compare, metadata, kw_only

    def real(self) -> Any:
        """The ``dataclasses.Field`` ``dataclasses.field`` makes from the same arguments."""
        import dataclasses

        kwargs: dict[str, Any] = {"init": self.init, "repr": self.repr, "hash": self.hash, "compare": self.compare,
                                  "metadata": self.metadata}
        if self.default is not MISSING:
            kwargs["default"] = self.default
        if self.default_factory is not MISSING:
            kwargs["default_factory"] = self.default_factory
        if self.kw_only is not MISSING:
            kwargs["kw_only"] = self.kw_only
        return dataclasses.field(**kwargs)


def field(*, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True, repr: bool = True,
          hash: bool | None = None, compare: bool = True, metadata: Any = None, kw_only: Any = MISSING) -> Any:
    """``dataclasses.field``, for a class made with this module's ``dataclass``."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare, metadata, kw_only)


class _Spec:
    """What a class made here was made from: its fields (inherited ones first) and options."""

    __slots__ = ("fields", "repr", "eq", "order", "frozen", "names", "init_names", "real")

    def __init__(self, fields: list[Field], repr: bool, eq: bool, order: bool, frozen: bool) -> None:
        self.fields, self.repr, self.eq, self.order, self.frozen = fields, repr, eq, order, frozen
        self.names = tuple(f.name for f in fields)
        self.init_names = tuple(f.name for f in fields if f.init)
        self.real = False


def dataclass(cls: T | None = None, /, *, init: bool = True, repr: bool = True, eq: bool = True,
              order: bool = False, frozen: bool = False, **options: Any) -> Any:
    """``dataclasses.dataclass(cls, init=..., repr=..., eq=..., order=..., frozen=..., **options)`` (see the
    module's docstring for what is made here and what is left to ``dataclasses``)."""

    def wrap(c: T) -> T:
        spec = None
        if init and _PASSED.issuperset(options) and not (order and not eq) and type(c) is type:
            spec = _spec(c, repr, eq, order, frozen, bool(options.get("kw_only", False)))
        if spec is None:
            return _by_dataclasses(c, init=init, repr=repr, eq=eq, order=order, frozen=frozen, **options)
        return _make(c, spec, options.get("match_args", True))

    return wrap if cls is None else wrap(cls)


def _by_dataclasses(cls: T, **options: Any) -> T:
    """``dataclasses.dataclass`` itself, the ``field(...)`` of this module turned into its own first."""
    import dataclasses

    for name, value in list(cls.__dict__.items()):
        if isinstance(value, Field):
            setattr(cls, name, value.real())
    return dataclasses.dataclass(cls, **options)  # type: ignore[no-any-return]


#: Names a class may not write itself to be made here (dataclasses keeps or refuses them).
_NOT_OWN = frozenset((*_OWN, *_ORDER, "__slots__"))
#: Types of plain defaults: hashable, no descriptor (the common case, tested without hasattr).
_PLAIN_DEFAULTS = frozenset({type(None), bool, int, float, str, bytes, tuple, frozenset, _Missing})


def _is_descriptor(value: Any) -> bool:
    kind = type(value)
    return kind not in _PLAIN_DEFAULTS and (hasattr(kind, "__set__") or hasattr(kind, "__delete__"))


def _spec(cls: type, repr: bool, eq: bool, order: bool, frozen: bool, kw_only: bool) -> _Spec | None:
    """The class's fields as ``dataclasses`` reads them, or None when it is left to ``dataclasses``."""
    if not _NOT_OWN.isdisjoint(cls.__dict__):
        return None
    found: dict[str, Field] = {}
    bases = cls.__mro__[1:-1]
    for base in reversed(bases):
        spec = base.__dict__.get(SPEC)
        if spec is not None:
            if spec.frozen != frozen:
                return None  # dataclasses says which way round
            found.update((f.name, f) for f in spec.fields)
        elif "__dataclass_fields__" in base.__dict__:
            return None
    annotations = cls.__dict__.get("__annotations__", {})
    dc = sys.modules.get("dataclasses")
    for name, kind in annotations.items():
        if (type(kind) is not str or "ClassVar" in kind or "InitVar" in kind or "KW_ONLY" in kind
                or name == "self" or name[:2] == "__"):
            return None
        default = getattr(cls, name, MISSING)
        if type(default) in _PLAIN_DEFAULTS:
            made = Field(default, MISSING, True, True, None, True, None, kw_only)
        else:
            if isinstance(default, Field):
                made = Field(default.default, default.default_factory, default.init, default.repr, default.hash,
                             default.compare, default.metadata, default.kw_only)
            elif dc is not None and isinstance(default, dc.Field):
                made = Field(*(MISSING if v is dc.MISSING else v for v in (default.default, default.default_factory)),
                             default.init, default.repr, default.hash, default.compare, default.metadata,
                             MISSING if default.kw_only is dc.MISSING else default.kw_only)
                if default.metadata:  # dataclasses wraps it in a mappingproxy: hand its own back
                    made.metadata = dict(default.metadata)
            else:
                made = Field(default, MISSING, True, True, None, True, None, MISSING)
            if isinstance(made.default, types.MemberDescriptorType) or made.default.__class__.__hash__ is None:
                return None
            if _is_descriptor(made.default):
                return None
            if made.kw_only is MISSING:
                made.kw_only = kw_only
        made.name, made.type = name, kind
        found[name] = made
    for name, value in cls.__dict__.items():
        if isinstance(value, Field) and name not in annotations:
            return None  # "is a field but has no type annotation"
    fields = list(found.values())
    seen_default = False
    for f in fields:
        if f.init and not f.kw_only:
            if f.default is not MISSING or f.default_factory is not MISSING:
                seen_default = True
            elif seen_default:
                return None  # "non-default argument ... follows default argument"
    if frozen:  # __init__ stores into __dict__: nothing in a base may take the assignment over (the class's own
        for klass in bases:  # attributes of these names are the defaults, tested above)
            for name in found:
                value = klass.__dict__.get(name)
                if value is not None and not isinstance(value, Field) and _is_descriptor(value):
                    return None
    return _Spec(fields, repr, eq, order, frozen)


def _make(cls: T, spec: _Spec, match_args: bool) -> T:
    for f in spec.fields:
        if isinstance(cls.__dict__.get(f.name), Field):
            if f.default is MISSING:
                delattr(cls, f.name)
            else:
                setattr(cls, f.name, f.default)
    setattr(cls, SPEC, spec)
    cls.__dataclass_fields__ = _Lazy(cls, "__dataclass_fields__")  # type: ignore[attr-defined]
    cls.__dataclass_params__ = _Lazy(cls, "__dataclass_params__")  # type: ignore[attr-defined]
    class_hash = cls.__dict__.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in cls.__dict__))
    _set(cls, _init_fn(cls, spec))
    names = spec.names
    if spec.repr:
        _set(cls, _repr_fn([f.name for f in spec.fields if f.repr]))
    if spec.eq:
        compared = _key([f.name for f in spec.fields if f.compare])
        _set(cls, _eq_fn(compared))
        for name in _ORDER if spec.order else ():
            _set(cls, _order_fn(name, compared))
    if spec.frozen:
        _set(cls, _frozen_fn("__setattr__", cls, names))
        _set(cls, _frozen_fn("__delattr__", cls, names))
    if spec.eq and not explicit_hash:  # dataclasses' table: (eq, frozen) -> a hash of the fields; (eq, mutable) -> None
        if spec.frozen:
            _set(cls, _hash_fn(_key([f.name for f in spec.fields if (f.compare if f.hash is None else f.hash)])))
        else:
            cls.__hash__ = None  # type: ignore[assignment]
    if not cls.__doc__:
        cls.__doc__ = _LazyDoc(cls)  # type: ignore[assignment]
    if match_args:
        cls.__match_args__ = tuple(f.name for f in spec.fields if f.init and not f.kw_only)  # type: ignore[attr-defined]
    return cls


class _Lazy:
    """``__dataclass_fields__`` / ``__dataclass_params__`` of a class made here, made on first use."""

    __slots__ = ("cls", "name")

    def __init__(self, cls: type, name: str) -> None:
        self.cls, self.name = cls, name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        _materialize(self.cls)
        return self.cls.__dict__[self.name]


class _LazyDoc:
    """dataclasses' docstring for a class without one: its name and signature (``inspect``), on first use."""

    __slots__ = ("cls",)

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __get__(self, obj: Any, owner: type | None = None) -> str:
        import inspect

        cls = self.cls
        try:
            text = str(inspect.signature(cls)).replace(" -> None", "")
        except (TypeError, ValueError):
            text = ""
        cls.__doc__ = cls.__name__ + text
        return cls.__doc__


def _materialize(cls: type) -> None:
    """The class's ``dataclasses.Field`` objects (a base's own for what it inherits) and params."""
    import dataclasses

    spec: _Spec = cls.__dict__[SPEC]
    if spec.real:
        return
    inherited: dict[str, Any] = {}
    for base in cls.__mro__[-2:0:-1]:
        if SPEC in base.__dict__:
            inherited.update(base.__dataclass_fields__)  # type: ignore[attr-defined]
    own = cls.__dict__.get("__annotations__", {})
    made: dict[str, Any] = {}
    for f in spec.fields:
        if f.name not in own:
            made[f.name] = inherited[f.name]
            continue
        real = f.real()
        real.name, real.type, real._field_type = f.name, f.type, dataclasses._FIELD  # type: ignore[attr-defined]
        real.kw_only = f.kw_only
        made[f.name] = real
    type.__setattr__(cls, "__dataclass_params__", dataclasses._DataclassParams(  # type: ignore[attr-defined]
        True, spec.repr, spec.eq, spec.order, False, spec.frozen))
    type.__setattr__(cls, "__dataclass_fields__", made)
    spec.real = True


def fields(class_or_instance: Any) -> tuple[Any, ...]:
    """``dataclasses.fields``."""
    import dataclasses

    return dataclasses.fields(class_or_instance)


def field_names(class_or_instance: Any) -> tuple[str, ...]:
    """``tuple(f.name for f in dataclasses.fields(class_or_instance))``; without importing ``dataclasses``
    for a class made here (or its instance)."""
    cls = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    spec = cls.__dict__.get(SPEC)
    if spec is None:
        return tuple(f.name for f in fields(class_or_instance))
    return spec.names  # type: ignore[no-any-return]


def asdict(obj: Any, *, dict_factory: Callable[..., Any] = dict) -> Any:
    """``dataclasses.asdict``."""
    import dataclasses

    return dataclasses.asdict(obj, dict_factory=dict_factory)


def replace(obj: Any, /, **changes: Any) -> Any:
    """``dataclasses.replace``: for an instance of a class made here, without importing ``dataclasses``."""
    spec = type(obj).__dict__.get(SPEC)
    if spec is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)
    for f in spec.fields:
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with replace()")
            continue
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


#: ``__init__`` code by shape: (frozen, calls __post_init__, per field (init, default factory, keyword-only)).
#: Parameters are ``a0``..., stored keys ``"\x00" + i`` (frozen) or attributes ``__f<i>__`` (mutable): a
#: class's own is this code with its field names put in (``CodeType.replace``). The package's shapes are
#: compiled in ``core/_dataclass_inits.py`` (written by ``write_inits``; loaded from its ``.pyc``): a check
#: compiles no source at all (a process's first compile also builds the ``ast`` types: ~10 ms); another
#: shape is compiled once when first met.
_INIT_CODE: dict[tuple[Any, ...], types.CodeType] = {}
#: Shapes met that ``core/_dataclass_inits.py`` lacks (compiled here).
COMPILED: set[tuple[Any, ...]] = set()


def _init_fn(cls: type, spec: _Spec) -> Callable[..., None]:
    """``__init__`` as dataclasses writes it: the parameters in its order (keyword-only ones after ``*``),
    defaults and ``<factory>``, each field stored in field order, then ``self.__post_init__()``."""
    fields = spec.fields
    post_init = hasattr(cls, "__post_init__")
    shape = (spec.frozen, post_init, tuple([(f.init, f.default_factory is not MISSING, f.kw_only) for f in fields]))
    template = _TEMPLATES.get(shape)
    if template is None:
        template = _TEMPLATES[shape] = _Template(shape)
    code, params = template.code, template.params
    names = spec.names
    code = code.replace(co_varnames=tuple([names[i] if i >= 0 else v for i, v in template.varnames]),
                        co_names=tuple([names[i] if i >= 0 else v for i, v in template.names]),
                        co_consts=tuple([names[i] if i >= 0 else v for i, v in template.consts]))
    namespace: dict[str, Any] = {"__name__": cls.__module__, "__HAS_DEFAULT_FACTORY__": _HAS_DEFAULT_FACTORY}
    defaults = []
    kwdefaults = {}
    for i in params:
        f = fields[i]
        if f.default_factory is not MISSING:
            value = _HAS_DEFAULT_FACTORY
        elif f.default is not MISSING:
            value = f.default
        else:
            continue
        if f.kw_only:
            kwdefaults[f.name] = value
        else:
            defaults.append(value)
    for i in template.factories:
        namespace[f"__d{i}__"] = fields[i].default_factory
    init = types.FunctionType(code, namespace, "__init__", tuple(defaults) or None)
    if kwdefaults:
        init.__kwdefaults__ = kwdefaults
    annotations = {names[i]: fields[i].type for i in params}
    annotations["return"] = None
    init.__annotations__ = annotations
    return init


class _Template:
    """A shape's ``__init__`` code, and where the field names go in it (index of the field, or -1)."""

    __slots__ = ("code", "params", "factories", "varnames", "names", "consts")

    def __init__(self, shape: tuple[Any, ...]) -> None:
        code = _INIT_CODE.get(shape)
        if code is None:
            code = _INIT_CODE[shape] = _init_code(shape)
        self.code = code
        self.params = _params(shape[2])
        self.factories = [i for i, (_, factory, _) in enumerate(shape[2]) if factory]
        self.varnames = [(int(v[1:]) if v[:1] == "a" and v[1:].isdigit() else -1, v) for v in code.co_varnames]
        self.names = [(int(n[3:-2]) if n[:3] == "__f" and n[3:-2].isdigit() and n[-2:] == "__" else -1, n)
                      for n in code.co_names]
        self.consts = [(int(c[1:]) if type(c) is str and c[:1] == "\x00" and c[1:].isdigit() else -1, c)
                       for c in code.co_consts]


#: Templates by shape (see ``_INIT_CODE``).
_TEMPLATES: dict[tuple[Any, ...], _Template] = {}


def _params(fields: tuple[tuple[bool, bool, bool], ...]) -> list[int]:
    """The indexes of the fields ``__init__`` takes, in its order: positional ones, then keyword-only ones."""
    return [i for i, (init, _, kw) in enumerate(fields) if init and not kw] + \
           [i for i, (init, _, kw) in enumerate(fields) if init and kw]


def _init_code(shape: tuple[Any, ...]) -> types.CodeType:
    """The shape's code: from ``core/_dataclass_inits.py`` (compiled with the package), else compiled now."""
    from edge_origin.core import _dataclass_inits

    made = _dataclass_inits.INITS.get(shape)
    if made is not None:  # as ``exec`` of the same source makes it: its name, file and lines
        return made.__code__.replace(co_name="__init__", co_qualname="__init__", co_filename="<string>",
                                     co_firstlineno=1)  # type: ignore[no-any-return]
    COMPILED.add(shape)
    namespace: dict[str, Any] = {}
    exec(init_source(shape), namespace)
    return namespace["__init__"].__code__  # type: ignore[no-any-return]


def init_source(shape: tuple[Any, ...], name: str = "__init__") -> str:
    """The source of the ``__init__`` of ``shape`` (see ``_INIT_CODE``), a function named ``name``."""
    frozen, post_init, fields = shape
    params = _params(fields)
    positional = [f"a{i}" for i in params if not fields[i][2]]
    keyword = [f"a{i}" for i in params if fields[i][2]]
    signature = "".join(f", {p}" for p in positional) + (", *" + "".join(f", {p}" for p in keyword) if keyword else "")
    body = ["    __dataclass_dict__ = self.__dict__\n"] if frozen else []
    for i, (init, factory, _) in enumerate(fields):
        if factory:
            value = f"__d{i}__() if a{i} is __HAS_DEFAULT_FACTORY__ else a{i}" if init else f"__d{i}__()"
        elif init:
            value = f"a{i}"
        else:
            continue  # no init, no factory: the class attribute (its default) is what reading it gives
        body.append(f"    __dataclass_dict__['\\x00{i}'] = {value}\n" if frozen else f"    self.__f{i}__ = {value}\n")
    if post_init:
        body.append("    self.__post_init__()\n")
    if len(body) == (1 if frozen else 0):
        body.append("    pass\n")
    return f"def {name}(self{signature}):\n{''.join(body)}"


def package_modules() -> list[str]:
    """The package's modules that make classes with this module's ``dataclass``."""
    import re
    from pathlib import Path

    package = Path(__file__).resolve().parents[1]
    return [".".join(source.relative_to(package.parent).with_suffix("").parts).removesuffix(".__init__")
            for source in sorted(package.rglob("*.py"))
            if re.search(r"^from edge_origin\.core\.fast_dataclass import .*\bdataclass\b", source.read_text("utf-8"), re.M)]


def write_inits(path: str) -> int:
    """Write ``core/_dataclass_inits.py``: the ``__init__`` of every shape the package's classes have (each
    module that imports this one's ``dataclass`` is imported). Returns the number of shapes."""
    import importlib
    from pathlib import Path

    for module in package_modules():
        importlib.import_module(module)
    shapes = sorted(_INIT_CODE, key=repr)
    lines = ['"""The ``__init__`` code of every shape of dataclass the package makes (``edge_origin.core.fast_dataclass``:',
             "generated by its ``write_inits``; tests/core/test_fast_dataclass.py says when it is out of date). Loaded from",
             'this module\'s ``.pyc``, they spare a check every compile of source (issue 53)."""', "", "# ruff: noqa", ""]
    for n, shape in enumerate(shapes):
        lines += ["", init_source(shape, f"_{n}").rstrip("\n"), ""]
    lines += ["", "INITS = {"] + [f"    {shape!r}: _{n}," for n, shape in enumerate(shapes)] + ["}", ""]
    Path(path).write_text("\n".join(lines), encoding="utf-8")
    return len(shapes)


def _frozen_fn(which: str, cls: type, fields: tuple[str, ...]) -> Callable[..., None]:
    if which == "__setattr__":
        def __setattr__(self: Any, name: str, value: Any) -> None:
            if type(self) is cls or name in fields:
                from dataclasses import FrozenInstanceError

                raise FrozenInstanceError(f"cannot assign to field {name!r}")
            super(cls, self).__setattr__(name, value)

        return __setattr__

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in fields:
            from dataclasses import FrozenInstanceError

            raise FrozenInstanceError(f"cannot delete field {name!r}")
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
