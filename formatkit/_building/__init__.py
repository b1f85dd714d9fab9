"""Building the canonical record."""
