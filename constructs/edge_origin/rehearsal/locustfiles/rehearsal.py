"""The locustfile edge-origin ships: ``locust -f THIS_FILE --master`` / ``--worker``.

It only imports the rehearsal's Locust user (:class:`edge_origin.rehearsal.locust.EdgeUser`);
the master reads its configuration from the file named by ``EDGE_ORIGIN_LOCUST_CONFIG``.
"""

from edge_origin.rehearsal.locust import EdgeUser

__all__ = ["EdgeUser"]
