"""Locustfiles the package ships (``rehearsal.py``: the flash-crowd rehearsal's users)."""
