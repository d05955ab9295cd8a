"""The one shape every check in edge-origin reports: template rules, profile checks, audits."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum


class Severity(str, Enum):
    """How bad a finding is. Ordered: error > warning > info.

    ``NOT_CHECKED`` is a status, not a problem found: a live rule could not run (AccessDenied, a
    throttle). It ranks above error so that no ``--fail-on`` threshold reads it as clean.
    """

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    NOT_CHECKED = "not-checked"

    @property
    def rank(self) -> int:
        return {"info": 0, "warning": 1, "error": 2, "not-checked": 3}[self.value]

    def at_least(self, other: Severity) -> bool:
        return self.rank >= other.rank


@dataclass(frozen=True, order=True)
class Finding:
    """One problem found by a rule.

    ``template`` is the file the resource came from (empty for a profile file check: then it is
    the profile file), ``stack`` the stack name, ``resource`` the logical id (or the profile field).
    """

    rule: str
    severity: Severity
    message: str
    fix: str
    template: str = ""
    stack: str = ""
    resource: str = ""
    path: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, str]:
        data = asdict(self)
        data["severity"] = self.severity.value
        return data
