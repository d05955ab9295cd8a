"""EO-DNS5: mixed routing policies for one name and type (any name)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from edge_origin.core.findings import Finding, Severity
from edge_origin.model import RecordSetView, TemplateModel
from edge_origin.rules.base import Rule, finding, with_cdk

FIX = with_cdk(
    "EO-DNS5",
    "Use one routing policy for all records of a name and type (multivalue for origins); delete the others in the same change.",
    'remove the other ARecord/AaaaRecord constructs of the name in the same change; MultivalueOriginRecords owns every record of its name.',
)


def check(model: TemplateModel) -> Iterator[Finding]:
    # Zones by identity (the zone resource or id), by name only where the name is all there is:
    # three stacks, each with its own example.com zone, hold three separate sets of records.
    groups: dict[tuple[object, str, str], list[RecordSetView]] = defaultdict(list)
    for record in model.record_sets():
        if not isinstance(record.name, str) or record.unknown:
            continue
        groups[(record.zone_key, record.name, record.type or "?")].append(record)
    for (_, name, rtype), records in groups.items():
        policies = sorted({model.zones.policy(r) for r in records} - {"unknown"})  # unknown: decided at deploy
        if len(policies) > 1:
            yield finding(
                RULE.id, Severity.ERROR, records[0].resource,
                f"{name} {rtype}: mixed routing policies ({', '.join(policies)}) in "
                f"{', '.join(sorted({r.stack + '/' + r.label for r in records}))}: Route 53 rejects the change at deploy",
                FIX,
            )


RULE = Rule(
    id="EO-DNS5",
    severity=Severity.ERROR,
    title="Mixed routing policies for one name and type",
    catches=(
        "Records of one name and type in one hosted zone (the same zone resource or id; by HostedZoneName only "
        "where no id is given) with different routing policies."
    ),
    incident="A weighted-to-multivalue migration done record by record: the deploy failed half way and rolled back (migration guide).",
    fix=FIX,
    check=check,
)
