"""``edge_origin.core.fast_dataclass.dataclass`` makes the class ``dataclasses.dataclass`` makes (issue 53):
every class of the package made with it, and generated ones, against a twin made by ``dataclasses``
from the same fields and options: fields, params, signature, ``__match_args__``, and what repr, ==,
!=, hash and frozen assignment give on the same values (NaN by identity and not, None, tuples)."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
import operator
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.core import fast_dataclass
from edge_origin.core.fast_dataclass import dataclass

PKG = Path(fast_dataclass.__file__).resolve().parents[1]
FAST = "edge_origin.core.fast_dataclass"


def _modules_using_it() -> list[str]:
    out = []
    for path in sorted(PKG.rglob("*.py")):
        if re.search(rf"^from {re.escape(FAST)} import .*\bdataclass\b", path.read_text(encoding="utf-8"), re.M):
            rel = path.relative_to(PKG.parent).with_suffix("")
            out.append(".".join(rel.parts).removesuffix(".__init__"))
    return out


def _classes() -> list[type]:
    found = []
    for name in _modules_using_it():
        module = importlib.import_module(name)
        found += [c for c in vars(module).values()
                  if isinstance(c, type) and c.__module__ == name and dataclasses.is_dataclass(c)]
    return found


CLASSES = _classes()


def _twin(cls: type) -> type:
    """``cls`` as ``dataclasses.dataclass`` makes it: the same fields (fresh Field objects), options, names."""
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    specs = []
    for f in dataclasses.fields(cls):
        kwargs: dict[str, Any] = {"repr": f.repr, "hash": f.hash, "compare": f.compare, "metadata": f.metadata,
                                  "kw_only": f.kw_only, "init": f.init}
        if f.default is not dataclasses.MISSING:
            kwargs["default"] = f.default
        if f.default_factory is not dataclasses.MISSING:
            kwargs["default_factory"] = f.default_factory
        specs.append((f.name, f.type, dataclasses.field(**kwargs)))
    twin = dataclasses.make_dataclass(
        cls.__name__, specs, bases=cls.__bases__, init=params.init, repr=params.repr, eq=params.eq, order=params.order,
        unsafe_hash=params.unsafe_hash, frozen=params.frozen, match_args=hasattr(cls, "__match_args__"),
        namespace={"__module__": cls.__module__, "__qualname__": cls.__qualname__,
                   **({"__post_init__": cls.__dict__["__post_init__"]} if "__post_init__" in cls.__dict__ else {})},
    )
    return twin


def _instance(cls: type, values: dict[str, Any]) -> Any:
    obj = object.__new__(cls)
    for name, value in values.items():
        object.__setattr__(obj, name, value)
    return obj


NAN = float("nan")
POOL: list[Any] = [None, 0, 1, "a", NAN, (1, "x"), 2.5]


def _outcome(fn: Any) -> tuple[str, Any]:
    try:
        return "ok", fn()
    except Exception as exc:  # noqa: BLE001 - the same exception and message are the expectation
        return "raised", (type(exc), str(exc))


def _same_behaviour(cls: type, twin: type, first: dict[str, Any], second: dict[str, Any]) -> None:
    a1, a2, b1, b2 = _instance(cls, first), _instance(cls, second), _instance(twin, first), _instance(twin, second)
    if twin.__repr__ is object.__repr__:  # repr=False: object's, both
        assert cls.__repr__ is object.__repr__
    else:
        assert repr(a1) == repr(b1) and repr(a2) == repr(b2)
    assert (a1 == a2) == (b1 == b2) and (a1 != a2) == (b1 != b2) and (a1 == a1) == (b1 == b1)
    assert (a1.__eq__(object()) is NotImplemented) == (b1.__eq__(object()) is NotImplemented)
    for op in (operator.lt, operator.le, operator.gt, operator.ge):  # order=True, or TypeError both
        assert _outcome(lambda: op(a1, a2)) == _outcome(lambda: op(b1, b2)), op  # noqa: B023
    if twin.__hash__ is object.__hash__:  # eq=False: hashed by identity, both
        assert cls.__hash__ is object.__hash__
    else:
        assert _outcome(lambda: hash(a1)) == _outcome(lambda: hash(b1))
    names = [f.name for f in dataclasses.fields(cls)]
    if names:
        assert _outcome(lambda: setattr(a1, names[0], 7)) == _outcome(lambda: setattr(b1, names[0], 7))
        assert _outcome(lambda: delattr(a2, names[-1])) == _outcome(lambda: delattr(b2, names[-1]))
    # a name that is no field: refused on a frozen class's own instances too
    assert _outcome(lambda: setattr(a1, "not_a_field", 7)) == _outcome(lambda: setattr(b1, "not_a_field", 7))
    assert _outcome(lambda: delattr(a1, "not_a_field")) == _outcome(lambda: delattr(b1, "not_a_field"))


def _same_init(cls: type, twin: type, args: list[Any]) -> None:
    """``cls(*args)`` and ``twin(*args)``: the same exception, or instances with the same attributes."""
    made, expected = _outcome(lambda: cls(*args)), _outcome(lambda: twin(*args))
    if made[0] == "raised" or expected[0] == "raised":
        assert made == expected
    else:
        assert vars(made[1]) == vars(expected[1]) or repr(vars(made[1])) == repr(vars(expected[1]))


def _same_shape(cls: type, twin: type, documented: bool = True) -> None:
    assert [(f.name, f.type, f.repr, f.hash, f.compare, f.kw_only, f.init) for f in dataclasses.fields(cls)] == \
        [(f.name, f.type, f.repr, f.hash, f.compare, f.kw_only, f.init) for f in dataclasses.fields(twin)]
    for option in ("init", "repr", "eq", "order", "unsafe_hash", "frozen"):
        assert getattr(cls.__dataclass_params__, option) == getattr(twin.__dataclass_params__, option), option
    if getattr(cls.__init__, "__annotations__", None):
        assert str(inspect.signature(cls)) == str(inspect.signature(twin))
        assert cls.__init__.__qualname__ == twin.__init__.__qualname__
    else:  # parameters, kinds and defaults (answers.types.fills_dict writes an __init__ without annotations)
        assert [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()] == \
            [(p.name, p.kind, p.default) for p in inspect.signature(twin).parameters.values()]
    if not documented or (cls.__doc__ or "").startswith(cls.__name__ + "("):  # dataclasses' docstring for a class without one
        assert cls.__doc__ == twin.__doc__
    assert getattr(cls, "__match_args__", None) == getattr(twin, "__match_args__", None)
    assert (cls.__hash__ is None) == (twin.__hash__ is None)


def test_the_check_path_makes_its_dataclasses_here() -> None:
    """The classes a check creates at start-up take the cheap path (their repr is this module's)."""
    fast = [c for c in CLASSES if getattr(c.__repr__, "__module__", "") == FAST]
    assert len(fast) >= 60, (len(fast), [c for c in CLASSES if c not in fast])
    assert {"edge_origin.answers.types", "edge_origin.model.views", "edge_origin.core.findings"} <= {c.__module__ for c in fast}


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__}.{c.__qualname__}")
def test_every_class_made_here_is_the_one_dataclasses_makes(cls: type) -> None:
    twin = _twin(cls)
    _same_shape(cls, twin)
    names = [f.name for f in dataclasses.fields(cls)]
    base = {n: POOL[i % len(POOL)] for i, n in enumerate(names)}
    _same_behaviour(cls, twin, base, dict(base))
    _same_behaviour(cls, twin, {n: NAN for n in names}, {n: NAN for n in names})  # the same NaN: equal by identity
    _same_behaviour(cls, twin, {n: float("nan") for n in names}, {n: float("nan") for n in names})
    for i, name in enumerate(names):
        _same_behaviour(cls, twin, base, {**base, name: POOL[(i + 3) % len(POOL)]})
    positional = [f.name for f in dataclasses.fields(cls) if f.init and not f.kw_only]
    _same_init(cls, twin, [base[n] for n in positional])
    _same_init(cls, twin, [base[n] for n in positional][:1])


# --- the helper itself, on classes made for the test -------------------------------------------
_MODULE = types.ModuleType("fast_dataclass_probe")
sys.modules[_MODULE.__name__] = _MODULE

FIELD = st.fixed_dictionaries({"repr": st.booleans(), "compare": st.booleans(), "hash": st.sampled_from([None, True, False])})


def _made(decorator: Any, specs: list[dict[str, Any]], plain: int = -1, **options: Any) -> type:
    """A class of ``len(specs)`` fields; ``plain`` >= 0: plain fields instead (``f0: Any`` for the first
    ``plain`` of them, ``= None`` for the rest), as most classes of the package write them."""
    annotations = {f"f{i}": "Any" for i in range(len(specs))}
    if plain >= 0:
        body = {f"f{i}": None for i in range(plain, len(specs))}
    else:
        body = {f"f{i}": dataclasses.field(default=None, **spec) for i, spec in enumerate(specs)}
    cls = type("Probe", (), {"__annotations__": annotations, "__module__": _MODULE.__name__, "__qualname__": "Probe", **body})
    return decorator(**options)(cls)


@settings(max_examples=60, deadline=None)
@given(specs=st.lists(FIELD, max_size=4), plain=st.integers(-1, 4), frozen=st.booleans(), eq=st.booleans(),
       repr_=st.booleans(), order=st.booleans(), kw_only=st.booleans(),
       values=st.lists(st.sampled_from(POOL), min_size=8, max_size=8))
def test_generated_classes_behave_as_dataclasses_makes_them(
    specs: list[dict[str, Any]], plain: int, frozen: bool, eq: bool, repr_: bool, order: bool, kw_only: bool,
    values: list[Any],
) -> None:
    plain = min(plain, len(specs))
    options = {"frozen": frozen, "eq": eq, "repr": repr_, "order": order, "kw_only": kw_only}
    if order and not eq:  # dataclasses refuses it; so does this
        assert _outcome(lambda: _made(dataclass, specs, plain, **options)) == \
            _outcome(lambda: _made(dataclasses.dataclass, specs, plain, **options))
        return
    cls, twin = _made(dataclass, specs, plain, **options), _made(dataclasses.dataclass, specs, plain, **options)
    _same_shape(cls, twin, documented=False)
    if not kw_only:
        _same_init(cls, twin, values[: len(specs)])
        _same_init(cls, twin, values[: max(plain, 0)])
    first = {f"f{i}": values[i] for i in range(len(specs))}
    second = {f"f{i}": values[4 + i] for i in range(len(specs))}
    _same_behaviour(cls, twin, first, second)
    _same_behaviour(cls, twin, first, dict(first))


def test_a_recursive_repr_says_dots_as_dataclasses_does() -> None:
    cls, twin = _made(dataclass, [{}]), _made(dataclasses.dataclass, [{}])
    a, b = cls(), twin()
    a.f0, b.f0 = [a], [b]
    assert repr(a) == repr(b) == "Probe(f0=[...])"


def test_other_options_and_own_methods_are_left_to_dataclasses() -> None:
    """unsafe_hash, slots, init=False, a class's own __eq__: the class dataclasses makes, unchanged."""
    for options in ({"unsafe_hash": True}, {"slots": True}, {"init": False}):
        cls = _made(dataclass, [{}], **options)
        assert getattr(cls.__repr__, "__module__", "") != FAST, options
        _same_shape(cls, _made(dataclasses.dataclass, [{}], **options))

    class Own:
        __module__ = _MODULE.__name__
        f0: int = 0

        def __eq__(self, other: object) -> bool:
            return True

    made = dataclass(frozen=True)(Own)
    assert made(1) == made(2) and getattr(made.__repr__, "__module__", "") != FAST
    assert math.isnan(NAN)  # the pool's NaN is a NaN (its identity is what the tests rely on)


def test_a_field_without_default_after_one_with_is_refused_as_dataclasses_refuses_it() -> None:
    def bad(decorator: Any) -> Any:
        class Bad:
            __module__ = _MODULE.__name__
            __annotations__ = {"a": "int", "b": "int"}
            a = 1

        return _outcome(lambda: decorator(frozen=True)(Bad))

    assert bad(dataclass) == bad(dataclasses.dataclass) == ("raised", (TypeError, "non-default argument 'b' follows default argument"))



# --- fields with factories, init=False, keyword-only, a base class, __post_init__: made without dataclasses ---
KIND = st.sampled_from(["required", "none", "factory", "noinit-default", "noinit-factory"])
KW = st.sampled_from([None, True, False])


def _spec_field(module: Any, kind: str, kw_only: bool | None) -> Any:
    extra: dict[str, Any] = {} if kw_only is None else {"kw_only": kw_only}
    if kind == "required":
        return module.field(**extra)
    if kind == "none":
        return module.field(default=None, **extra)
    if kind == "factory":
        return module.field(default_factory=list, **extra)
    if kind == "noinit-default":
        return module.field(default=0, init=False, **extra)
    return module.field(default_factory=dict, init=False, **extra)


def _made_with(module: Any, kinds: list[tuple[str, bool | None]], base: list[tuple[str, bool | None]] | None,
               post_init: bool, **options: Any) -> type:
    """A class whose fields are ``kinds`` (with ``module.field``), on a base of ``base``'s fields (or none),
    both made by ``module.dataclass`` (fast_dataclass or dataclasses)."""
    parents: tuple[type, ...] = ()
    if base is not None:
        body = {f"b{i}": _spec_field(module, k, kw) for i, (k, kw) in enumerate(base)}
        made = type("Base", (), {"__annotations__": {f"b{i}": "Any" for i in range(len(base))},
                                 "__module__": _MODULE.__name__, "__qualname__": "Base", **body})
        parents = (module.dataclass(**options)(made),)
    body = {f"f{i}": _spec_field(module, k, kw) for i, (k, kw) in enumerate(kinds)}
    if post_init:
        def __post_init__(self: Any) -> None:
            self.__dict__["seen"] = True

        body["__post_init__"] = __post_init__
    cls = type("Probe", parents, {"__annotations__": {f"f{i}": "Any" for i in range(len(kinds))},
                                  "__module__": _MODULE.__name__, "__qualname__": "Probe", **body})
    return module.dataclass(**options)(cls)  # type: ignore[no-any-return]


@settings(max_examples=50, deadline=None)
@given(kinds=st.lists(st.tuples(KIND, KW), max_size=4), base=st.none() | st.lists(st.tuples(KIND, KW), max_size=2),
       post_init=st.booleans(), frozen=st.booleans(), eq=st.booleans(), kw_only=st.booleans(),
       values=st.lists(st.sampled_from(POOL), min_size=6, max_size=6))
def test_factories_init_false_keyword_only_and_bases_as_dataclasses_makes_them(
    kinds: list[tuple[str, bool | None]], base: list[tuple[str, bool | None]] | None, post_init: bool, frozen: bool,
    eq: bool, kw_only: bool, values: list[Any],
) -> None:
    options = {"frozen": frozen, "eq": eq, "kw_only": kw_only}
    made = _outcome(lambda: _made_with(fast_dataclass, kinds, base, post_init, **options))
    twin = _outcome(lambda: _made_with(dataclasses, kinds, base, post_init, **options))
    if made[0] == "raised" or twin[0] == "raised":  # a field without a default after one with: the same refusal
        assert made == twin
        return
    cls, twin_cls = made[1], twin[1]
    assert "dataclasses" not in getattr(cls.__init__, "__module__", "") and cls.__repr__.__module__ == FAST
    _same_shape(cls, twin_cls, documented=False)
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    given_values = dict(zip(names, values, strict=False))
    for kwargs in (given_values, {n: v for n, v in given_values.items() if n.startswith("f")}):
        a, b = _outcome(lambda: cls(**kwargs)), _outcome(lambda: twin_cls(**kwargs))  # noqa: B023
        assert a[0] == b[0], (a, b)
        if a[0] == "raised":
            assert a[1][0] is b[1][0] and a[1][1].replace("Base.", "").replace("Probe.", "") == \
                b[1][1].replace("Base.", "").replace("Probe.", ""), (a, b)
            continue
        assert repr(vars(a[1])) == repr(vars(b[1]))
        assert list(vars(a[1])) == list(vars(b[1]))  # the same fields stored, in the same order
        assert fast_dataclass.asdict(a[1]) == dataclasses.asdict(b[1])
        changed = {names[0]: "changed"} if names else {}
        assert repr(vars(fast_dataclass.replace(a[1], **changed))) == repr(vars(dataclasses.replace(b[1], **changed)))
        _same_behaviour(cls, twin_cls, vars(a[1]), vars(b[1]))


def test_a_class_made_here_imports_no_dataclasses_until_its_fields_are_asked_for() -> None:
    """Making a class, its instances, repr, ==, hash, replace and frozen assignment need no ``dataclasses``
    (nor ``inspect``); ``dataclasses.fields`` then sees the Field objects ``dataclasses`` would have made."""
    probe = """
from __future__ import annotations
import sys
from edge_origin.core.fast_dataclass import dataclass, field, replace
@dataclass(frozen=True, order=True)
class A:
    x: int
    y: list = field(default_factory=list, compare=False)
@dataclass
class B:
    a: A
    n: int = 0
a = A(1); b = B(a)
assert a == A(1, [2]) and hash(a) == hash(A(1)) and a < A(2) and repr(b) == "B(a=A(x=1, y=[]), n=0)"
assert replace(a, x=3).x == 3 and replace(b, n=2).n == 2
print(sorted({"dataclasses", "inspect"} & set(sys.modules)))
try:
    a.x = 2
except Exception as exc:
    assert type(exc).__name__ == "FrozenInstanceError"
"""
    import subprocess

    env = {"PYTHONPATH": str(PKG.parent), "PATH": ""}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_the_fields_and_params_made_on_first_use_are_dataclasses_own() -> None:
    @dataclass(frozen=True)
    class Base:
        __module__ = _MODULE.__name__
        a: int
        b: Any = fast_dataclass.field(default=None, repr=False, metadata={"k": 1})

    @dataclass(frozen=True)
    class Child(Base):
        __module__ = _MODULE.__name__
        c: int = 3

    assert [f.name for f in dataclasses.fields(Child)] == ["a", "b", "c"]
    assert dataclasses.fields(Child)[0] is dataclasses.fields(Base)[0]  # inherited: the base's own Field, as dataclasses
    assert dataclasses.fields(Base)[1].metadata["k"] == 1 and not dataclasses.fields(Base)[1].repr
    assert Child.__dataclass_params__.frozen and dataclasses.is_dataclass(Child(1))
    assert dataclasses.asdict(Child(1)) == {"a": 1, "b": None, "c": 3}
    assert Child.__doc__ == "Child(a: 'int', b: 'Any' = None, c: 'int' = 3)"


def test_no_class_keeps_a_field_of_this_module_as_its_default() -> None:
    """``fast_dataclass.field`` is for classes made here: a class made by ``dataclasses`` itself would
    keep it as a plain default. Every module importing it makes its classes here."""
    modules = _modules_using_it()
    assert modules  # the loop below ran
    for name in modules:
        module = importlib.import_module(name)
        for cls in vars(module).values():
            if isinstance(cls, type) and cls.__module__ == name:
                assert not any(isinstance(v, fast_dataclass.Field) for v in vars(cls).values()), cls


def test_the_package_s_inits_are_precompiled_and_current() -> None:
    """Every shape of class the package makes finds its ``__init__`` in core/_dataclass_inits.py (a check
    compiles no source: issue 53). Out of date: ``python -c "from edge_origin.core import fast_dataclass as f;
    f.write_inits('constructs/edge_origin/core/_dataclass_inits.py')"``."""
    import subprocess

    probe = """
import importlib
from edge_origin.core import fast_dataclass as f
for module in f.package_modules():
    importlib.import_module(module)
print(len(f._INIT_CODE), sorted(map(repr, f.COMPILED)))
"""
    env = {"PYTHONPATH": str(PKG.parent), "PATH": ""}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=120, check=True)
    count, compiled = out.stdout.split(" ", 1)
    assert int(count) >= 30 and compiled.strip() == "[]", out.stdout


def test_each_precompiled_init_is_the_code_its_source_compiles_to() -> None:
    from edge_origin.core import _dataclass_inits

    assert _dataclass_inits.INITS  # the loop below ran
    for shape, function in _dataclass_inits.INITS.items():
        namespace: dict[str, Any] = {}
        exec(fast_dataclass.init_source(shape), namespace)  # noqa: S102 - the generator's own text
        made, expected = fast_dataclass._init_code(shape), namespace["__init__"].__code__  # noqa: SLF001
        assert function.__name__.startswith("_")
        for attr in ("co_code", "co_consts", "co_names", "co_varnames", "co_argcount", "co_kwonlyargcount", "co_name",
                     "co_qualname", "co_filename", "co_firstlineno", "co_linetable"):
            assert getattr(made, attr) == getattr(expected, attr), (shape, attr)
