"""``edge-origin diff``: what deploying head over base does to the origin paths.

``diff_paths(base_paths, head_paths)`` / ``diff_models(base, head)`` -> ``DiffResult``:
``changes`` (per origin name: records added / removed / changed, EIPs and NLBs replaced,
listener idle timeouts and CloudFront origin timeouts before -> after), ``transition_findings``
(the EO-CHG* rules), ``head_findings`` (the template rules on head) with ``new`` (those base did
not have, by fingerprint). Resources are matched by stack and logical id; stack names come from
``load_model`` on each side (as ``check`` names them). See ``transition`` for replacement.
Bad input raises ``DiffInputError`` (a ``ModelError``): one line.
"""

from __future__ import annotations

from typing import Any

from edge_origin.diff.transition import Address, Status, Transition, transition_of

_ENGINE = ("Change", "DiffInputError", "DiffResult", "diff_models", "diff_paths", "format_diff", "DIFF_FORMATS")

__all__ = ["Address", "Status", "Transition", "transition_of", *_ENGINE]


def __getattr__(name: str) -> Any:
    # The engine imports the rule registry, whose transition rules import this package: load it lazily.
    if name in _ENGINE:
        from edge_origin.diff import engine

        return getattr(engine, name)
    raise AttributeError(name)
