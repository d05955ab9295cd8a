"""A model is freed as soon as its last reference goes (issue 53): nothing in it refers back to it
(the stack resolvers reach it through a weak reference), so no collector pass is needed and a
program can end without walking it."""

from __future__ import annotations

import gc
import weakref

from edge_origin.model import TemplateModel
from edge_origin.rules import run_rules

EXPORTER = {"Resources": {"Eip": {"Type": "AWS::EC2::EIP", "Properties": {"Domain": "vpc"}}},
            "Outputs": {"Ip": {"Value": {"Ref": "Eip"}, "Export": {"Name": "shared-ip"}}}}
IMPORTER = {"Resources": {"Rec": {"Type": "AWS::Route53::RecordSet", "Properties": {
    "HostedZoneName": "example.com.", "Name": "o.example.com", "Type": "A", "TTL": 60, "SetIdentifier": "a",
    "MultiValueAnswer": True, "ResourceRecords": [{"Fn::ImportValue": "shared-ip"}]}}}}


def test_a_judged_model_is_freed_without_the_collector() -> None:
    was = gc.isenabled()
    gc.disable()
    try:
        model = TemplateModel.from_templates({"Exporter": EXPORTER, "Importer": IMPORTER})
        record = model.record_sets("o.example.com")[0]
        assert model.eip(record.values[0]) is not None  # the import was resolved through the model
        run_rules(model)
        ref = weakref.ref(model)
        del model, record
        assert ref() is None
    finally:
        if was:
            gc.enable()
