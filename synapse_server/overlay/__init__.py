"""The practice <-> canon overlay: typed cross-store links and the read-only lenses over them."""
