"""The internet-scale model: what a burst from zero does to the path, at a hundred million devices.

The loopback rehearsal (``edge_origin.rehearsal``) replays the DNS plan with real processes; this
package models it at internet scale and forecasts events: ``montecarlo`` (edges, resolvers, TTLs,
health checks, clients: ``rehearse --model``), ``sim`` (one run's dynamics), ``inputs`` (the model's
inputs and their refusals: ``ModelInputError``), ``events``/``events_run``/``fit`` (the published
incident's events, fitted and predicted: ``edge-origin model fit``), ``capacity`` (a planned event
against each NLB zonal node's LCU dimensions: ``edge-origin model predict --devices``) and
``agreement`` (the model against the loopback rehearsal: ``edge-origin model compare``). "model"
elsewhere in the package is the template model (``edge_origin.model``).

Until 0.2 these modules lived in ``edge_origin.rehearsal`` (``model_inputs``, ``model_sim``,
``model_events``, ``model_events_run``, ``model_fit``, ``model_agreement``, ``model_capacity``,
``montecarlo``); the old paths still import, with a DeprecationWarning, until 0.3.

Layer 4. May import: core, data, answers, profile, model, rules, review, cdk, rehearsal, forecast, live.
"""
