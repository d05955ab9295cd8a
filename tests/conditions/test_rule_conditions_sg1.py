"""EO-SG1 beyond tests/conditions/test_rule_conditions_nlb_sg.py: whole messages and the fix, CIDRs as EC2
takes them, checker regions without published ranges, and a health check passed over before the one that fires
(mutmut survivors, issue 38)."""

from __future__ import annotations

from test_rule_conditions_nlb_sg import CHECKER_REGIONS, GLOBAL, REGIONAL, checks, sg_world
from worlds import findings, quiet, res

from edge_origin.core.findings import Severity
from edge_origin.rules.sg1_health_checkers import FIX, route53_health_checkers


def _found(body) -> list[tuple[str, Severity, str, str]]:
    return [(f.resource, f.severity, f.message, f.fix) for f in findings(body, "EO-SG1")]


def test_sg1_the_published_checker_ranges_are_read() -> None:
    data = route53_health_checkers()
    assert data["regions"]["GLOBAL"] == GLOBAL and len(data["regions"]) > 2


def test_sg1_two_regions_blocked_the_whole_warning_naming_both_groups() -> None:
    blocked = ("us-east-1", "eu-west-1")
    admitted = GLOBAL + [c for r, cidrs in CHECKER_REGIONS.items() if r not in ("GLOBAL", *blocked) for c in cidrs]
    body = sg_world(admitted)
    body["Resources"]["NlbSg2"] = {"Type": "AWS::EC2::SecurityGroup", "Properties": {
        "GroupDescription": "more", "VpcId": "vpc-1", "SecurityGroupIngress": []}}
    res(body, "Nlb")["SecurityGroups"].append({"Fn::GetAtt": ["NlbSg2", "GroupId"]})
    [(resource, severity, message, fix)] = _found(body)
    assert (resource, severity, fix) == ("Nlb", Severity.WARNING, FIX)
    assert message.startswith("NLB Nlb: security group(s) NlbSg, NlbSg2 do not admit ")
    assert "checkers of us-east-1, eu-west-1 are blocked; " in message
    assert message.endswith("so the check holds only while more than 18% of all checkers see the NLB healthy")


def test_sg1_nothing_admitted_has_the_fix() -> None:
    [(_, severity, _, fix)] = _found(sg_world([]))
    assert (severity, fix) == (Severity.ERROR, FIX)


def test_sg1_cidrs_as_ec2_takes_them() -> None:
    """A CIDR with host bits set admits its whole network; a value that is no CIDR is passed over, the rest read."""
    quiet(sg_world(["192.0.2.1/0"]), "EO-SG1")
    quiet(sg_world(["not-a-cidr", *GLOBAL, *REGIONAL]), "EO-SG1")


def test_sg1_a_checker_region_without_published_ranges_is_not_held_against_the_nlb() -> None:
    body = sg_world()
    checks(body, Regions=["us-east-1", "eu-west-1", "xx-future-1"])
    quiet(body, "EO-SG1")


def test_sg1_a_check_passed_over_does_not_end_the_check_of_the_next() -> None:
    body = sg_world([])
    cfg = res(body, "CheckA")["HealthCheckConfig"]
    cfg.pop("Port", None)
    cfg["Type"] = "TCP"  # no port: not judged
    assert [(r, m.split("(health check ")[1][:6]) for r, _, m, _ in _found(body)] == [("Nlb", "CheckB")]


# --- issue 52: the AWS-managed prefix list com.amazonaws.<region>.route53-healthchecks --------------------------
def _by_prefix_list(named: str | None) -> dict:
    body = sg_world([])
    sg = body["Resources"]["NlbSg"]
    sg["Properties"]["SecurityGroupIngress"] = [
        {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "SourcePrefixListId": "pl-0a1b2c3d4e5f60718"}]
    if named is not None:
        sg["Metadata"] = {"edge-origin:route53-healthchecks-prefix-list": named}
    return body


def test_sg1_the_route53_managed_prefix_list_named_in_metadata_admits_every_checker() -> None:
    quiet(_by_prefix_list("pl-0a1b2c3d4e5f60718"), "EO-SG1")


def test_sg1_another_list_than_the_one_named_is_still_not_read_as_the_checkers() -> None:
    found = _found(_by_prefix_list("pl-ffffffffffffffff0"))  # an unknown list: not judged, said (never silence)
    assert [(f[1], f[2].startswith("not judged: ")) for f in found] == [(Severity.WARNING, True)]
    body = _by_prefix_list("pl-0a1b2c3d4e5f60718")
    body["Resources"]["NlbSg"]["Properties"]["SecurityGroupIngress"][0].update(FromPort=8081, ToPort=8081)
    [(_, severity, _, _)] = _found(body)  # the list admitted on another port than the checked one
    assert severity is Severity.ERROR
