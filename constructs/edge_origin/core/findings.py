"""The one shape every check in edge-origin reports: template rules, profile checks, audits."""

from __future__ import annotations

from enum import Enum

from edge_origin.core.fast_dataclass import asdict, dataclass, field


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


@dataclass(frozen=True)
class Suppression:
    """Why a finding is set aside (acknowledged), and by what.

    ``kind`` is SARIF's suppression kind (2.1.0 §3.35.2): ``inSource`` for what the app or the
    templates hold (CDK ``Validations.acknowledge``, Metadata ``edge-origin:acknowledge``),
    ``external`` for a config file's ``ignore``/``select`` or a command-line flag. ``source`` names
    the mechanism in words, ``where`` the file and key (or flag) that holds it.
    """

    kind: str
    source: str
    reason: str
    where: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


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
    #: Set when the finding is acknowledged (it does not fail the run; every format still shows it).
    suppression: Suppression | None = field(default=None, compare=False)

    def to_dict(self) -> dict[str, object]:
        """The finding as JSON data; ``suppression`` only when it is set (older readers see the
        same keys as before for open findings)."""
        data: dict[str, object] = {k: getattr(self, k) for k in ("rule", "severity", "message", "fix", "template", "stack", "resource", "path")}
        data["severity"] = self.severity.value
        if self.suppression is not None:
            data["suppression"] = self.suppression.to_dict()
        return data
