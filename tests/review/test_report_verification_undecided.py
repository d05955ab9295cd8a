"""The report's origin verification: a header whose value is set at deploy time (a parameter without a Default, an
import of an export no template declares) is "not judged" in the diagram, the table and the text plan, never
"verified"; a dynamic reference to a secret is verified; a written value is plaintext."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from edge_origin.core.origin_verification import VerificationStatus, verification_status
from edge_origin.model import LoadedTemplate, TemplateModel, load_model
from edge_origin.review.report import render_report

WORLD = Path(__file__).resolve().parents[1] / "fixtures" / "templates" / "world"
SECRET = "{{resolve:secretsmanager:arn:aws:secretsmanager:us-east-1:123456789012:secret:v-AbCdEf:SecretString:current}}"


def _model(value: object, parameters: dict | None = None) -> TemplateModel:
    origins = load_model([WORLD / "Origins.yaml"]).templates["Origins"]
    edge = json.loads((WORLD / "Edge.json").read_text())
    edge = copy.deepcopy(edge)
    edge["Resources"]["Distribution"]["Properties"]["DistributionConfig"]["Origins"][0]["OriginCustomHeaders"][0][
        "HeaderValue"] = value
    if parameters:
        edge["Parameters"] = parameters
    return TemplateModel([origins, LoadedTemplate("Edge", "Edge.json", edge)])


@pytest.mark.parametrize(("value", "parameters", "label", "described"), [
    (SECRET, None, "verified: x-origin-verify", "from a secret (dynamic reference)"),
    ({"Ref": "Verify"}, {"Verify": {"Type": "String"}}, "x-origin-verify set at deploy time: not judged",
     "value set at deploy time: not judged"),
    ({"Fn::ImportValue": "Nowhere-Verify"}, None, "x-origin-verify set at deploy time: not judged",
     "value set at deploy time: not judged"),
    ("hunter2", None, "x-origin-verify PLAINTEXT", "PLAINTEXT value in the template"),
])
def test_the_report_says_what_the_templates_show_of_the_header(value: object, parameters: dict | None, label: str,
                                                              described: str) -> None:
    model = _model(value, parameters)
    markdown = render_report(model, "markdown")
    text = render_report(model, "text")
    assert f'-- "{label}" -->' in markdown
    assert described in markdown and described in text
    assert ("verified: " in markdown) is (value == SECRET)


@pytest.mark.parametrize("state", ["secret", "plaintext", "parameter", "deploy-time", "none"])
def test_only_a_secret_header_is_verified(state: str) -> None:
    assert VerificationStatus(state, "x-origin-verify").verified is (state == "secret")


def test_an_unresolved_header_value_is_deploy_time() -> None:
    from edge_origin.model.values import Unresolved

    assert verification_status({"x-origin-verify": Unresolved("parameter", "Verify")}).state == "deploy-time"


def test_a_balancer_whose_type_is_set_at_deploy_time_is_never_drawn_as_an_alb() -> None:
    from edge_origin.model import LoadBalancerView
    from edge_origin.review.report_parts import _lb_kind

    def kind(**fields: object) -> str:
        lb = LoadBalancerView.__new__(LoadBalancerView)
        lb.__dict__.update({"type": None, "type_undecided": False, **fields})
        return _lb_kind(lb)

    assert (kind(type="network"), kind(type="application"), kind(type_undecided=True)) == (
        "NLB", "ALB", "LB (Type set at deploy time)")
