"""Hypothesis settings: one ``ci`` profile at full strength (the default), a lighter ``dev`` one for local loops.

``HYPOTHESIS_PROFILE=dev pytest`` trades examples for speed while editing; CI
and the README's command load ``ci``, which keeps every count the suite had when
each property was written. A count that belongs to the property itself (a fuzz
scale, a fixed replay) stays written on the test; a count that is only about how
long to look scales with the profile, as :data:`PROPERTY` does.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILES = {"ci": 100, "dev": 20}
"""Examples per property test under each profile (Hypothesis' own default is the ``ci`` count)."""


def load_profile(environ: dict[str, str] | None = None) -> str:
    """Register both profiles and load the one ``HYPOTHESIS_PROFILE`` names (``ci`` when unset)."""
    for name, examples in PROFILES.items():
        settings.register_profile(name, max_examples=examples)
    name = (environ if environ is not None else dict(os.environ)).get("HYPOTHESIS_PROFILE", "ci").strip() or "ci"
    if name not in PROFILES:
        raise ValueError(f"HYPOTHESIS_PROFILE must be one of {', '.join(PROFILES)}, not {name!r}")
    settings.load_profile(name)
    return name


def document_property() -> settings:
    """Twice the profile's examples, no deadline: properties over whole generated documents (parse, render, wrap).

    Built after :func:`load_profile` has run (the root conftest loads it before any test module is imported).
    """
    return settings(
        max_examples=2 * settings.default.max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
