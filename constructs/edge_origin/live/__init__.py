"""Live accounts: read them into the template model (boto3), and change Route 53 safely.

``session.LiveSession`` is the only place boto3 clients are made; every live command takes one.

Layer 4. May import: core, data, answers, profile, model, rules, review, cdk, rehearsal, forecast, live.
"""
