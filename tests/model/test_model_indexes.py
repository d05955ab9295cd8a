"""The model's indexes answer as the scans they replace (issue 53: built once, linear in names x
distributions): the record types CloudFront asks for an origin name are the union over every origin
of every distribution with that DomainName."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from edge_origin.model import TemplateModel

NAMES = ("a.example.com", "b.example.com", "c.example.com")
IP_TYPES = (None, "ipv4", "dualstack", "ipv6")


def _distribution(origins: list[tuple[str, str | None]]) -> dict:
    items = []
    for n, (name, ip_type) in enumerate(origins):
        config = {"OriginProtocolPolicy": "https-only", **({"IpAddressType": ip_type} if ip_type else {})}
        items.append({"Id": f"o{n}", "DomainName": name, "CustomOriginConfig": config})
    return {"Type": "AWS::CloudFront::Distribution", "Properties": {"DistributionConfig": {
        "Enabled": True, "Origins": items,
        "DefaultCacheBehavior": {"TargetOriginId": "o0", "ViewerProtocolPolicy": "https-only"}}}}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from(NAMES[:2]), st.sampled_from(IP_TYPES)), min_size=1, max_size=3),
                min_size=1, max_size=4))
def test_origin_types_by_name_are_the_union_over_every_distribution(dists: list[list[tuple[str, str | None]]]) -> None:
    model = TemplateModel.from_templates({"S": {"Resources": {f"D{i}": _distribution(d) for i, d in enumerate(dists)}}})
    for name in NAMES:
        wanted = {t for d in model.distributions for o in d.origins if o.domain_name == name for t in o.dns_types()}
        assert model.cloudfront_origin_types(name) == (tuple(t for t in ("A", "AAAA") if t in wanted) or ("A",))
    assert model.cloudfront_origin_types(NAMES[2]) == ("A",)  # no origin names it
