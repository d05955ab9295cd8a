"""The constructs: everything here imports aws-cdk-lib (a Node.js runtime through jsii).

Layer: above ``model``, ``answers``, ``profile`` and ``rules`` (which never import this package);
below ``cli`` and ``review.nag``. Import the public names from ``edge_origin`` itself
(``from edge_origin import GrpcEdgeToOrigin``); the modules here are the implementation:

- ``pattern`` (``GrpcEdgeToOrigin``), ``internal`` (``InternalGrpcOrigin``), ``edge``
  (``GrpcEdgeDistribution``), ``vpc_origin``: the patterns and their CloudFront parts;
- ``origin_fleet`` (``OriginFleet``), ``origin_records`` (``MultivalueOriginRecords``),
  ``eks_binding`` (``TargetGroupBindings``), ``watch`` (``OriginWatch``): the parts;
- ``props``, ``profile_binding``, ``quotas``, ``outputs``: what the patterns share.

Layer 4. May import: core, data, answers, profile, model, rules, review, cdk, rehearsal, forecast, live.
"""
