"""Baselines the performance report runs beside our own search, in the same run, reported as ratios.

- :mod:`.numpy_scan`: plain brute-force cosine (``X @ q`` + ``argpartition``) over the vectors our
  index stores, read straight from the cache file, against our semantic channel and fused search.
- :mod:`.peer`: the PyPI ``memdsl`` package (a different project that shares our import name), in its
  own virtual environment, driven as a subprocess over the same content translated to ``.mem`` files
  by :mod:`.memfiles`. It compares latency, not quality: the peer's executor is naive term overlap
  by design.
"""
