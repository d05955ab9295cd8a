"""The review side: what reads templates (or two of them) and writes a verdict for people and CI.

Layer: above ``rules`` (it runs them), ``model`` and ``answers``; below ``cli``. ``checker``
(``edge-origin check`` and its formats), ``report`` / ``report_vpc`` (the review report),
``diff`` / ``quota_crossings`` (``edge-origin diff``), ``junit`` (JUnit XML; every format
escapes through ``edge_origin.core.escape``, output a pull request cannot forge), ``sarif`` /
``placement`` (SARIF for code scanning, findings placed at the source line that made the construct),
``suppressions`` / ``diff_suppressions`` (every way a finding is set aside, with its reason, shown in
every format), ``baseline`` (``check --baseline``, and the same at synth), ``nag`` (the same rules as a
cdk-nag pack at synth: the one module here that imports aws-cdk-lib).

Layer 4. May import: core, data, answers, profile, model, rules, review, cdk, rehearsal, forecast, live.
"""
