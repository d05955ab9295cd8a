"""What every layer shares: small modules with no opinion about templates, accounts or constructs.

- ``findings`` (``Finding``, ``Severity``): what a rule, a check or a live guard reports;
- ``errors`` (``EdgeOriginPropError``, the prop validators): construction-time errors naming the
  construct, the prop, the value and what is allowed (the one module here that imports
  aws-cdk-lib: durations and tokens);
- ``origin_verification`` (``OriginVerification``): the secret-header props and their checks,
  read by the constructs, the rules, the report and ``profile render`` alike;
- ``escape``: escaping at the point of writing, one function per output format (terminal,
  Markdown, Mermaid, GitHub workflow commands, SARIF);
- ``files``: reading user files safely (regular files only, a size bound, UTF-8 text);
- ``watch_math``: the alarm's metric math, shared by the ``OriginWatch`` construct and ``edge-origin watch``.

Layers (``tests/test_house.py`` fails on an import that goes up one): core and data (0); answers,
profile (1); model (2); rules (3); review, cdk, rehearsal, live (4); testing (5); cli (6). A
folder imports its own layer and those below it, and nothing above; the top-level
``edge_origin`` only names the public API (imported on first use).

Layer 0. May import: core, data.
"""
