"""A rehearsal verdict with its uncertainty: "pile-up", "spread" or "inconclusive" from where a
measured max/mean falls between the two distributions the plan's own semantics imply.

The two hypotheses, for the plan's addresses (its answers, drawn by the answer model), the
resolvers (the edges' caches, or one shared recursive resolver), the clients behind each and the
client's lb policy:

- **pile-up**, one address per resolver for its TTL (weighted, and any one-address answer; a
  multivalue answer taken in order by pick_first): every client behind a resolver lands on the
  first address of that resolver's one answer;
- **spread**, up to 8 addresses per answer, shuffled per client (multivalue with gRPC's
  ``shuffleAddressList``): each client behind a resolver lands on one address of that resolver's
  answer at random (round_robin: on all of them); an answer of one address is drawn per client.

Two figures are judged: max/mean connections per origin over the whole burst (what the model and
``watch`` see too), and, where the clients' resolvers are known, max/mean among the clients behind
each resolver (averaged over the resolvers with two or more clients): the second tells the
mechanism apart at any number of edges, the first only where the edges are few enough that one
address per resolver cannot come out even by chance. Each figure's distribution under both
hypotheses is a seeded Monte Carlo (numpy); a figure calls "spread" when a pile-up plan gives a
value this low at most :data:`ALPHA` of the time (the probability of a wrong call printed), "pile-up"
when a spread plan gives one this high at most that often, and "inconclusive" otherwise. The
per-resolver figure's call is the verdict when it makes one; else the overall figure's.

:func:`balanced_tail` is the spread side alone, in pure Python (no numpy), for ``watch``'s samples.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

    from edge_origin.rehearsal.plan import DnsPlan

SPREAD, PILE_UP, INCONCLUSIVE = "spread", "pile-up", "inconclusive"
#: A figure calls a side only when the other side gives a value at least this extreme at most this often.
ALPHA = 0.01
#: Monte Carlo trials per hypothesis (fewer when resolvers x addresses are many; at least MIN_TRIALS).
TRIALS = 4000
MIN_TRIALS = 1000
CELL_BUDGET = 1_500_000  # trials x resolvers x addresses held at once
POOL = 1024  # answers drawn from the answer model per shape (weights within ~1.5 %)
SEED = 54  # the distributions are a property of the shape: one fixed seed, the same verdict for the same figures
PLAUSIBLE = 0.001  # model compare: the side called must give the measured value at least this often
TOLERANCE = 0.01  # relative slack on a measured figure (a connection or two of loopback noise)
#: --edges values tried for "use --edges M" (the loopback's edge addresses run 1..254).
EDGE_CANDIDATES = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 50, 64, 80, 100, 128, 160, 200, 254)


@dataclass(frozen=True)
class Shape:
    """What the distributions depend on: the answers (origin indices, answer order), the clients
    behind each resolver, and whether a client connects to every address (round_robin)."""

    keys: tuple[str, ...]
    answers: tuple[tuple[int, ...], ...]
    per_resolver: tuple[int, ...]
    round_robin: bool = False

    @property
    def clients(self) -> int:
        return sum(self.per_resolver)

    @property
    def one_address(self) -> bool:
        """Every answer holds one address (weighted): a spread client draws its own answer."""
        return all(len(a) == 1 for a in self.answers)


def clients_per_resolver(clients: int, edges: int, shared: bool = False) -> tuple[int, ...]:
    """Client i uses edge i % edges; ``shared``: every edge asks one recursive resolver (its cache is the one)."""
    if shared:
        return (clients,)
    edges = max(1, min(edges, clients))
    return tuple(clients // edges + (1 if e < clients % edges else 0) for e in range(edges))


def plan_shape(plan: DnsPlan, per_resolver: Sequence[int], policy: str, seed: int = SEED, pool: int = POOL) -> Shape:
    """The shape of ``plan``: ``pool`` answers drawn by the answer model (all records healthy, as at the burst)."""
    from edge_origin.rehearsal.answers import select_answer

    keys = tuple(plan.origin_keys)
    index = {k: i for i, k in enumerate(keys)}
    records = plan.answer_records()
    rng = random.Random(seed)
    answers = []
    for _ in range(pool):
        answer = tuple(index[k] for k in select_answer(records, rng=rng) if k in index)
        if answer:
            answers.append(answer)
    if not answers:
        raise ValueError(f"{plan.name}: no answer to judge")
    return Shape(keys, tuple(answers), tuple(int(n) for n in per_resolver), policy == "round_robin")


def expected_verdict(shape: Shape, policy: str, rotation: bool) -> str:
    """What the plan's own semantics imply: one address per resolver (pile-up) or per client (spread)."""
    if shape.one_address or (policy == "pick_first" and not rotation):
        return PILE_UP
    return SPREAD


# --- the two distributions ------------------------------------------------------------------------
def _trials(shape: Shape, trials: int) -> int:
    cells = max(1, len(shape.per_resolver) * len(shape.keys))
    return max(MIN_TRIALS, min(trials, CELL_BUDGET // cells))


def _padded(shape: Shape) -> np.ndarray:
    import numpy as np

    width = max(len(a) for a in shape.answers)
    table = np.full((len(shape.answers), width), -1, dtype=np.int64)
    for i, a in enumerate(shape.answers):
        table[i, : len(a)] = a
    return table


def simulate(shape: Shape, trials: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Per-resolver connection counts, ``(trials, resolvers, addresses)``, under each hypothesis."""
    import numpy as np

    table = _padded(shape)
    lengths = (table >= 0).sum(axis=1)
    n = np.asarray(shape.per_resolver, dtype=np.int64)
    k = len(shape.keys)
    t, r = trials, len(n)
    pile = np.zeros((t, r, k), dtype=np.int64)
    picked = rng.integers(0, len(table), size=(t, r))
    np.put_along_axis(pile, table[picked, 0][..., None], np.broadcast_to(n, (t, r))[..., None], axis=2)
    picked = rng.integers(0, len(table), size=(t, r))
    if shape.one_address:  # each client draws its own answer: the answer model's marginal
        spread = np.zeros((t, r, k), dtype=np.int64)
        q = np.bincount(table[:, 0], minlength=k) / len(table)
        for value in np.unique(n):
            cols = np.nonzero(n == value)[0]
            spread[:, cols, :] = rng.multinomial(int(value), q, size=(t, len(cols)))
        return {PILE_UP: pile, SPREAD: spread}
    flat: list[np.ndarray] = []
    weights: list[np.ndarray] = []
    if shape.round_robin:  # a client connects to every address of its resolver's answer
        for j in range(table.shape[1]):
            addr = table[picked, j]
            tt, rr = np.nonzero(addr >= 0)
            flat.append((tt * r + rr) * k + addr[tt, rr])
            weights.append(n[rr])
    else:
        for width in np.unique(lengths):
            for value in np.unique(n):
                tt, rr = np.nonzero((lengths[picked] == width) & (n[None, :] == value))
                if not len(tt):
                    continue
                draws = rng.multinomial(int(value), [1.0 / width] * int(width), size=len(tt))
                addrs = table[picked[tt, rr], :width]
                for j in range(int(width)):
                    flat.append((tt * r + rr) * k + addrs[:, j])
                    weights.append(draws[:, j])
    spread = np.bincount(np.concatenate(flat), weights=np.concatenate(weights), minlength=t * r * k)
    spread = spread.reshape(t, r, k).astype(np.int64)
    return {PILE_UP: pile, SPREAD: spread}


def overall_ratio(counts: np.ndarray) -> np.ndarray:
    """max/mean connections per address over the burst (zeros count), per trial."""
    import numpy as np

    totals = counts.sum(axis=1).astype(float)
    mean = totals.sum(axis=1) / totals.shape[1]
    return np.divide(totals.max(axis=1), mean, out=np.zeros_like(mean), where=mean > 0)


def resolver_ratio(counts: np.ndarray, per_resolver: Sequence[int]) -> np.ndarray | None:
    """Mean over the resolvers with two or more clients of max/mean among their clients; None if none has."""
    import numpy as np

    n = np.asarray(per_resolver)
    cols = np.nonzero(n >= 2)[0]
    if not len(cols):
        return None
    sub = counts[:, cols, :].astype(float)
    k = counts.shape[2]
    return (sub.max(axis=2) / (n[cols][None, :] / k)).mean(axis=1)


# --- one figure's call ----------------------------------------------------------------------------
@dataclass(frozen=True)
class FigureCall:
    """One figure judged: the measured value, how often each hypothesis gives a value at least this
    far toward the other (``pile_tail``: a pile-up plan this low or lower; ``spread_tail``: a spread
    plan this high or higher), the call and its probability of being wrong."""

    figure: str
    measured: float
    pile_tail: float
    spread_tail: float
    call: str
    p_wrong: float | None
    trials: int
    pile_range: tuple[float, float]  # the middle 98 % of each distribution
    spread_range: tuple[float, float]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _tails(measured: np.ndarray, pile: np.ndarray, spread: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    ps, ss = np.sort(pile), np.sort(spread)
    slack = tolerance * np.abs(measured)
    a = np.searchsorted(ps, measured + slack, side="right") / len(ps)
    b = 1.0 - np.searchsorted(ss, measured - slack, side="left") / len(ss)
    return a, b


def figure_calls(measured: np.ndarray, pile: np.ndarray, spread: np.ndarray, alpha: float = ALPHA,
                 floor: float = 0.0, tolerance: float = TOLERANCE) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per measured value: the call (1 spread, -1 pile-up, 0 inconclusive) and the two tails.

    The side whose tail is at most ``alpha`` (and the smaller) is rejected, if the other side gives
    such a value at least ``floor`` of the time (``model compare`` sets one: after a kill, a
    re-resolution wave gives values neither mechanism gives). A value in the gap between the two,
    beyond every draw of both (both tails 0), goes to the nearer side: below the midpoint of the spread
    side's ``1 - alpha`` quantile and the pile-up side's ``alpha`` quantile, spread.
    """
    import numpy as np

    measured = np.asarray(measured, dtype=float)
    a, b = _tails(measured, pile, spread, tolerance)
    spread_call = (a <= alpha) & (a < b) & (b >= floor)
    pile_call = (b <= alpha) & (b < a) & (a >= floor)
    gap = (a == b) & (a <= alpha) & (a >= floor)
    mid = (float(np.quantile(spread, 1 - alpha)) + float(np.quantile(pile, alpha))) / 2
    spread_call |= gap & (measured < mid)
    pile_call |= gap & (measured >= mid)
    return np.where(spread_call, 1, np.where(pile_call, -1, 0)), a, b


def judge_figure(figure: str, measured: float, pile: np.ndarray, spread: np.ndarray,
                 alpha: float = ALPHA, tolerance: float = TOLERANCE, floor: float = 0.0) -> FigureCall:
    """One measured figure against its two sampled distributions."""
    import numpy as np

    codes, a, b = figure_calls(np.asarray([measured], dtype=float), pile, spread, alpha, floor, tolerance)
    call = {1: SPREAD, -1: PILE_UP, 0: INCONCLUSIVE}[int(codes[0])]
    p = None if call == INCONCLUSIVE else float(a[0] if call == SPREAD else b[0])
    q = (alpha, 1 - alpha)
    return FigureCall(figure, round(float(measured), 4), round(float(a[0]), 5), round(float(b[0]), 5), call,
                      None if p is None else round(p, 5), len(pile),
                      tuple(round(float(x), 3) for x in np.quantile(pile, q)),  # type: ignore[arg-type]
                      tuple(round(float(x), 3) for x in np.quantile(spread, q)))  # type: ignore[arg-type]


def combine(calls: Sequence[FigureCall]) -> tuple[str, float | None]:
    """The verdict of the figures: the per-resolver figure's call when it makes one (it sees the
    mechanism itself: do the clients behind one resolver land together?), else the overall figure's."""
    by_name = {c.figure: c for c in calls}
    for name in FIGURE_ORDER:
        c = by_name.get(name)
        if c is not None and c.call != INCONCLUSIVE:
            return c.call, c.p_wrong
    return INCONCLUSIVE, None


FIGURE_ORDER = ("per_resolver", "overall")


# --- the whole verdict ----------------------------------------------------------------------------
@dataclass
class Verdict:
    """The rehearsal's verdict: the call, its probability of being wrong, each figure, the advice."""

    verdict: str
    p_wrong: float | None
    figures: list[FigureCall]
    expected: str
    resolvers: int
    clients: int
    edges_advice: int | None = None
    reason: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict, "p_wrong": self.p_wrong, "expected": self.expected, "resolvers": self.resolvers,
            "clients": self.clients, "edges_advice": self.edges_advice, "reason": self.reason, "alpha": ALPHA,
            "notes": self.notes,
            "figures": [f.to_dict() for f in self.figures],
        }

    def text(self) -> str:
        """One line: the call and its odds, or why nothing could be called."""
        if self.verdict == INCONCLUSIVE:
            return f"verdict: inconclusive: {self.reason}"
        p = self.p_wrong or 0.0
        trials = min(f.trials for f in self.figures)
        odds = f"< {1 / trials:.4f}" if p <= 0 else f"{p:.4f}"
        return f"verdict: {self.verdict} (probability of a wrong call {odds}; the plan's semantics: {self.expected})"


def figure_samples(shape: Shape, trials: int, rng: np.random.Generator) -> dict[str, dict[str, np.ndarray]]:
    """figure -> hypothesis -> sampled values (the per-resolver figure only when a resolver has 2+ clients
    and a client holds one connection)."""
    counts = simulate(shape, trials, rng)
    out = {"overall": {h: overall_ratio(c) for h, c in counts.items()}}
    if not shape.round_robin or shape.one_address:
        per = {h: resolver_ratio(c, shape.per_resolver) for h, c in counts.items()}
        if all(v is not None for v in per.values()):
            out["per_resolver"] = per  # type: ignore[assignment]
    return out


def judge(shape: Shape, measured: Mapping[str, float | None], *, policy: str, rotation: bool = False,
          edges: int | None = None, shared: bool = False, alpha: float = ALPHA, trials: int = TRIALS,
          seed: int = SEED, advise: bool = True, floor: float = 0.0) -> Verdict:
    """The verdict for measured figures (``overall``, optionally ``per_resolver``) of a run of ``shape``."""
    import numpy as np

    rng = np.random.default_rng(seed)
    samples = figure_samples(shape, _trials(shape, trials), rng)
    calls = [judge_figure(name, float(value), samples[name][PILE_UP], samples[name][SPREAD], alpha, floor=floor)
             for name, value in measured.items() if value is not None and value > 0 and name in samples]
    call, p = combine(calls)
    result = Verdict(call, p, calls, expected_verdict(shape, policy, rotation), len(shape.per_resolver), shape.clients)
    if not calls:  # max/mean 0: no connection on these origins
        result.reason = "no connections to judge"
        return result
    others = [c for c in calls if c.call not in (INCONCLUSIVE, call)]
    if call != INCONCLUSIVE and others:
        result.notes.append("; ".join(f"the {c.figure} max/mean alone would say {c.call} (probability of a wrong call "
                                      f"{c.p_wrong:.4f})" for c in others))
    if call == INCONCLUSIVE:
        n = edges if edges is not None else len(shape.per_resolver)
        result.edges_advice = advise_edges(shape, n, shared, alpha, seed) if advise else None
        hint = f"use --edges {result.edges_advice} or --model" if result.edges_advice else "use --model"
        result.reason = f"{n} edge(s) cannot tell these plans apart; {hint}"
    return result


def classify_many(ref: Mapping[str, Mapping[str, np.ndarray]], measured: Mapping[str, np.ndarray],
                  alpha: float = ALPHA, floor: float = 0.0) -> np.ndarray:
    """:func:`figure_calls` and :func:`combine` over arrays of runs: 1 spread, -1 pile-up, 0 inconclusive per run."""
    import numpy as np

    calls = []
    for name, values in measured.items():
        if name not in ref:
            continue
        codes, _a, _b = figure_calls(np.asarray(values, dtype=float), ref[name][PILE_UP], ref[name][SPREAD], alpha, floor)
        calls.append((name, codes))
    out = np.zeros(len(calls[0][1]), dtype=int)
    for name in reversed(FIGURE_ORDER):  # the first figure in the order that calls, wins
        for figure, call in calls:
            if figure == name:
                out = np.where(call != 0, call, out)
    return out


def right_rates(shape: Shape, alpha: float = ALPHA, trials: int = MIN_TRIALS, seed: int = SEED,
                figures: Sequence[str] = FIGURE_ORDER) -> dict[str, float]:
    """How often runs of this shape are called right, per truth (runs drawn apart from the reference)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    ref = figure_samples(shape, trials, rng)
    runs = figure_samples(shape, trials, rng)
    out = {}
    for truth, right in ((PILE_UP, -1), (SPREAD, 1)):
        measured = {name: dist[truth] for name, dist in runs.items() if name in figures}
        out[truth] = float((classify_many(ref, measured, alpha) == right).mean())
    return out


def separates(shape: Shape, alpha: float = ALPHA, trials: int = MIN_TRIALS, seed: int = SEED) -> bool:
    """Runs of this shape are called right at least ``1 - 2 * alpha`` of the time under both hypotheses."""
    return min(right_rates(shape, alpha, trials, seed).values()) >= 1 - 2 * alpha


def size_table(addresses: Sequence[int] = (2, 6), clients: Sequence[int] = (100, 500, 1000),
               edges: Sequence[int] = (1, 2, 4, 8, 24, 50, 100, 200)) -> str:
    """docs/rehearsal.md's table: per plan size, the share of runs called right (the worse of the two
    truths), from the overall max/mean alone and with the per-resolver figure
    (``python -m edge_origin.rehearsal.odds`` prints it)."""
    lines = ["| addresses | clients | " + " | ".join(f"{e} edges" for e in edges) + " |",
             "|---|---|" + "---|" * len(edges)]
    for k in addresses:
        answers = tuple((i,) for i in range(k))
        for c in clients:
            cells = []
            for e in edges:
                if e > c:
                    cells.append("-")
                    continue
                shape = Shape(tuple(map(str, range(k))), answers, clients_per_resolver(c, e))
                overall = min(right_rates(shape, figures=("overall",)).values())
                both = min(right_rates(shape).values())
                cells.append(f"{overall:.0%} / {both:.0%}")
            lines.append(f"| {k} | {c} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(size_table())


def advise_edges(shape: Shape, edges: int, shared: bool, alpha: float = ALPHA, seed: int = SEED) -> int | None:
    """The --edges closest to ``edges`` at which runs of this plan and these clients are called right (None: none)."""
    if shared:
        return None  # one shared resolver: more edges change nothing
    clients = shape.clients
    candidates = sorted((m for m in EDGE_CANDIDATES if m <= clients and m != edges), key=lambda m: (abs(m - edges), m))
    for m in candidates[:12]:
        if separates(Shape(shape.keys, shape.answers, clients_per_resolver(clients, m), shape.round_robin), alpha, seed=seed):
            return m
    return None


def measured_per_resolver(clients: Sequence[Mapping[str, Any]], keys: Sequence[str], shared: bool = False) -> float | None:
    """The per-resolver figure of a run: max/mean of the clients' first origins among the clients of
    each edge (one group when the edges share a resolver), averaged over groups of two or more."""
    groups: dict[str, list[str]] = {}
    for c in clients:
        if c.get("origins"):
            groups.setdefault("shared" if shared else str(c.get("edge")), []).append(c["origins"][0][1])
    k = len(keys)
    ratios = []
    for firsts in groups.values():
        if len(firsts) >= 2 and k:
            top = max(firsts.count(key) for key in keys)
            ratios.append(top / (len(firsts) / k))
    return round(sum(ratios) / len(ratios), 4) if ratios else None


# --- the spread side alone, pure Python (watch) ---------------------------------------------------
def balanced_tail(ratio: float, total: int, nodes: int) -> float:
    """How often ``total`` flows spread at random over ``nodes`` nodes give max/mean >= ``ratio``: an
    upper bound (the union over nodes of the exact binomial tail), so a pile-up is never called on chance."""
    if nodes <= 1 or total <= 0 or ratio <= 1.0:
        return 1.0  # the max is never below the mean
    x = math.ceil(ratio * total / nodes - 1e-9)
    return min(1.0, nodes * _binomial_upper(total, 1.0 / nodes, x))


def _binomial_upper(n: int, p: float, x: int) -> float:
    """P(Binomial(n, p) >= x), summed from x up until the terms vanish."""
    if x <= 0:
        return 1.0
    if x > n:
        return 0.0
    if x <= n * p:
        return 1.0  # at or below the mean: an upper bound is all the caller needs
    log_pmf = math.lgamma(n + 1) - math.lgamma(x + 1) - math.lgamma(n - x + 1) + x * math.log(p) + (n - x) * math.log1p(-p)
    term = math.exp(log_pmf)
    total = term
    for k in range(x, n):
        term *= (n - k) / (k + 1) * p / (1 - p)
        total += term
        if term < 1e-15 * total or term == 0.0:
            break
    return min(1.0, total)


def judge_run(plan: DnsPlan, clients: Sequence[Mapping[str, Any]], overall: float, *, policy: str, rotation: bool,
              edges: int, shared: bool = False, alpha: float = ALPHA) -> Verdict:
    """The verdict of a loopback run: the shape from the clients that connected (grouped by their edge,
    or as one group behind a shared resolver) and the two figures measured on it."""
    connected = [c for c in clients if c.get("origins")]
    if not connected:
        return Verdict(INCONCLUSIVE, None, [], "-", 0, 0, reason="no client connected: nothing to judge")
    groups: dict[str, int] = {}
    for c in connected:
        key = "shared" if shared else str(c.get("edge"))
        groups[key] = groups.get(key, 0) + 1
    shape = plan_shape(plan, tuple(groups.values()), policy)
    has_edges = shared or all(c.get("edge") is not None for c in connected)
    measured = {"overall": overall,
                "per_resolver": measured_per_resolver(connected, shape.keys, shared) if has_edges else None}
    return judge(shape, measured, policy=policy, rotation=rotation, edges=edges, shared=shared, alpha=alpha)
